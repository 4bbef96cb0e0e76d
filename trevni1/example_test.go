package trevni1_test

import (
	"bytes"
	"fmt"
	"io"

	"github.com/trevni-go/trevni/trevni1"
)

// A table as Impala wrote it: nullable columns named col_N, then read back
// as Avro records.
func Example() {
	var buf bytes.Buffer
	w, _ := trevni1.NewWriter(&buf, []trevni1.ColumnSpec{
		{Name: "col_1", Type: trevni1.Int, MaxDef: 1},
		{Name: "col_2", Type: trevni1.String, MaxDef: 1},
	}, &trevni1.WriterOptions{Codec: trevni1.CodecDeflate})
	w.WriteRow(int32(7), "seven")
	w.WriteRow(nil, "no number")
	if err := w.Close(); err != nil {
		panic(err)
	}

	rd, _ := trevni1.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	text, _ := rd.AvroSchema()
	fmt.Println(text)
	cr := rd.Values(0)
	for cr.Next() != io.EOF {
		if cr.Null() {
			fmt.Println("NULL")
		} else {
			fmt.Println(cr.Int64())
		}
	}
	// Output:
	// {"type":"record","name":"Row","namespace":"trevni1","fields":[{"name":"col_1","type":["null","int"]},{"name":"col_2","type":["null","string"]}]}
	// 7
	// NULL
}
