package trevniparquet_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/trevniarrow"
	"github.com/trevni-go/trevni/trevniparquet"
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

// Writing a data set as Parquet, straight from its Trevni columns, with a
// selection of fields and an offset, and reading the file back.
func ExampleWrite() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "trevniparquet")
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
	n, err := trevniparquet.Write(ctx, &out, ds, &trevniparquet.WriteOptions{
		Read:  trevniarrow.ReadOptions{ReadOptions: trevni.ReadOptions{Fields: []string{"id", "kind"}, Offset: 1}},
		Codec: "zstd",
	})
	if err != nil {
		log.Fatal(err)
	}
	pf, err := trevniparquet.Open(bytes.NewReader(out.Bytes()), nil)
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
