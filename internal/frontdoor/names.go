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

// ExpandNames expands the names of a data set into the files the front
// door's Open reads, keeping their order: a glob gives its matches in
// name order (leaving out directories; a name that exists as it is
// written is not a glob), a directory its files of the data extensions
// (DataExt: *.trv, *.trv1, *.clmn, *.avro, *.parquet) in name order, an
// object store's URL with a glob in its key the objects it matches in key
// order, one ending in "/" its objects of those extensions, and any other
// URL or name itself. A glob or directory that
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
				if DataExt(path.Ext(store.Key(u))) {
					out = append(out, u)
				}
			}
			if len(out) == n {
				if HasGlob(store.Key(a)) {
					return nil, fmt.Errorf("%s: no object matches", a)
				}
				return nil, fmt.Errorf("%s: the prefix holds no %s object", a, dataExts)
			}
		case IsURL(a, stores) || a == "-":
			out = append(out, a)
		case HasGlob(a) && !exists(a):
			m, err := filepath.Glob(a)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", a, err)
			}
			n := len(out)
			for _, f := range m {
				if fi, err := os.Stat(f); err == nil && fi.IsDir() {
					continue // a glob's directories are not read into
				}
				out = append(out, f)
			}
			if len(out) == n {
				return nil, fmt.Errorf("%s: no file matches", a)
			}
		default:
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
				if DataExt(filepath.Ext(ent.Name())) && (ent.Type().IsRegular() || ent.Type()&os.ModeSymlink != 0) {
					out = append(out, filepath.Join(a, ent.Name()))
				}
			}
			if len(out) == n {
				return nil, fmt.Errorf("%s: directory holds no %s file", a, dataExts)
			}
		}
	}
	if slices.Contains(out, "-") && len(out) > 1 {
		return nil, errors.New("standard input (-) cannot be read with other inputs")
	}
	return out, nil
}

// DataExt reports whether a directory's file (or a prefix's object) of
// extension ext (".trv") is one of a data set: Trevni 2 (.trv), Trevni 1
// (.trv1), CLMN (.clmn), Avro container (.avro) or Parquet (.parquet).
// Others (Spark's _SUCCESS, .crc files) are left out.
func DataExt(ext string) bool {
	switch ext {
	case ".trv", ".trv1", ".clmn", ".avro", ".parquet":
		return true
	}
	return false
}

// dataExts lists the data extensions for messages.
const dataExts = "*.trv, *.trv1, *.clmn, *.avro or *.parquet"

func exists(p string) bool { _, err := os.Stat(p); return err == nil }
