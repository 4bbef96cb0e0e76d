package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/trevni-go/trevni/internal/frontdoor"
)

// converterInputs expands the inputs of a converter as the reading
// commands expand theirs (frontdoor.ExpandNames), for the converter's own
// files: a glob (quoted, so that the shell leaves it) gives the files it
// matches, in name order; a directory the files in it whose extension is
// one of exts (".parquet"), in name order, leaving out those whose name
// starts with _ or . (Spark's and Hive's _SUCCESS, .crc files), as the
// directories of part files Spark, Hive and DuckDB write hold them. A
// glob or directory that gives no file is an error naming it; any other
// name (a file, a URL, -) is kept as it is.
func converterInputs(ins []string, exts ...string) ([]string, error) {
	var out []string
	for _, a := range ins {
		if a == "-" || frontdoor.IsURL(a, nil) {
			out = append(out, a)
			continue
		}
		if frontdoor.HasGlob(a) {
			if _, err := os.Stat(a); err != nil {
				m, err := filepath.Glob(a)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", a, err)
				}
				n := len(out)
				for _, f := range m {
					if fi, err := os.Stat(f); err == nil && !fi.IsDir() {
						out = append(out, f)
					}
				}
				if len(out) == n {
					return nil, fmt.Errorf("%s: no file matches", a)
				}
				continue
			}
		}
		fi, err := os.Stat(a)
		if err != nil || !fi.IsDir() {
			out = append(out, a) // opening it reports the error
			continue
		}
		ents, err := os.ReadDir(a)
		if err != nil {
			return nil, err
		}
		n := len(out)
		for _, ent := range ents { // ReadDir sorts by name
			name := ent.Name()
			if strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".") || ent.IsDir() {
				continue
			}
			for _, ext := range exts {
				if strings.EqualFold(filepath.Ext(name), ext) {
					out = append(out, filepath.Join(a, name))
					break
				}
			}
		}
		if len(out) == n {
			return nil, fmt.Errorf("%s: directory holds no *%s file", a, strings.Join(exts, ", *"))
		}
	}
	return out, nil
}
