package predicate

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/trevni-go/trevni/format/stats"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/internal/testing/predrand"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/typemap"
)

// shredStats feeds a record's values to one Accumulator per column, as a
// Trevni writer would while writing the record (the layout's order and
// roles; a union writes a length of 1 or 0 to each branch's column).
func shredStats(s *schema.Schema, n *layout.Node, v any, accs []*stats.Accumulator) error {
	switch s.Kind {
	case schema.Record:
		m := v.(map[string]any)
		for i, f := range s.Fields {
			if err := shredStats(f.Type, n.Fields[i], m[f.Name], accs); err != nil {
				return err
			}
		}
	case schema.Array:
		a := v.([]any)
		accs[n.Col].AddLength(len(a))
		for _, e := range a {
			if err := shredStats(s.Items, n.Items, e, accs); err != nil {
				return err
			}
		}
	case schema.Map:
		m := v.(map[string]any)
		accs[n.Col].AddLength(len(m))
		for k, e := range m {
			accs[n.KeyCol].AddString(k)
			if err := shredStats(s.Values, n.Items, e, accs); err != nil {
				return err
			}
		}
	case schema.Union:
		k, inner, err := typemap.ResolveUnion(s, v)
		if err != nil {
			return err
		}
		for i, bc := range n.BranchCols {
			if bc < 0 {
				continue
			}
			if i != k {
				accs[bc].AddLength(0)
				continue
			}
			accs[bc].AddLength(1)
			if err := shredStats(s.Branches[i], n.Branches[i], inner, accs); err != nil {
				return err
			}
		}
	default:
		st, err := typemap.ToStored(s, v)
		if err != nil {
			return err
		}
		a := accs[n.Col]
		switch st := st.(type) {
		case nil:
			a.AddNull()
		case bool:
			a.AddBool(st)
		case int32:
			a.AddInt(st)
		case int64:
			a.AddLong(st)
		case float32:
			a.AddFloat(st)
		case float64:
			a.AddDouble(st)
		case string:
			a.AddString(st)
		case []byte:
			a.AddBytes(st)
		default:
			return fmt.Errorf("stored %T", st)
		}
	}
	return nil
}

// columnBlocks is one column's statistics as a reader would see them.
type columnBlocks struct {
	first  []int64 // first row of each block
	blocks []stats.Block
}

// cover returns the statistics of the blocks covering rows [a, b), merged.
func (cb *columnBlocks) cover(t stats.Type, a, b int64) (*stats.Block, int64, bool) {
	var m stats.Block
	first := int64(-1)
	for i, f := range cb.first {
		end := f + cb.blocks[i].Rows
		if end <= a || f >= b {
			continue
		}
		if first < 0 {
			first = f
		}
		m = stats.Merge(t, m, cb.blocks[i])
	}
	if first < 0 {
		return nil, 0, false
	}
	return &m, first, true
}

// nestedMapSchemas are schemas whose map lookups random schemas of the
// property's size seldom reach: maps of maps (m['a']['b']), maps inside
// records inside maps (m['k'].r.n['j']), maps in arrays.
var nestedMapSchemas = []string{
	`{"type":"record","name":"N1","fields":[
	 {"name":"mm","type":{"type":"map","values":["null",{"type":"map","values":"long"}]}},
	 {"name":"mmm","type":{"type":"map","values":{"type":"map","values":{"type":"map","values":"string"}}}}]}`,
	`{"type":"record","name":"N2","fields":[
	 {"name":"m","type":{"type":"map","values":{"type":"record","name":"V","fields":[
	   {"name":"x","type":"double"},
	   {"name":"r","type":["null",{"type":"record","name":"W","fields":[{"name":"n","type":{"type":"map","values":"int"}}]}]}]}}},
	 {"name":"am","type":{"type":"array","items":{"type":"map","values":"boolean"}}}]}`,
}

