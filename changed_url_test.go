package trevni_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trevni-go/trevni"
)

// A Trevni file of an http(s) URL replaced by another while a data set,
// or an Object, reads it fails the reads after with an error wrapping
// ErrChanged that names the URL, never mixing the two files: on a server
// that gives an ETag, on one that gives only a Last-Modified, and on one
// that gives neither (the new file is of another size).
func TestURLReplacedWhileReadIsErrChanged(t *testing.T) {
	type file struct {
		body    []byte
		modTime time.Time
	}
	read := func(name string, mod time.Time) *file {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return &file{b, mod}
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	first := read("testdata/interop/medium/medium.deflate.crc32.trv", t0)
	second := read("testdata/interop/medium/medium.snappy.crc32.trv", t0.Add(time.Hour))
	for _, kind := range []string{"ETag", "Last-Modified", "neither"} {
		t.Run(kind, func(t *testing.T) {
			var cur atomic.Pointer[file]
			cur.Store(first)
			s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				f := cur.Load()
				mod := f.modTime
				switch kind {
				case "ETag":
					w.Header().Set("ETag", fmt.Sprintf(`"%08x"`, crc32.ChecksumIEEE(f.body)))
				case "neither":
					mod = time.Time{}
				}
				http.ServeContent(w, r, "p.trv", mod, bytes.NewReader(f.body))
			}))
			defer s.Close()
			ctx := context.Background()
			url := s.URL + "/p.trv"
			check := func(what string, err error) {
				t.Helper()
				if !errors.Is(err, trevni.ErrChanged) || !strings.HasPrefix(err.Error(), url+": ") {
					t.Errorf("%s after the file was replaced: %v; want ErrChanged, of %s", what, err, url)
				}
			}
			ds, err := trevni.Open(ctx, url, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ds.Close()
			o, err := trevni.OpenObject(ctx, url, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			cur.Store(second)
			check("a data set's read", firstReadErr(ctx, ds, nil))
			_, err = o.ReadAt(make([]byte, 100), 1000)
			check("an Object's ReadAt", err)
		})
	}
}
