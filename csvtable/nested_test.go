package csvtable

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/shred"
)

// TestNestedFields selects fields of nested records by dotted paths, in
// an order other than the file's, and checks the CSV against the values
// written.
func TestNestedFields(t *testing.T) {
	const sch = `{"type":"record","name":"Top","fields":[
		{"name":"a","type":"int"},
		{"name":"r","type":{"type":"record","name":"R","namespace":"n","fields":[
			{"name":"x","type":"string"},
			{"name":"y","type":{"type":"record","name":"Y","fields":[{"name":"z","type":"double"},{"name":"w","type":["null","long"]}]}}]}},
		{"name":"b","type":"long"},
		{"name":"list","type":{"type":"array","items":"int"}}]}`
	var buf bytes.Buffer
	aw, err := shred.NewAvroWriter(&buf, sch, &shred.Options{WriterOptions: format.WriterOptions{Codec: "null"}})
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	want.WriteString("b,r.y.z,r.x,a,r.y.w\n")
	for i := int64(0); i < 50; i++ {
		var rec []byte
		rec = binary.AppendVarint(rec, i)
		x := fmt.Sprintf("x%d", i*7)
		rec = binary.AppendVarint(rec, int64(len(x)))
		rec = append(rec, x...)
		z := float64(i) / 4
		rec = binary.LittleEndian.AppendUint64(rec, math.Float64bits(z))
		w := ""
		if i%3 == 0 {
			rec = append(rec, 0) // null
		} else {
			rec = append(rec, 2)
			rec = binary.AppendVarint(rec, -i*1000)
			w = fmt.Sprint(-i * 1000)
		}
		rec = binary.AppendVarint(rec, i*i)
		rec = append(rec, 0) // an empty array
		if err := aw.WriteBinary(rec); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&want, "%d,%s,%s,%d,%s\n", i*i, FormatDouble(z), x, i, w)
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := trevniToCSV(t, buf.Bytes(), []string{"b", "r.y.z", "r.x", "a", "r.y.w"})
	if err != nil {
		t.Fatal(err)
	}
	if got != want.String() {
		t.Fatalf("got\n%s\nwant\n%s", got, want.String())
	}
	for _, tc := range []struct {
		sel  []string
		want string
	}{
		{nil, `field "r"`},
		{[]string{"r"}, `field "r"`},
		{[]string{"r.y.q"}, `no field "r.y.q"`},
		{[]string{"a.b"}, `"a" is not a record`},
		{[]string{"r.x", "r.x"}, "selected twice"},
		{[]string{"list.x"}, `"list" is not a record`},
	} {
		if _, err := trevniToCSV(t, buf.Bytes(), tc.sel); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.sel, err, tc.want)
		}
	}
}
