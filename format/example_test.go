package format_test

import (
	"bytes"
	"fmt"
	"io"
	"log"

	"github.com/trevni-go/trevni/format"
)

// Write rows of a top-level long column (with its first values indexed) and
// an array of strings held in a child of a parent column, then read them
// back column by column.
func Example() {
	cols := []format.ColumnMeta{
		{Name: "id", Type: format.Long, Values: true},
		{Name: "tags", Type: format.Null, Array: true},
		{Name: "tags#k", Type: format.String, Parent: "tags"},
	}
	var file bytes.Buffer
	w, err := format.NewWriter(&file, cols, &format.WriterOptions{Codec: "snappy", Checksum: "crc32"})
	if err != nil {
		log.Fatal(err)
	}
	for id, tags := range [][]string{{"a", "b"}, {}, {"c"}} {
		w.StartRow()
		w.WriteLong(0, int64(id))
		w.WriteLength(1, len(tags))
		for _, t := range tags {
			w.WriteString(2, t)
		}
		if err := w.EndRow(); err != nil {
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
	ids, _ := rd.Values(0)
	tags, _ := rd.Values(1)
	keys, _ := rd.Values(2)
	for ids.StartRow() != io.EOF {
		tags.StartRow()
		keys.StartRow()
		id, _ := ids.ReadLong()
		n, _ := tags.NextLength()
		var ks []string
		for i := 0; i < n; i++ {
			k, _ := keys.ReadString()
			ks = append(ks, k)
		}
		fmt.Println(id, ks)
	}
	row, _ := ids.SeekValue(int64(2))
	fmt.Println("id 2 is row", row)
	// Output:
	// 0 [a b]
	// 1 []
	// 2 [c]
	// id 2 is row 2
}
