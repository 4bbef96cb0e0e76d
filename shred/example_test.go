package shred_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
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
		c, err := rd.Column(i)
		if err != nil {
			log.Fatal(err)
		}
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

// Write records in Avro's binary encoding; a record that does not decode
// is refused with a *schema.Error naming the record and the field, and
// writing goes on.
func ExampleAvroWriter_WriteBinary() {
	const schemaText = `{"type":"record","name":"Point","fields":[
		{"name":"x","type":"int"},
		{"name":"tags","type":{"type":"array","items":"string"}}]}`
	w, err := shred.NewAvroWriter(io.Discard, schemaText, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer w.Abort()
	good := []byte{0x02, 0x02, 0x02, 'a', 0x00} // x=1, tags=["a"]
	bad := []byte{0x02, 0x02, 0x02, 0xff, 0x00} // tags[0] is not UTF-8
	for _, rec := range [][]byte{good, bad, good} {
		var se *schema.Error
		if err := w.WriteBinary(rec); errors.As(err, &se) {
			fmt.Printf("record %d, field %s: refused (%v)\n", se.Record, se.Path, errors.Is(err, shred.ErrBinary))
		} else if err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println(w.RowCount(), "rows")
	// Output:
	// record 1, field tags[0]: refused (true)
	// 2 rows
}
