package levels_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/trevni-go/trevni/assemble/levels"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/shred"
	"github.com/trevni-go/trevni/typemap"
)

// level is one level of a leaf and its value, if it has one.
type level struct {
	def, rep int16
	val      any
}

// planner makes the leaves of a layout the way the Parquet mapping does
// (a ["null", T] union optional, a union of several branches a group of
// optional branches, arrays and maps repeated, nulls and records of no
// fields a leaf of nulls), with no optional node always there.
type planner struct{ leaves []levels.Leaf }

func (p *planner) entry(n *layout.Node, steps []levels.Step, rep int16) {
	switch n.Kind {
	case schema.Union:
		var cols []int
		hasNull := false
		for i, b := range n.Branches {
			if b == nil {
				hasNull = true
				continue
			}
			cols = append(cols, n.BranchCols[i])
		}
		if len(n.Branches) == 2 && hasNull && len(cols) == 1 {
			for i, b := range n.Branches {
				if b != nil {
					p.inner(b, append(steps, levels.Step{Kind: levels.Optional, Col: n.BranchCols[i]}), rep)
				}
			}
			return
		}
		k := 0
		for _, b := range n.Branches {
			if b != nil {
				p.inner(b, append(steps[:len(steps):len(steps)], levels.Step{Kind: levels.Choice, Cols: cols, Which: k, Nullable: hasNull}), rep)
				k++
			}
		}
	case schema.Null:
		p.add(levels.Leaf{Steps: steps, Col: -1, Null: true})
	default:
		p.inner(n, steps, rep)
	}
}

func (p *planner) inner(n *layout.Node, steps []levels.Step, rep int16) {
	switch n.Kind {
	case schema.Record:
		if len(n.Fields) == 0 {
			p.add(levels.Leaf{Steps: steps, Col: -1, Null: true})
		}
		for _, f := range n.Fields {
			p.entry(f, steps, rep)
		}
	case schema.Array, schema.Map:
		steps = append(steps, levels.Step{Kind: levels.Repeated, Col: n.Col, Rep: rep + 1})
		if n.Kind == schema.Map {
			p.add(levels.Leaf{Steps: steps, Col: n.KeyCol, Type: format.String})
		}
		p.entry(n.Items, steps, rep+1)
	default:
		p.add(levels.Leaf{Steps: steps, Col: n.Col, Type: n.Type})
	}
}

func (p *planner) add(l levels.Leaf) {
	l.Steps = slices.Clone(l.Steps)
	p.leaves = append(p.leaves, l)
}

// striper computes the levels of values by brute force, from the
// records, leaf by leaf in the planner's order.
type striper struct {
	t    *testing.T
	out  [][]level
	leaf int
}

// count returns the leaves of a value of s at an entry.
func count(s *schema.Schema) int {
	switch s.Kind {
	case schema.Union:
		n := 0
		for _, b := range s.Branches {
			if b.Kind != schema.Null {
				n += countInner(b)
			}
		}
		return n
	}
	return countInner(s)
}

func countInner(s *schema.Schema) int {
	switch s.Kind {
	case schema.Record:
		if len(s.Fields) == 0 {
			return 1
		}
		n := 0
		for _, f := range s.Fields {
			n += count(f.Type)
		}
		return n
	case schema.Array:
		return count(s.Items)
	case schema.Map:
		return 1 + count(s.Values)
	}
	return 1
}

// absent gives the next k leaves one level each, of no value.
func (st *striper) absent(k int, def, rep int16) {
	for range k {
		st.out[st.leaf] = append(st.out[st.leaf], level{def, rep, nil})
		st.leaf++
	}
}

func (st *striper) entry(s *schema.Schema, v any, def, rep, depth int16) {
	if s.Kind != schema.Union {
		st.inner(s, v, def, rep, depth)
		return
	}
	k, inner, err := typemap.ResolveUnion(s, v)
	if err != nil {
		st.t.Fatal(err)
	}
	hasNull, nonNull := false, 0
	for _, b := range s.Branches {
		if b.Kind == schema.Null {
			hasNull = true
		} else {
			nonNull++
		}
	}
	if len(s.Branches) == 2 && hasNull && nonNull == 1 {
		for _, b := range s.Branches {
			if b.Kind == schema.Null {
				continue
			}
			if s.Branches[k].Kind == schema.Null {
				st.absent(countInner(b), def, rep)
			} else {
				st.inner(b, inner, def+1, rep, depth)
			}
		}
		return
	}
	if hasNull {
		if s.Branches[k].Kind == schema.Null {
			st.absent(count(s), def, rep)
			return
		}
		def++
	}
	for i, b := range s.Branches {
		switch {
		case b.Kind == schema.Null:
		case i == k:
			st.inner(b, inner, def+1, rep, depth)
		default:
			st.absent(countInner(b), def, rep)
		}
	}
}