// The property: over random schemas, data and predicates, with statistics
// gathered over blocks of random sizes (different for every column, as in
// a Trevni file), sometimes with short bounds and sometimes missing, a row
// range is never judged unable to match when one of its records matches.
// It also checks that pruning happens, so that the property is not met by
// never pruning.
func TestPruningNeverDropsAMatch(t *testing.T) {
	seeds := 300
	if testing.Short() {
		seeds = 60
	}
	var ranges, pruned, matchedRanges, rowsSkipped, rowsTotal, proven, provenRows int
	for seed := uint64(0); seed < uint64(seeds); seed++ {
		g := avrorand.New(seed, avrorand.Options{MaxDepth: 3, MaxFields: 5, MaxBranches: 4, MaxLen: 4})
		text := g.Schema()
		if seed%6 == 5 {
			text = nestedMapSchemas[int(seed/6)%len(nestedMapSchemas)]
		}
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		l, err := layout.New(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(seed, 99))
		nrec := 1 + r.IntN(60)
		var recs []any
		for i := 0; i < nrec; i++ {
			recs = append(recs, g.Value(s))
		}
		exprs := predrand.New(r, s, recs)
		if len(exprs.Paths()) == 0 {
			continue
		}
		exprs.Check = func(e string) error {
			_, err := Compile(e, s, l)
			return err
		}
		// Statistics per column, blocks cut at random row counts.
		maxLen := stats.DefaultMaxLen
		if r.IntN(2) == 0 {
			maxLen = 1 + r.IntN(4)
		}
		accs := make([]*stats.Accumulator, len(l.Columns))
		sizes := make([]int, len(l.Columns))
		cols := make([]columnBlocks, len(l.Columns))
		for i, col := range l.Columns {
			accs[i], err = stats.NewAccumulator(stats.Type(col.Type), col.Array, &stats.Options{MaxLen: maxLen})
			if err != nil {
				t.Fatal(err)
			}
			sizes[i] = 1 + r.IntN(nrec)
			if r.IntN(4) == 0 {
				sizes[i] = 1 + r.IntN(3) // blocks of one to three rows, as small as a record's edge cases
			}
		}
		for r, rec := range recs {
			if err := shredStats(s, l.Root, rec, accs); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			for i := range accs {
				if (r+1)%sizes[i] == 0 || r+1 == nrec {
					rows := int64(r + 1 - (accs[i].Blocks() * sizes[i]))
					accs[i].EndBlock(rows)
				}
			}
		}
		missing := make([]bool, len(l.Columns))
		for i := range accs {
			dec, err := stats.Decode(accs[i].Encode())
			if err != nil {
				t.Fatalf("seed %d column %d: %v", seed, i, err)
			}
			var row int64
			for _, b := range dec.Blocks {
				cols[i].first = append(cols[i].first, row)
				cols[i].blocks = append(cols[i].blocks, b)
				row += b.Rows
			}
			if row != int64(nrec) {
				t.Fatalf("seed %d column %d: blocks cover %d rows of %d", seed, i, row, nrec)
			}
			missing[i] = r.IntN(10) == 0
		}
		var spanA, spanB int64 // the range get covers
		for np := 0; np < 20; np++ {
			src := exprs.Expr(3)
			p, err := Compile(src, s, l)
			if err != nil {
				t.Fatalf("seed %d: %s: %v", seed, src, err)
			}
			match := make([]bool, nrec)
			for r, rec := range recs {
				if match[r], err = p.Match(rec); err != nil {
					t.Fatalf("seed %d: %s: record %d: %v", seed, src, r, err)
				}
			}
			// Ranges: every single row, every block of every column the
			// predicate reads, and the whole file.
			type span struct{ a, b int64 }
			spans := []span{{0, int64(nrec)}}
			for r := 0; r < nrec; r++ {
				spans = append(spans, span{int64(r), int64(r + 1)})
			}
			for _, col := range p.Columns() {
				for i, f := range cols[col].first {
					spans = append(spans, span{f, f + cols[col].blocks[i].Rows})
				}
			}
			for _, useMissing := range []bool{false, true} {
				rs := p.Runs(int64(nrec), func(col int) *ColumnStats {
					if useMissing && missing[col] {
						return nil
					}
					return &ColumnStats{FirstRows: cols[col].first, Blocks: cols[col].blocks}
				})
				end := int64(0)
				in := make([]bool, nrec)
				for _, r := range rs {
					if r.First < end || r.Rows <= 0 || r.First+r.Rows > int64(nrec) {
						t.Fatalf("seed %d: %s: bad ranges %v", seed, src, rs)
					}
					end = r.First + r.Rows
					for x := r.First; x < end; x++ {
						in[x] = true
						if r.All && !match[x] {
							t.Fatalf("seed %d: %s\nschema %s\nrow %d does not match but Ranges %v prove it does (missing stats: %v)",
								seed, src, text, x, rs, useMissing)
						}
					}
					if r.All {
						provenRows += int(r.Rows)
					}
				}
				for r := range match {
					if match[r] && !in[r] {
						t.Fatalf("seed %d: %s\nschema %s\nrow %d matches but Ranges %v leave it out", seed, src, text, r, rs)
					}
					if !in[r] {
						rowsSkipped++
					}
					rowsTotal++
				}
				get := func(col int) (*stats.Block, int64, bool) {
					if useMissing && missing[col] {
						return nil, 0, false
					}
					return cols[col].cover(stats.Type(l.Columns[col].Type), spanA, spanB)
				}
				for _, sp := range spans {
					spanA, spanB = sp.a, sp.b
					any := false
					for r := sp.a; r < sp.b; r++ {
						any = any || match[r]
					}
					ranges++
					if p.AllMatch(sp.a, sp.b-sp.a, get) {
						proven++
						for r := sp.a; r < sp.b; r++ {
							if !match[r] {
								t.Fatalf("seed %d: %s\nschema %s\nrows [%d, %d) were proven to match but row %d does not (missing stats: %v)",
									seed, src, text, sp.a, sp.b, r, useMissing)
							}
						}
					}
					may := p.MayMatch(sp.a, sp.b-sp.a, get)
					if any {
						matchedRanges++
					}
					if !may {
						pruned++
						if any {
							t.Fatalf("seed %d: %s\nschema %s\nrows [%d, %d) include a match but were pruned (missing stats: %v)",
								seed, src, text, sp.a, sp.b, useMissing)
						}
					}
				}
			}
		}
	}
	t.Logf("%d ranges, %d with a match, %d pruned, %d proven to match; Ranges skipped %d rows of %d and proved %d",
		ranges, matchedRanges, pruned, proven, rowsSkipped, rowsTotal, provenRows)
	if pruned < ranges/10 {
		t.Errorf("only %d of %d ranges pruned: statistics are not used", pruned, ranges)
	}
	if proven < matchedRanges/10 || provenRows == 0 {
		t.Errorf("only %d of %d ranges with a match proven to match, %d rows of Ranges: the proof is not used", proven, matchedRanges, provenRows)
	}
}
