package predicate_test

import (
	"bytes"
	"math/big"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/predicate"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/shred"
)

// BenchmarkColumnarDecimal evaluates `d > 123.45` over 65,536 records of a
// decimal(18,2) stored as bytes, column by column (runs of 4,096 rows) and,
// for comparison, record by record (Predicate.Match on each record).
func BenchmarkColumnarDecimal(b *testing.B) {
	const text = `{"type":"record","name":"R","fields":[{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":18,"scale":2}}]}`
	const n, run = 1 << 16, 4096
	s, err := schema.Parse(text)
	if err != nil {
		b.Fatal(err)
	}
	l, err := layout.New(s, nil)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	aw, err := shred.NewAvroWriter(&buf, text, nil)
	if err != nil {
		b.Fatal(err)
	}
	recs := make([]any, n)
	for i := range recs {
		recs[i] = map[string]any{"d": big.NewRat(int64(i*7919%40000-20000), 100)}
		if err := aw.Write(recs[i]); err != nil {
			b.Fatal(err)
		}
	}
	if err := aw.Close(); err != nil {
		b.Fatal(err)
	}
	p, err := predicate.Compile("d > 123.45", s, l)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("columnar", func(b *testing.B) {
		rd, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
		if err != nil {
			b.Fatal(err)
		}
		c := p.Columnar()
		if c == nil {
			b.Fatal("not evaluated column by column")
		}
		out := make([]bool, run)
		b.ReportAllocs()
		for b.Loop() {
			cr, err := rd.Values(c.Columns()[0])
			if err != nil {
				b.Fatal(err)
			}
			crs := []*format.ColumnReader{cr}
			for at := 0; at < n; at += run {
				if err := c.Eval(crs, run, out); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("records", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, rec := range recs {
				if _, err := p.Match(rec); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
