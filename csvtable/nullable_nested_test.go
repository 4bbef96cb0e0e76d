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

// TestNullableNestedFields selects fields through records that may be
// null (a union with null first, and one with null second, nested), as
// nested JSON logs are inferred, and checks that a field is an empty cell
// where a record above it is null, and its value elsewhere.
func TestNullableNestedFields(t *testing.T) {
	const sch = `{"type":"record","name":"Top","fields":[
		{"name":"a","type":"int"},
		{"name":"http","type":["null",{"type":"record","name":"H","fields":[
			{"name":"status","type":"long"},
			{"name":"ua","type":["null","string"],"json.name":"user-agent"},
			{"name":"tls","type":[{"type":"record","name":"T","fields":[{"name":"v","type":"double"}]},"null"]}]}]},
		{"name":"b","type":"string"}]}`
	var buf bytes.Buffer
	aw, err := shred.NewAvroWriter(&buf, sch, &shred.Options{WriterOptions: format.WriterOptions{Codec: "null"}})
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	want.WriteString("http.tls.v,b,http.status,a,http.user-agent\n")
	str := func(rec []byte, s string) []byte {
		return append(binary.AppendVarint(rec, int64(len(s))), s...)
	}
	for i := int64(0); i < 40; i++ {
		rec := binary.AppendVarint(nil, i)
		var status, ua, v string
		if i%4 == 0 {
			rec = append(rec, 0) // http null
		} else {
			rec = append(rec, 2)
			rec = binary.AppendVarint(rec, 200+i)
			status = fmt.Sprint(200 + i)
			if i%3 == 0 {
				rec = append(rec, 0)
			} else {
				ua = fmt.Sprintf("agent %d", i)
				rec = str(append(rec, 2), ua)
			}
			if i%5 == 0 {
				rec = append(rec, 2) // tls null (its second branch)
			} else {
				rec = append(rec, 0)
				rec = binary.LittleEndian.AppendUint64(rec, math.Float64bits(float64(i)/8))
				v = FormatDouble(float64(i) / 8)
			}
		}
		b := fmt.Sprintf("b%d", i)
		rec = str(rec, b)
		if err := aw.WriteBinary(rec); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&want, "%s,%s,%s,%d,%s\n", v, b, status, i, ua)
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := trevniToCSV(t, buf.Bytes(), []string{"http.tls.v", "b", "http.status", "a", "http.user-agent"})
	if err != nil {
		t.Fatal(err)
	}
	if got != want.String() {
		t.Fatalf("got\n%s\nwant\n%s", got, want.String())
	}
	if _, err := trevniToCSV(t, buf.Bytes(), []string{"http"}); err == nil {
		t.Error("took a record as a flat field")
	}
}
