package frontdoor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/trevni-go/trevni/remote"
	"github.com/trevni-go/trevni/remote/store"
)

// IsURL reports whether name is a URL that the front door reads with
// range requests: http or https, or the URL of a store among stores or
// the drivers the program links (s3, gs, azblob).
func IsURL(name string, stores map[string]store.Store) bool {
	return remote.IsURL(name) || store.IsURL(name, stores)
}

// HasGlob reports whether name holds a glob's special characters.
func HasGlob(name string) bool { return strings.ContainsAny(name, "*?[") }

// dataSetExts are the extensions of the files the front door's Open
// takes from a directory or an object store's prefix: Trevni 2, Trevni
// 1, CLMN, Avro container and Parquet files.
var dataSetExts = []string{".trv", ".trv1", ".clmn", ".avro", ".parquet"}

// DataExt reports whether a file (or an object) named name is one the
// front door takes from a directory or a prefix, by its extension: *.trv,
// *.trv1, *.clmn, *.avro or *.parquet, in any case.
func DataExt(name string) bool { return hasExt(name, dataSetExts) }

// ExpandNames expands the names of a data set into the files the front
// door's Open reads, keeping their order: a local name as ExpandLocal
// expands it with the extensions of dataSetExts (.trv, .trv1, .clmn,
// .avro, .parquet), an object store's URL with a glob in its key the
// objects it matches in key order, one ending in "/" its objects of those
// extensions, and any other URL or name itself. A glob or directory that
// gives no file is an error. stores are the stores handed in by scheme
// (nil: the linked drivers only); listing a store's keys stops when ctx
// ends, and so bounds the stall of its requests (nil: the defaults).
func ExpandNames(ctx context.Context, names []string, stores map[string]store.Store, so *store.Options) ([]string, error) {
	var out []string
	for _, a := range names {
		switch {
		case store.IsURL(a, stores) && (HasGlob(store.Key(a)) || strings.HasSuffix(store.Key(a), "/")):
			pattern := a
			if k := store.Key(a); !HasGlob(k) {
				// The prefix's objects one level down: "*" after the key.
				at := strings.Index(a, "://") + 3
				at += strings.IndexByte(a[at:], '/') + 1 + len(k)
				pattern = a[:at] + "*" + a[at:]
			}
			st, err := store.For(a, stores)
			if err != nil {
				return nil, err
			}
			m, err := st.List(ctx, pattern, so)
			if err != nil {
				return nil, err
			}
			n := len(out)
			for _, u := range m {
				if HasGlob(store.Key(a)) {
					out = append(out, u)
					continue
				}
				if hasExt(path.Base(store.Key(u)), dataSetExts) {
					out = append(out, u)
				}
			}
			if len(out) == n {
				if HasGlob(store.Key(a)) {
					return nil, fmt.Errorf("%s: no object matches", a)
				}
				return nil, fmt.Errorf("%s: the prefix holds no %s object", a, extList(dataSetExts))
			}
		case IsURL(a, stores) || a == "-":
			out = append(out, a)
		default:
			m, err := ExpandLocal(a, dataSetExts...)
			if err != nil {
				return nil, err
			}
			out = append(out, m...)
		}
	}
	if slices.Contains(out, "-") && len(out) > 1 {
		return nil, errors.New("standard input (-) cannot be read with other inputs")
	}
	return out, nil
}

// ExpandLocal expands one local name of a data set's parts, as the
// reading commands and the converters both take them:
//   - a glob (a name holding *, ? or [ that does not exist as it is
//     written) gives the files it matches in name order, leaving out
//     directories and, as a shell does, names starting with "." unless
//     the pattern's last element starts with "." itself; a match that
//     cannot be examined (a dangling link) is kept, for opening it to
//     report the error;
//   - a directory gives its files (or links to files) whose extension is
//     one of exts, compared without regard to case, in name order,
//     leaving out names starting with "_" or "." (the _SUCCESS and
//     _metadata files of Spark and Hive, their .part-0.crc checksums,
//     hidden files) and not entering subdirectories;
//   - any other name, "-" included, is itself.
//
// A glob or directory that gives no file is an error naming it.
func ExpandLocal(name string, exts ...string) ([]string, error) {
	if name == "-" {
		return []string{name}, nil
	}
	if HasGlob(name) && !exists(name) {
		m, err := filepath.Glob(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		hiddenToo := strings.HasPrefix(filepath.Base(name), ".")
		var out []string
		for _, f := range m {
			if !hiddenToo && strings.HasPrefix(filepath.Base(f), ".") {
				continue
			}
			if fi, err := os.Stat(f); err == nil && fi.IsDir() {
				continue // a glob's directories are not read into
			}
			out = append(out, f)
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%s: no file matches", name)
		}
		return out, nil
	}
	fi, err := os.Stat(name)
	if err != nil || !fi.IsDir() {
		return []string{name}, nil // opening it reports the error
	}
	ents, err := os.ReadDir(name)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, ent := range ents { // ReadDir sorts by name
		base := ent.Name()
		if strings.HasPrefix(base, "_") || strings.HasPrefix(base, ".") || !hasExt(base, exts) {
			continue
		}
		if ent.Type().IsRegular() || ent.Type()&os.ModeSymlink != 0 && isFile(filepath.Join(name, base)) {
			out = append(out, filepath.Join(name, base))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: directory holds no %s file", name, extList(exts))
	}
	return out, nil
}

// hasExt tells whether name ends in one of exts, without regard to case.
func hasExt(name string, exts []string) bool {
	e := filepath.Ext(name)
	for _, x := range exts {
		if strings.EqualFold(e, x) {
			return true
		}
	}
	return false
}

// extList writes exts as "*.a, *.b or *.c".
func extList(exts []string) string {
	var b strings.Builder
	for i, x := range exts {
		switch {
		case i == 0:
		case i == len(exts)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString("*" + x)
	}
	return b.String()
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func isFile(p string) bool { fi, err := os.Stat(p); return err == nil && !fi.IsDir() }
