package predicate_test

import (
	"bytes"
	"fmt"
	"math/big"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/predicate"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/shred"
)

// BenchmarkColumnar evaluates a filter over 65,536 records column by
// column (runs of 4,096 rows) and, for comparison, record by record
// (Predicate.Match on each record): `d > 123.45` on a decimal(18,2) stored
// as bytes, and `tags = 'tag7'` on an array of one to four strings.
func BenchmarkColumnar(b *testing.B) {
	const n = 1 << 16
	b.Run("decimal", func(b *testing.B) {
		benchColumnar(b, `{"type":"record","name":"R","fields":[{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":18,"scale":2}}]}`,
			"d > 123.45", n, func(i int) any {
				return map[string]any{"d": big.NewRat(int64(i*7919%40000-20000), 100)}
			})
	})
	b.Run("array", func(b *testing.B) {
		benchColumnar(b, `{"type":"record","name":"R","fields":[{"name":"tags","type":{"type":"array","items":"string"}}]}`,
			"tags = 'tag7'", n, func(i int) any {
				tags := make([]any, 1+i%4)
				for j := range tags {
					tags[j] = fmt.Sprintf("tag%d", (i+j*13)%50)
				}
				return map[string]any{"tags": tags}
			})
	})
}

func benchColumnar(b *testing.B, text, where string, n int, rec func(i int) any) {
	const run = 4096
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
		recs[i] = rec(i)
		if err := aw.Write(recs[i]); err != nil {
			b.Fatal(err)
		}
	}
	if err := aw.Close(); err != nil {
		b.Fatal(err)
	}
	p, err := predicate.Compile(where, s, l)
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
