package shred_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/shred"
)

// Shred records one at a time into a Trevni file, then list its columns.
func ExampleAvroWriter() {
	const schemaText = `{"type":"record","name":"Message","fields":[
		{"name":"id","type":"int"},
		{"name":"to","type":{"type":"array","items":"string"}},
		{"name":"received","type":{"type":"array","items":{"type":"record","name":"Received",
			"fields":[{"name":"host","type":"string"},{"name":"date","type":"long"}]}}}]}`
	var file bytes.Buffer
	w, err := shred.NewAvroWriter(&file, schemaText, &shred.Options{WriterOptions: format.WriterOptions{Codec: "deflate", Checksum: "crc32"}})
	if err != nil {
		log.Fatal(err)
	}
	records := []map[string]any{
		{"id": int32(1), "to": []any{"ann", "bob"}, "received": []any{
			map[string]any{"host": "mx1", "date": int64(1700000000)},
		}},
		{"id": int32(2), "to": []any{}, "received": []any{}},
	}
	for _, rec := range records {
		if err := w.Write(rec); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	rd, err := format.NewReader(bytes.NewReader(file.Bytes()), int64(file.Len()), nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rd.RowCount(), "rows")
	for i := 0; i < rd.NumColumns(); i++ {
		c := rd.Column(i)
		fmt.Printf("%-15s %-6s array=%-5v parent=%q\n", c.Name, c.Type, c.Array, c.Parent)
	}
	// Output:
	// 2 rows
	// id              int    array=false parent=""
	// to[]            string array=true  parent=""
	// received[]      null   array=true  parent=""
	// received[]#host string array=false parent="received[]"
	// received[]#date long   array=false parent="received[]"
}
