package trevniarrow_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/trevniarrow"
)

// writeEvents writes a small Trevni file of events for the examples and
// returns its name.
func writeEvents(dir string) string {
	name := filepath.Join(dir, "events.trv")
	w, err := trevni.Create(context.Background(), name, `{"type":"record","name":"Event","fields":[
		{"name":"id","type":"long"},
		{"name":"kind","type":"string"},
		{"name":"tags","type":{"type":"array","items":"string"}}]}`, nil)
	if err != nil {
		log.Fatal(err)
	}
	kinds := []string{"click", "view", "click", "buy", "click"}
	for i, k := range kinds {
		tags := []any{}
		for j := range i % 3 {
			tags = append(tags, fmt.Sprintf("t%d", j))
		}
		if err := w.Write(map[string]any{"id": int64(i), "kind": k, "tags": tags}); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	return name
}

// Reading a data set's records as Arrow record batches: those a filter
// selects, two rows a batch at most.
func ExampleNewRecordReader() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "trevniarrow")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ds, err := trevni.Open(ctx, writeEvents(dir), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ds.Close()
	rr, err := trevniarrow.NewRecordReader(ctx, ds, &trevniarrow.ReadOptions{
		ReadOptions: trevni.ReadOptions{Where: "kind = 'click'", Workers: 1},
		BatchRows:   2,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer rr.Release()
	fmt.Println(rr.Schema().Field(2))
	for rr.Next() {
		rec := rr.RecordBatch()
		fmt.Println(rec.NumRows(), rec.Column(0), rec.Column(2))
	}
	if err := rr.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// tags: type=list<item: utf8>
	// 2 [0 2] [[] ["t0" "t1"]]
	// 1 [4] [["t0"]]
}

// Writing a data set as Parquet, straight from its Trevni columns, with a
// selection of fields and an offset, and reading the file back.
func ExampleWriteParquet() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "trevniarrow")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ds, err := trevni.Open(ctx, writeEvents(dir), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ds.Close()
	var out bytes.Buffer
	n, err := trevniarrow.WriteParquet(ctx, &out, ds, &trevniarrow.ParquetOptions{
		Read:  trevniarrow.ReadOptions{ReadOptions: trevni.ReadOptions{Fields: []string{"id", "kind"}, Offset: 1}},
		Codec: "zstd",
	})
	if err != nil {
		log.Fatal(err)
	}
	pf, err := trevniarrow.OpenParquet(bytes.NewReader(out.Bytes()), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer pf.Close()
	fmt.Println(n, "records written;", pf.NumRows(), "rows read back")
	fmt.Println(pf.AvroSchema())
	// Output:
	// 4 records written; 4 rows read back
	// {"type":"record","name":"Event","fields":[{"name":"id","type":"long"},{"name":"kind","type":"string"}]}
}
