package assemble

import (
	"bytes"
	"io"
	"strconv"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/shred"
)

// BenchmarkNextMatch finds the matches of a filter on a top-level long
// and a ["null", string]: column by column (predicate.Columnar, the
// filter's runs) and, for comparison, record by record (a filter on a
// path into an array, which the runs do not take).
func BenchmarkNextMatch(b *testing.B) {
	const rows = 100_000
	text := `{"type":"record","name":"R","fields":[{"name":"id","type":"long"},{"name":"s","type":["null","string"]},{"name":"a","type":{"type":"array","items":"long"}}]}`
	var buf bytes.Buffer
	w, err := shred.NewAvroWriter(&buf, text, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range rows {
		var s any
		if i%3 != 0 {
			s = map[string]any{"string": "s" + strconv.Itoa(i%1000)}
		}
		if err := w.Write(map[string]any{"id": int64(i), "s": s, "a": []any{int64(i)}}); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, where string }{
		{"columnar", "id >= 0 AND s >= 's5'"},
		{"records", "a >= 0 AND s >= 's5'"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rd, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
				if err != nil {
					b.Fatal(err)
				}
				ar, err := NewAvroReader(rd, &Options{Filter: bc.where, Fields: []string{"id"}})
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for {
					if _, err := ar.NextMatch(); err == io.EOF {
						break
					} else if err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n == 0 {
					b.Fatal("no match")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/rows, "ns/row")
		})
	}
}
