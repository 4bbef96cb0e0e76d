package predicate_test

import (
	"bytes"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/internal/testing/predrand"
	"github.com/trevni-go/trevni/predicate"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/shred"
)

// sameAsRecords evaluates p column by column (c) over the file rd of the
// records recs, in runs of random lengths, and compares each row's truth
// with p.Match on its record.
func sameAsRecords(rd *format.Reader, p *predicate.Predicate, c *predicate.Columnar, recs []any, r *rand.Rand) error {
	var crs []*format.ColumnReader
	for _, col := range c.Columns() {
		cr, err := rd.Values(col)
		if err != nil {
			return err
		}
		crs = append(crs, cr)
	}
	n := len(recs)
	got := make([]bool, n)
	for at := 0; at < n; {
		k := min(n-at, 1+r.IntN(64))
		if err := c.Eval(crs, k, got[at:at+k]); err != nil {
			return err
		}
		at += k
	}
	for i, rec := range recs {
		want, err := p.Match(rec)
		if err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
		if got[i] != want {
			return fmt.Errorf("record %d (%v): columnar %v, records %v", i, rec, got[i], want)
		}
	}
	return nil
}

// Columnar, where it applies, finds the rows that the record-path
// evaluation (Predicate.Match on each record) finds, over random schemas
// (decimals as bytes and fixed among them, nullable or not), random
// records shredded into a Trevni file, and random expressions of the
// --where grammar, read in runs of random lengths.
func TestColumnarAsRecords(t *testing.T) {
	seeds := 160
	if testing.Short() {
		seeds = 40
	}
	var exprs, applied, decimals, arrays int
	for seed := range uint64(seeds) {
		g := avrorand.New(seed, avrorand.Options{MaxDepth: 2, MaxFields: 6, MaxBranches: 3, MaxLen: 3})
		text := g.Schema()
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		l, err := layout.New(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(seed, 38))
		n := 1 + r.IntN(300)
		recs := make([]any, n)
		for i := range recs {
			recs[i] = g.Value(s)
		}
		var buf bytes.Buffer
		aw, err := shred.NewAvroWriter(&buf, text, &shred.Options{WriterOptions: format.WriterOptions{BlockSize: 1 + r.IntN(2048)}})
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range recs {
			if err := aw.Write(rec); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
		}
		if err := aw.Close(); err != nil {
			t.Fatal(err)
		}
		rd, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
		if err != nil {
			t.Fatal(err)
		}
		var decimalFields, arrayFields []string
		if s.Kind == schema.Record {
			for _, f := range s.Fields {
				if f.Type.Kind == schema.Array {
					arrayFields = append(arrayFields, f.Name)
				}
				ft := f.Type
				if ft.Kind == schema.Union && len(ft.Branches) == 2 {
					ft = ft.Branches[1]
					if f.Type.Branches[1].Kind == schema.Null {
						ft = f.Type.Branches[0]
					}
				}
				if ft.Logical == schema.LogicalDecimal {
					decimalFields = append(decimalFields, f.Name)
				}
			}
		}
		gen := predrand.New(r, s, recs)
		if len(gen.Paths()) == 0 {
			continue
		}
		gen.Check = func(e string) error {
			_, err := predicate.Compile(e, s, l)
			return err
		}
		for range 25 {
			e := gen.Expr(1 + r.IntN(3))
			p, err := predicate.Compile(e, s, l)
			if err != nil {
				continue
			}
			exprs++
			c := p.Columnar()
			if c == nil {
				continue
			}
			applied++
			for _, f := range p.Fields() {
				if slices.Contains(decimalFields, f) {
					decimals++
					break
				}
			}
			for _, f := range p.Fields() {
				if slices.Contains(arrayFields, f) {
					arrays++
					break
				}
			}
			if err := sameAsRecords(rd, p, c, recs, r); err != nil {
				t.Fatalf("seed %d, %s (%s): %v", seed, e, text, err)
			}
		}
	}
	t.Logf("%d expressions, %d evaluated column by column, %d of them on a decimal field, %d on an array", exprs, applied, decimals, arrays)
	if applied < exprs/10 || decimals < 10 || arrays < 10 {
		t.Fatalf("only %d of %d expressions evaluated column by column, %d on a decimal, %d on an array", applied, exprs, decimals, arrays)
	}
}

// Decimals (bytes and fixed, nullable) compared with literals on and
// between their steps (finer than their scale, negative, zero) by every
// ordering operator and IN: column by column as record by record.
func TestColumnarDecimals(t *testing.T) {
	const text = `{"type":"record","name":"R","fields":[
		{"name":"b","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
		{"name":"f","type":["null",{"type":"fixed","name":"F","size":5,"logicalType":"decimal","precision":9,"scale":3}]}]}`
	s, err := schema.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	l, err := layout.New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	aw, err := shred.NewAvroWriter(&buf, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	var recs []any
	for i, v := range []int64{-100, -1, 0, 1, 12345, 12346, -12345, 99999} {
		var f any
		if i%3 != 2 {
			f = map[string]any{"F": big.NewRat(v*7, 1000)}
		}
		rec := map[string]any{"b": big.NewRat(v, 100), "f": f}
		if err := aw.Write(rec); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(38, 4))
	for _, field := range []string{"b", "f"} {
		for _, op := range []string{"=", "!=", "<", "<=", ">", ">="} {
			for _, lit := range []string{"123.45", "123.455", "123.449", "-0.005", "0", "-1", "-1.001", "0.007", "0.0075", "86.415", "1e9"} {
				e := fmt.Sprintf("%s %s %s", field, op, lit)
				p, err := predicate.Compile(e, s, l)
				if err != nil {
					t.Fatalf("%s: %v", e, err)
				}
				c := p.Columnar()
				if c == nil {
					t.Fatalf("%s: not evaluated column by column", e)
				}
				if err := sameAsRecords(rd, p, c, recs, r); err != nil {
					t.Errorf("%s: %v", e, err)
				}
			}
		}
		e := field + " IN (123.45, -0.01, 0.007)"
		p, err := predicate.Compile(e, s, l)
		if err != nil {
			t.Fatal(err)
		}
		if c := p.Columnar(); c == nil {
			t.Errorf("%s: not evaluated column by column", e)
		} else if err := sameAsRecords(rd, p, c, recs, r); err != nil {
			t.Errorf("%s: %v", e, err)
		}
	}
}
