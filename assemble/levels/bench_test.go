package levels_test

import (
	"bytes"
	"context"
	"strconv"
	"testing"

	"github.com/trevni-go/trevni/assemble/levels"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/shred"
)

// BenchmarkReader reads every leaf of 100,000 records whose schema has
// each kind of step: a flat long, a ["null", string], an array of
// records, a map, and a union of several branches (the general walk),
// with the rows all kept and with every other row dropped.
func BenchmarkReader(b *testing.B) {
	const rows = 100_000
	text := `{"type":"record","name":"R","fields":[
		{"name":"id","type":"long"},
		{"name":"s","type":["null","string"]},
		{"name":"pts","type":{"type":"array","items":{"type":"record","name":"P","fields":[{"name":"x","type":"float"},{"name":"y","type":"double"}]}}},
		{"name":"m","type":{"type":"map","values":"int"}},
		{"name":"u","type":["null","int","string"]}]}`
	s, err := schema.Parse(text)
	if err != nil {
		b.Fatal(err)
	}
	lay, err := layout.New(s, nil)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := shred.NewAvroWriter(&buf, text, nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range rows {
		var str, u any
		switch i % 3 {
		case 1:
			str, u = map[string]any{"string": "v" + strconv.Itoa(i)}, map[string]any{"int": int32(i)}
		case 2:
			u = map[string]any{"string": "w"}
		}
		pts := make([]any, i%4)
		for j := range pts {
			pts[j] = map[string]any{"x": float32(j), "y": float64(i)}
		}
		rec := map[string]any{"id": int64(i), "s": str, "pts": pts, "m": map[string]any{"k": int32(i)}, "u": u}
		if err := w.Write(rec); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	p := &planner{}
	p.inner(lay.Root, nil, 0)
	half := levels.Segment{First: 0, N: rows, Keep: make([]bool, rows)}
	for i := range half.Keep {
		half.Keep[i] = i%2 == 0
	}
	for _, bc := range []struct {
		name string
		seg  levels.Segment
	}{{"all", levels.Segment{First: 0, N: rows}}, {"half", half}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(buf.Len()))
			for b.Loop() {
				rd, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for i := range p.leaves {
					lr, err := levels.NewReader(&p.leaves[i], rd.Values)
					if err != nil {
						b.Fatal(err)
					}
					if err := lr.Read(context.Background(), []levels.Segment{bc.seg}, func(r *levels.Run) error {
						n += len(r.Defs)
						return nil
					}); err != nil {
						b.Fatal(err)
					}
					lr.Close()
				}
				if n < rows {
					b.Fatal("too few levels")
				}
			}
		})
	}
}
