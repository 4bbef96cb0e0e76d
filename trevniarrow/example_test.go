package trevniarrow_test

import (
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
