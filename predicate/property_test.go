package predicate

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni/format/stats"
	"github.com/trevni-go/trevni/internal/avrorand"
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

// terminal is a path of a schema and what it ends at.
type terminal struct {
	path   []string
	simple bool
}

// terminals lists the field paths of s (through records; arrays, maps and
// unions passed through), each once.
func terminals(s *schema.Schema) []terminal {
	var out []terminal
	seen := map[string]bool{}
	var walk func(s *schema.Schema, path []string, depth int)
	walk = func(s *schema.Schema, path []string, depth int) {
		if depth > 40 {
			return
		}
		switch s.Kind {
		case schema.Union:
			for _, b := range s.Branches {
				walk(b, path, depth+1)
			}
			return
		case schema.Array:
			walk(s.Items, path, depth+1)
			return
		case schema.Map:
			walk(s.Values, path, depth+1)
			return
		case schema.Record:
			for _, f := range s.Fields {
				walk(f.Type, append(append([]string(nil), path...), f.Name), depth+1)
			}
		}
		if len(path) == 0 {
			return
		}
		key := strings.Join(path, "\x00")
		if !seen[key] {
			seen[key] = true
			out = append(out, terminal{path: path, simple: s.Kind != schema.Record})
		}
	}
	walk(s, nil, 0)
	return out
}

// propCase holds one random schema, its records and their statistics.
type propCase struct {
	s     *schema.Schema
	l     *layout.Layout
	recs  []any
	terms []terminal
	r     *rand.Rand
}

