package predicate

import (
	"math"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format/stats"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

// blockOf gathers the statistics of the given values of column col, as one
// block of rows rows.
func blockOf(t *testing.T, l *layout.Layout, col string, rows int64, add func(a *stats.Accumulator)) (int, stats.Block) {
	t.Helper()
	for _, c := range l.Columns {
		if c.Name == col {
			a, err := stats.NewAccumulator(stats.Type(c.Type), c.Array, nil)
			if err != nil {
				t.Fatal(err)
			}
			add(a)
			a.EndBlock(rows)
			d, err := stats.Decode(a.Encode())
			if err != nil {
				t.Fatal(err)
			}
			return c.Index, d.Blocks[0]
		}
	}
	t.Fatalf("no column %q", col)
	return 0, stats.Block{}
}

// threeRows returns the orders schema and the statistics of one block of
// 3 rows of some of its columns: amount 10, 4500 and NaN; id 5 three
// times; note a long string, null and "abc"; region US, US, ASIA; ship
// present in every row; tags ["b"], ["b", "c"], ["d"].
func threeRows(t *testing.T) (*schema.Schema, *layout.Layout, StatsFunc) {
	s, l := orders(t)
	blocks := map[int]stats.Block{}
	put := func(col string, add func(a *stats.Accumulator)) {
		i, b := blockOf(t, l, col, 3, add)
		blocks[i] = b
	}
	put("amount", func(a *stats.Accumulator) { a.AddDouble(10); a.AddDouble(4500); a.AddDouble(math.NaN()) })
	put("id", func(a *stats.Accumulator) { a.AddLong(5); a.AddLong(5); a.AddLong(5) })
	put("note/string", func(a *stats.Accumulator) { // two rows of three have a note
		a.AddLength(1)
		a.AddString(strings.Repeat("z", 100))
		a.AddLength(0)
		a.AddLength(1)
		a.AddString("abc")
	})
	put("region", func(a *stats.Accumulator) { a.AddInt(1); a.AddInt(1); a.AddInt(2) })
	put("ship/Ship", func(a *stats.Accumulator) { a.AddLength(1); a.AddLength(1); a.AddLength(1) })
	put("tags[]", func(a *stats.Accumulator) {
		a.AddLength(1)
		a.AddString("b")
		a.AddLength(2)
		a.AddString("b")
		a.AddString("c")
		a.AddLength(1)
		a.AddString("d")
	})
	return s, l, func(col int) (*stats.Block, int64, bool) {
		b, ok := blocks[col]
		return &b, 0, ok
	}
}

// Named cases of MayMatch on one block of 3 rows.
func TestMayMatch(t *testing.T) {
	s, l, get := threeRows(t)
	for expr, want := range map[string]bool{
		"amount > 4500":                  false, // the Columna query
		"amount >= 4500":                 true,
		"amount < 10":                    false,
		"amount != 7":                    true, // NaN != 7
		"NOT amount < 5000":              true, // NOT (NaN < 5000)
		"NOT amount <= 4500":             true, // NaN again
		"amount = NaN":                   false,
		"amount != NaN":                  true,
		"id = 5":                         true,
		"id != 5":                        false,
		"NOT id = 5":                     false,
		"id IN (1, 2)":                   false,
		"id NOT IN (5)":                  false,
		"id = 5.0":                       true,
		"id = 4.5":                       false,
		"id > 4.5 AND id < 5.5":          true,
		"id > 5.5 OR id < 4.5":           false,
		"note IS NULL":                   true,
		"note IS NOT NULL":               true,
		"note = 'abd'":                   true,
		"note < 'abc'":                   false,
		"note > 'zzzz'":                  true, // the maximum is a rounded-up prefix
		"note > '{'":                     false,
		"NOT note = 'x'":                 true,
		"region = 'EU'":                  false,
		"region >= 'US'":                 true,
		"ship IS NULL":                   false,
		"ship IS NOT NULL":               true,
		"price = 1":                      true, // decimals are never pruned
		"lines.qty = 1":                  true, // no statistics
		"NOT (id = 5 AND region = 'EU')": true,
		"NOT (id = 5 OR region = 'EU')":  false,
		"amount IS NAN":                  true,
		"amount IS NOT NAN":              true,
		"id = 5 AND amount IS NAN":       true,
		"note STARTS WITH 'ab'":          true,
		"note STARTS WITH 'abd'":         true, // within the bounds
		"note STARTS WITH 'zzzz'":        true, // the maximum is a rounded-up prefix
		"note STARTS WITH 'zzzzzzz{'":    false,
		"note STARTS WITH 'b'":           true,
		"note STARTS WITH 'aa'":          false,
		"note STARTS WITH '{'":           false,
		"note STARTS WITH ''":            true,
		"NOT note STARTS WITH ''":        false,
		"NOT note STARTS WITH 'a'":       true,
		"note LIKE 'aa%'":                false,
		"note LIKE 'ab_'":                true,
		"note LIKE '_b_'":                true,
		"note LIKE '{%'":                 false,
	} {
		p, err := Compile(expr, s, l)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if got := p.MayMatch(0, 3, get); got != want {
			t.Errorf("MayMatch(%s) = %v, want %v", expr, got, want)
		}
	}
	// A prefix equal to the maximum, or the minimum just past it.
	for _, c := range []struct {
		expr string
		want bool
	}{
		{"note STARTS WITH 'abc'", true},
		{"note STARTS WITH 'abd'", false},
		{"note STARTS WITH 'ab'", true},
		{"NOT note STARTS WITH 'ab'", false},
		{"NOT note STARTS WITH 'abc'", true},
		{"note STARTS WITH 'aa'", false},
		{"note STARTS WITH '\u00ff'", false},
	} {
		i, b := blockOf(t, l, "note/string", 2, func(a *stats.Accumulator) {
			a.AddLength(1)
			a.AddString("ab")
			a.AddLength(1)
			a.AddString("abc")
		})
		get := func(col int) (*stats.Block, int64, bool) { return &b, 0, col == i }
		p, err := Compile(c.expr, s, l)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.MayMatch(0, 2, get); got != c.want {
			t.Errorf("[ab, abc]: MayMatch(%s) = %v, want %v", c.expr, got, c.want)
		}
	}
	// IS NAN by the NaN flag: a block of NaNs alone has no bounds.
	for _, c := range []struct {
		vals        []float64
		nan, notNaN bool
	}{
		{[]float64{1, 2, 3}, false, true},
		{[]float64{math.NaN(), math.NaN(), math.NaN()}, true, false},
		{[]float64{math.NaN(), 2, math.NaN()}, true, true},
	} {
		i, b := blockOf(t, l, "amount", 3, func(a *stats.Accumulator) {
			for _, v := range c.vals {
				a.AddDouble(v)
			}
		})
		get := func(col int) (*stats.Block, int64, bool) { return &b, 0, col == i }
		for expr, want := range map[string]bool{"amount IS NAN": c.nan, "amount IS NOT NAN": c.notNaN, "NOT amount IS NAN": c.notNaN} {
			p, err := Compile(expr, s, l)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.MayMatch(0, 3, get); got != want {
				t.Errorf("%v: MayMatch(%s) = %v, want %v", c.vals, expr, got, want)
			}
		}
	}
	// Statistics covering more rows than asked about still bound them, but
	// their counts say nothing about the rows asked about.
	p, _ := Compile("note IS NULL", s, l)
	_, full := blockOf(t, l, "note/string", 3, func(a *stats.Accumulator) {
		for i := 0; i < 3; i++ {
			a.AddLength(1)
			a.AddString("x")
		}
	})
	if p.MayMatch(0, 3, func(int) (*stats.Block, int64, bool) { return &full, 0, true }) {
		t.Error("note IS NULL where every row has a note")
	}
	if !p.MayMatch(1, 1, func(int) (*stats.Block, int64, bool) { return &full, 0, true }) {
		t.Error("pruned by counts of a block covering more rows")
	}
}

// A path through a union of two records with the same field reads both
// branches' columns.
func TestUnionPaths(t *testing.T) {
	s, err := schema.Parse(`{"type":"record","name":"R","fields":[{"name":"u","type":["null",
		{"type":"record","name":"A","fields":[{"name":"x","type":"int"}]},
		{"type":"record","name":"B","fields":[{"name":"x","type":"string"},{"name":"y","type":"int"}]}]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	l, err := layout.New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Compile("u.x = 1", s, l); err == nil || !strings.Contains(err.Error(), "a string field needs a 'string'") {
		t.Errorf("mixed types: %v", err)
	}
	p, err := Compile("u.y = 1", s, l)
	if err != nil {
		t.Fatal(err)
	}
	rec := map[string]any{"u": map[string]any{"A": map[string]any{"x": int32(1)}}}
	if got, _ := p.Eval(rec); got != Unknown {
		t.Errorf("u.y on branch A = %v, want UNKNOWN", got)
	}
	p, _ = Compile("u.x IS NOT NULL", s, l)
	if got, _ := p.Eval(rec); got != True {
		t.Errorf("u.x IS NOT NULL = %v", got)
	}
	if got := p.Columns(); len(got) != 2 {
		t.Errorf("columns %v, want both branches' x", got)
	}
}

// A fixed decimal's block is judged by its bounds when both are exact and
// of one sign; a bytes decimal's never is.
func TestFixedDecimalPruning(t *testing.T) {
	s, err := schema.Parse(`{"type":"record","name":"R","fields":[
	 {"name":"d","type":{"type":"fixed","name":"D","size":2,"logicalType":"decimal","precision":4,"scale":2}},
	 {"name":"v","type":{"type":"bytes","logicalType":"decimal","precision":4,"scale":2}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	l, err := layout.New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	two := func(x int16) []byte { return []byte{byte(uint16(x) >> 8), byte(x)} }
	for _, c := range []struct {
		col    string
		lo, hi int16 // hundredths
		expr   string
		want   bool
	}{
		{"d", 100, 250, "d > 2.5", false},
		{"d", 100, 250, "d >= 2.5", true},
		{"d", 100, 250, "d < 1", false},
		{"d", 100, 250, "d IN (0.5, 3)", false},
		{"d", 100, 250, "d IN (0.5, 1.5)", true},
		{"d", -250, -100, "d > -1", false},
		{"d", -250, -100, "d < -2.5", false},
		{"d", -250, -100, "d <= -2.5", true},
		{"d", -100, 100, "d > 5", true}, // of two signs: not judged
		{"v", 100, 250, "v > 2.5", true},
	} {
		i, b := blockOf(t, l, c.col, 2, func(a *stats.Accumulator) {
			a.AddBytes(two(c.lo))
			a.AddBytes(two(c.hi))
		})
		get := func(col int) (*stats.Block, int64, bool) { return &b, 0, col == i }
		p, err := Compile(c.expr, s, l)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.MayMatch(0, 2, get); got != c.want {
			t.Errorf("[%d, %d]: MayMatch(%s) = %v, want %v", c.lo, c.hi, c.expr, got, c.want)
		}
	}
}