func (st *striper) inner(s *schema.Schema, v any, def, rep, depth int16) {
	switch s.Kind {
	case schema.Null:
		st.absent(1, def, rep)
	case schema.Record:
		if len(s.Fields) == 0 {
			st.absent(1, def, rep)
			return
		}
		m := v.(map[string]any)
		for _, f := range s.Fields {
			st.entry(f.Type, m[f.Name], def, rep, depth)
		}
	case schema.Array:
		a := v.([]any)
		if len(a) == 0 {
			st.absent(count(s.Items), def, rep)
			return
		}
		first := st.leaf
		mine := depth + 1
		for i, e := range a {
			st.leaf = first
			r := mine
			if i == 0 {
				r = rep
			}
			st.entry(s.Items, e, def+1, r, depth+1)
		}
	case schema.Map:
		m := v.(map[string]any)
		if len(m) == 0 {
			st.absent(1+count(s.Values), def, rep)
			return
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		first := st.leaf
		mine := depth + 1
		for i, k := range keys {
			st.leaf = first
			r := mine
			if i == 0 {
				r = rep
			}
			st.out[st.leaf] = append(st.out[st.leaf], level{def + 1, r, k})
			st.leaf++
			st.entry(s.Values, m[k], def+1, r, depth+1)
		}
	default:
		sv, err := typemap.ToStored(s, v)
		if err != nil {
			st.t.Fatal(err)
		}
		st.out[st.leaf] = append(st.out[st.leaf], level{def, rep, sv})
		st.leaf++
	}
}

// stored returns the value of a run at index j as the stored value.
func stored(l *levels.Leaf, r *levels.Run, j int) any {
	switch {
	case l.ByteArray():
		start := 0
		if j > 0 {
			start = r.Ends[j-1]
		}
		b := bytes.Clone(r.Data[start:r.Ends[j]])
		if l.Type == format.String {
			return string(b)
		}
		return b
	case l.Type == format.Boolean:
		return r.Bools[j]
	case l.Type == format.Int:
		return r.I32[j]
	case l.Type == format.Long:
		return r.I64[j]
	case l.Type == format.Float:
		return r.F32[j]
	}
	return r.F64[j]
}

// The property: over random schemas and records, each leaf's levels and
// values read from the Trevni columns are those striped from the records
// by brute force, for all the rows and for segments of rows kept in part.
func TestLevelsAgainstRecords(t *testing.T) {
	ctx := context.Background()
	tried := 0
	for seed := range uint64(150) {
		g := avrorand.New(seed, avrorand.Options{MaxDepth: 3, MaxLen: 3})
		text := g.Schema()
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		lay, err := layout.New(s, nil)
		if err != nil {
			continue
		}
		var buf bytes.Buffer
		w, err := shred.NewAvroWriter(&buf, text, &shred.Options{WriterOptions: format.WriterOptions{BlockSize: 64}})
		if err != nil {
			t.Fatal(err)
		}
		n := 1 + int(seed%40)
		recs := make([]any, n)
		for i := range recs {
			recs[i] = g.Value(s)
			if err := w.Write(recs[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		rd, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
		if err != nil {
			t.Fatal(err)
		}
		p := &planner{}
		if s.Kind == schema.Record {
			p.inner(lay.Root, nil, 0)
		} else {
			p.entry(lay.Root, nil, 0)
		}
		// Rows kept: all, or a segment of every third row from row 1.
		keepAll := seed%2 == 0
		var segs []levels.Segment
		var rows []int
		if keepAll {
			segs = []levels.Segment{{First: 0, N: int64(n)}}
			for i := range n {
				rows = append(rows, i)
			}
		} else if n > 1 {
			seg := levels.Segment{First: 1, N: int64(n - 1)}
			for i := 1; i < n; i++ {
				seg.Keep = append(seg.Keep, (i-1)%3 == 0)
				if (i-1)%3 == 0 {
					rows = append(rows, i)
				}
			}
			segs = []levels.Segment{seg}
		}
		want := make([][]level, len(p.leaves))
		st := &striper{t: t, out: want}
		for _, i := range rows {
			st.leaf = 0
			st.entry(s, recs[i], 0, 0, 0)
			if st.leaf != len(p.leaves) {
				t.Fatalf("seed %d: %d leaves striped, %d planned\n%s", seed, st.leaf, len(p.leaves), text)
			}
		}
		for li := range p.leaves {
			l := &p.leaves[li]
			lr, err := levels.NewReader(l, func(c int) (*format.ColumnReader, error) { return rd.Values(c) })
			if err != nil {
				t.Fatalf("seed %d leaf %d: %v", seed, li, err)
			}
			var got []level
			err = lr.Read(ctx, segs, func(r *levels.Run) error {
				j := 0
				for i, d := range r.Defs {
					lv := level{def: d, rep: r.Reps[i]}
					if d == l.MaxDef() && !l.Null {
						lv.val = stored(l, r, j)
						j++
					}
					got = append(got, lv)
				}
				return nil
			})
			lr.Close()
			if err != nil {
				t.Fatalf("seed %d leaf %d: %v\n%s", seed, li, err, text)
			}
			if fmt.Sprint(got) != fmt.Sprint(want[li]) {
				t.Fatalf("seed %d leaf %d (%+v):\n got %v\nwant %v\n%s", seed, li, *l, got, want[li], text)
			}
		}
		tried++
	}
	if tried < 100 {
		t.Fatalf("only %d schemas laid out", tried)
	}
}
