package trevni_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/testing/rangeserver"
)

// A Dataset is shared by concurrent readers: goroutines reading one data
// set of several parts (local files, one over HTTP) and one opened on a
// ReaderAt, each by another way (records, structs, JSON, counts,
// validation), get what one reader alone gets. Run under -race, this
// checks that the readers share nothing unguarded.
func TestDatasetConcurrentReaders(t *testing.T) {
	ctx := context.Background()
	const text = `{"type":"record","name":"R","fields":[{"name":"id","type":"long"},{"name":"s","type":"string"}]}`
	dir := t.TempDir()
	var last []byte
	for p := range 3 {
		var buf bytes.Buffer
		w, err := trevni.NewWriter(&buf, text, &trevni.WriteOptions{BlockSize: 512})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 700 {
			if err := w.Write(map[string]any{"id": int64(p*700 + i), "s": fmt.Sprint(i % 13)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%d.trv", p)), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		last = buf.Bytes()
	}
	srv := rangeserver.Bytes(t, last, nil)
	local, err := trevni.Open(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	mixed, err := trevni.OpenFiles(ctx, []string{filepath.Join(dir, "p0.trv"), srv.URL + "/p2.trv"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer mixed.Close()
	byRA, err := trevni.OpenReaderAt(ctx, bytes.NewReader(last), int64(len(last)), "p2.trv", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer byRA.Close()

	type row struct {
		ID int64  `avro:"id"`
		S  string `avro:"s"`
	}
	where := &trevni.ReadOptions{Where: "s = '3'"}
	reads := map[string]func(ds *trevni.Dataset) (string, error){
		"records": func(ds *trevni.Dataset) (string, error) {
			var b bytes.Buffer
			for rec, err := range ds.All(ctx, where) {
				if err != nil {
					return "", err
				}
				fmt.Fprintln(&b, rec)
			}
			return b.String(), nil
		},
		"structs": func(ds *trevni.Dataset) (string, error) {
			var b bytes.Buffer
			for r, err := range trevni.ReadStructs[row](ctx, ds, &trevni.ReadOptions{Where: "s = '3'", Workers: 2}) {
				if err != nil {
					return "", err
				}
				fmt.Fprintf(&b, "map[id:%d s:%s]\n", r.ID, r.S)
			}
			return b.String(), nil
		},
		"json": func(ds *trevni.Dataset) (string, error) {
			_, err := ds.WriteJSON(ctx, io.Discard, &trevni.ReadOptions{Workers: 2}, nil)
			return "", err
		},
		"count": func(ds *trevni.Dataset) (string, error) {
			n, err := ds.Count(ctx, where)
			return fmt.Sprint(n), err
		},
		"validate": func(ds *trevni.Dataset) (string, error) { return "", ds.Validate(ctx) },
	}
	for _, ds := range []*trevni.Dataset{local, mixed, byRA} {
		want := map[string]string{}
		for name, read := range reads {
			got, err := read(ds)
			if err != nil {
				t.Fatalf("%s alone: %v", name, err)
			}
			want[name] = got
		}
		if want["records"] != want["structs"] {
			t.Fatalf("structs and records differ alone:\n%s\n%s", want["structs"], want["records"])
		}
		var wg sync.WaitGroup
		errs := make(chan error, 4*len(reads))
		for range 4 {
			for name, read := range reads {
				wg.Go(func() {
					got, err := read(ds)
					if err != nil {
						errs <- fmt.Errorf("%s: %w", name, err)
					} else if got != want[name] {
						errs <- fmt.Errorf("%s: concurrent read differs from the read alone", name)
					}
				})
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	}
}