// quotePath writes a path with every segment quoted, or bare where the
// name allows.
func (c *propCase) quotePath(p []string) string {
	parts := make([]string, len(p))
	for i, s := range p {
		if c.r.IntN(2) == 0 && !isReserved(s) {
			parts[i] = s
		} else {
			parts[i] = `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
		}
	}
	return strings.Join(parts, ".")
}

// literalFor writes a literal for a value of the path's leaf: a value
// that occurs in the data, often, or one near it.
func (c *propCase) literalFor(lf *leaf, v any) string {
	st, err := typemap.ToStored(lf.schema, v)
	if err != nil {
		return "0"
	}
	if lf.decimal {
		sc, err := toScalar(lf, v)
		if err != nil {
			return "0"
		}
		r := sc.r
		if c.r.IntN(3) == 0 {
			r = new(big.Rat).Add(r, big.NewRat(int64(c.r.IntN(3)-1), 100))
		}
		return r.FloatString(lf.schema.Scale + 2)
	}
	nudge := c.r.IntN(3) == 0
	switch st := st.(type) {
	case bool:
		return strings.ToUpper(strconv.FormatBool(st))
	case int32:
		if lf.schema.Kind == schema.Enum {
			k := int(st)
			if nudge {
				k = c.r.IntN(len(lf.schema.Symbols))
			}
			return "'" + lf.schema.Symbols[k] + "'"
		}
		if lf.schema.Logical == schema.LogicalDate && c.r.IntN(2) == 0 && !nudge {
			return "'" + time.Unix(int64(st)*86400, 0).UTC().Format("2006-01-02") + "'"
		}
		return c.intLit(int64(st), nudge)
	case int64:
		if lf.schema.Logical == schema.LogicalTimestampMillis && c.r.IntN(2) == 0 && !nudge {
			return "'" + time.UnixMilli(st).UTC().Format(time.RFC3339Nano) + "'"
		}
		return c.intLit(st, nudge)
	case float32:
		return c.floatLit(float64(st), nudge)
	case float64:
		return c.floatLit(st, nudge)
	case string:
		if nudge && len(st) > 0 {
			st = st[:c.r.IntN(len(st))]
		}
		return "'" + strings.ReplaceAll(st, "'", "''") + "'"
	case []byte:
		if nudge && len(st) > 0 {
			st = st[:c.r.IntN(len(st))]
		}
		if c.r.IntN(2) == 0 {
			var b strings.Builder
			b.WriteByte('\'')
			for _, x := range st {
				if x == '\'' {
					b.WriteByte('\'')
				}
				b.WriteRune(rune(x))
			}
			b.WriteByte('\'')
			return b.String()
		}
		return "X'" + hex.EncodeToString(st) + "'"
	}
	return "0"
}

func (c *propCase) intLit(v int64, nudge bool) string {
	if nudge {
		switch c.r.IntN(3) {
		case 0:
			if v < math.MaxInt64 {
				v++
			}
		case 1:
			return strconv.FormatFloat(float64(v)+0.5, 'g', -1, 64)
		}
	}
	return strconv.FormatInt(v, 10)
}

func (c *propCase) floatLit(f float64, nudge bool) string {
	if nudge {
		switch c.r.IntN(4) {
		case 0:
			return "NaN"
		case 1:
			return "-Infinity"
		case 2:
			f = math.Nextafter(f, math.Inf(1))
		}
	}
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// comparison makes a random comparison or null test that binds.
func (c *propCase) comparison() string {
	for try := 0; try < 20; try++ {
		term := c.terms[c.r.IntN(len(c.terms))]
		path := c.quotePath(term.path)
		if !term.simple || c.r.IntN(6) == 0 {
			if c.r.IntN(2) == 0 {
				return path + " IS NULL"
			}
			return path + " IS NOT NULL"
		}
		p, err := Compile(path+" IS NULL", c.s, c.l)
		if err != nil {
			continue
		}
		t := p.root.(*nullNode).t
		// Sample a value of the path from the data.
		var vals []struct {
			k int
			v any
		}
		for _, rec := range c.recs {
			_ = t.visit(t.walk, rec, func(k int, v any) error {
				if k >= 0 && k < len(t.leaves) {
					vals = append(vals, struct {
						k int
						v any
					}{k, v})
				}
				return nil
			})
		}
		if len(vals) == 0 {
			continue
		}
		var lits []string
		for n := 1 + c.r.IntN(3); n > 0; n-- {
			x := vals[c.r.IntN(len(vals))]
			lits = append(lits, c.literalFor(&t.leaves[x.k], x.v))
		}
		var e string
		switch op := c.r.IntN(9); op {
		case 6:
			e = path + " IN (" + strings.Join(lits, ", ") + ")"
		case 7:
			e = path + " NOT IN (" + strings.Join(lits, ", ") + ")"
		default:
			if op == 8 {
				op = 0
			}
			e = path + " " + []string{"=", "!=", "<", "<=", ">", ">="}[op] + " " + lits[0]
		}
		if _, err := Compile(e, c.s, c.l); err == nil {
			return e
		}
	}
	return c.quotePath(c.terms[0].path) + " IS NOT NULL"
}

func (c *propCase) expr(depth int) string {
	if depth <= 0 || c.r.IntN(3) == 0 {
		return c.comparison()
	}
	switch c.r.IntN(4) {
	case 0:
		return "NOT (" + c.expr(depth-1) + ")"
	case 1:
		return "(" + c.expr(depth-1) + ") OR (" + c.expr(depth-1) + ")"
	}
	return "(" + c.expr(depth-1) + ") AND (" + c.expr(depth-1) + ")"
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
	var ranges, pruned, matchedRanges, rowsSkipped, rowsTotal int
	for seed := uint64(0); seed < uint64(seeds); seed++ {
		g := avrorand.New(seed, avrorand.Options{MaxDepth: 3, MaxFields: 5, MaxBranches: 4, MaxLen: 4})
		text := g.Schema()
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		l, err := layout.New(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := &propCase{s: s, l: l, r: rand.New(rand.NewPCG(seed, 99)), terms: terminals(s)}
		if len(c.terms) == 0 {
			continue
		}
		nrec := 1 + c.r.IntN(60)
		for i := 0; i < nrec; i++ {
			c.recs = append(c.recs, g.Value(s))
		}
		// Statistics per column, blocks cut at random row counts.
		maxLen := stats.DefaultMaxLen
		if c.r.IntN(2) == 0 {
			maxLen = 1 + c.r.IntN(4)
		}
		accs := make([]*stats.Accumulator, len(l.Columns))
		sizes := make([]int, len(l.Columns))
		cols := make([]columnBlocks, len(l.Columns))
		for i, col := range l.Columns {
			accs[i], err = stats.NewAccumulator(stats.Type(col.Type), col.Array, &stats.Options{MaxLen: maxLen})
			if err != nil {
				t.Fatal(err)
			}
			sizes[i] = 1 + c.r.IntN(nrec)
		}
		for r, rec := range c.recs {
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
			missing[i] = c.r.IntN(10) == 0
		}
		var spanA, spanB int64 // the range get covers
		for np := 0; np < 20; np++ {
			src := c.expr(3)
			p, err := Compile(src, s, l)
			if err != nil {
				t.Fatalf("seed %d: %s: %v", seed, src, err)
			}
			match := make([]bool, nrec)
			for r, rec := range c.recs {
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
				rs := p.Ranges(int64(nrec), func(col int) *ColumnStats {
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
	t.Logf("%d ranges, %d with a match, %d pruned; Ranges skipped %d rows of %d", ranges, matchedRanges, pruned, rowsSkipped, rowsTotal)
	if pruned < ranges/10 {
		t.Errorf("only %d of %d ranges pruned: statistics are not used", pruned, ranges)
	}
}
