package trevni

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/shred"
)

// Reader.FetchedEnd says, column by column, where what the reader fetched
// over HTTP ends: the end of the furthest byte of the column's range that
// the server sent, as a record of the range requests it answered has it,
// at every point of a read (checked every few thousand rows); nothing
// past the table of a column not read; and for a local file, nothing.
func TestReaderFetchedEnd(t *testing.T) {
	const schemaText = `{"type":"record","name":"R","fields":[{"name":"id","type":"long"},{"name":"name","type":"string"},{"name":"other","type":"string"}]}`
	var file bytes.Buffer
	aw, err := shred.NewAvroWriter(&file, schemaText, &shred.Options{WriterOptions: format.WriterOptions{Codec: "null", BlockSize: 16 << 10}})
	if err != nil {
		t.Fatal(err)
	}
	var rec []byte
	const rows = 200000
	for i := range rows {
		rec = binary.AppendVarint(rec[:0], int64(i))
		s := fmt.Sprintf("name-%d", i*7919%100003)
		rec = binary.AppendVarint(rec, int64(len(s)))
		rec = append(rec, s...)
		rec = binary.AppendVarint(rec, int64(len(s)))
		rec = append(rec, s...)
		if err := aw.WriteBinary(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	data := file.Bytes()
	var (
		mu   sync.Mutex
		sent = make([]bool, len(data))
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rg := r.Header.Get("Range"); rg != "" && r.Method == http.MethodGet {
			var first, last int64
			if _, err := fmt.Sscanf(rg, "bytes=%d-%d", &first, &last); err == nil {
				mu.Lock()
				for i := first; i <= min(last, int64(len(data))-1); i++ {
					sent[i] = true
				}
				mu.Unlock()
			}
		}
		http.ServeContent(w, r, "f.trv", time.Time{}, bytes.NewReader(data))
	}))
	t.Cleanup(srv.Close)
	wantEnd := func(off, end int64) int64 {
		mu.Lock()
		defer mu.Unlock()
		for i := end - 1; i >= off; i-- {
			if sent[i] {
				return i + 1
			}
		}
		return off
	}

	ctx := context.Background()
	ds, err := Open(ctx, srv.URL+"/f.trv", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	rd, err := format.NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Rows from the middle, of two of the three columns.
	r, err := ds.NewReader(ctx, &ReadOptions{Fields: []string{"id", "name"}, Offset: rows / 4})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	moved := 0
	last := make([]int64, rd.NumColumns())
	for n := 0; ; n++ {
		if n%5000 == 0 {
			for i := range rd.NumColumns() {
				off, size := rd.ColumnRange(i)
				got, want := r.fetchedEnd(off, off+size), wantEnd(off, off+size)
				if got != want {
					t.Fatalf("after %d records: column %d [%d, %d): FetchedEnd %d, the server sent up to %d", n, i, off, off+size, got, want)
				}
				if got != last[i] {
					moved++
					last[i] = got
				}
			}
		}
		if _, err := r.ReadBinary(nil); err != nil {
			break
		}
	}
	// Both columns read were fetched (each in one window: the file is
	// smaller than the reader's budget).
	if moved < 2 {
		t.Errorf("FetchedEnd moved %d times over the read", moved)
	}
	off, size := rd.ColumnRange(2)
	if got := r.fetchedEnd(off+size/2, off+size); got != off+size/2 {
		t.Errorf("the column not read: fetched up to %d of [%d, %d)", got, off+size/2, off+size)
	}

	// A local file: nothing is fetched ahead.
	path := filepath.Join(t.TempDir(), "f.trv")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	lds, err := Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lds.Close()
	lr, err := lds.NewReader(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lr.Close()
	if _, err := lr.ReadBinary(nil); err != nil {
		t.Fatal(err)
	}
	if got := lr.fetchedEnd(100, 200); got != 100 {
		t.Errorf("a local file's FetchedEnd(100, 200) = %d", got)
	}
}
