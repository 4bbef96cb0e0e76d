package main

import (
	"github.com/trevni-go/trevni/internal/frontdoor"
)

// converterInputs expands the inputs of a converter as the reading
// commands expand theirs, with the one walk of frontdoor.ExpandLocal over
// the converter's own extensions (".parquet"): a quoted glob gives the
// files it matches in name order, a directory its files with one of exts
// in name order, leaving out _SUCCESS, .crc and other names starting
// with _ or . (the directories of part files Spark, Hive and DuckDB
// write). A URL or - is kept as it is.
func converterInputs(ins []string, exts ...string) ([]string, error) {
	var out []string
	for _, a := range ins {
		if frontdoor.IsURL(a, nil) {
			out = append(out, a)
			continue
		}
		m, err := frontdoor.ExpandLocal(a, exts...)
		if err != nil {
			return nil, err
		}
		out = append(out, m...)
	}
	return out, nil
}
