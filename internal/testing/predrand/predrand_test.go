package predrand_test

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"

	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/internal/testing/predrand"
	"github.com/trevni-go/trevni/predicate"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

// randomCase returns a random schema, records of it, and a generator over
// them whose comparisons are checked by predicate.Compile.
func randomCase(t *testing.T, seed uint64) (*schema.Schema, *layout.Layout, []any, *predrand.Generator) {
	t.Helper()
	ag := avrorand.New(seed, avrorand.Options{MaxDepth: 3, MaxFields: 5, MaxBranches: 4, MaxLen: 4})
	s, err := schema.Parse(ag.Schema())
	if err != nil {
		t.Fatal(err)
	}
	l, err := layout.New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	var recs []any
	for range 1 + seed%20 {
		recs = append(recs, ag.Value(s))
	}
	g := predrand.New(rand.New(rand.NewPCG(seed, 1)), s, recs)
	g.Check = func(e string) error {
		_, err := predicate.Compile(e, s, l)
		return err
	}
	return s, l, recs, g
}

// Over random schemas and records, every expression compiles and
// evaluates, comparisons are seldom rejected, and every feature the
// package promises is made.
func TestExpressionsCompileAndCoverTheGrammar(t *testing.T) {
	counts := map[string]int{}
	exprs := 0
	for seed := range uint64(201) {
		s, l, recs, g := randomCase(t, seed)
		if seed == 200 {
			// Maps of maps and maps of records, which random schemas
			// of this size seldom have with keys in them.
			s, l, recs, g = nestedMapsCase(t)
		}
		if len(g.Paths()) == 0 {
			if g.Expr(3) != "" {
				t.Fatalf("seed %d: an expression without paths", seed)
			}
			continue
		}
		g.Counts = counts
		for range 20 {
			e := g.Expr(3)
			p, err := predicate.Compile(e, s, l)
			if err != nil {
				t.Fatalf("seed %d: %s: %v", seed, e, err)
			}
			for _, r := range recs {
				if _, err := p.Match(r); err != nil {
					t.Fatalf("seed %d: %s: %v", seed, e, err)
				}
			}
			exprs++
		}
	}
	t.Logf("%d expressions: %v", exprs, counts)
	for _, f := range []string{
		"op =", "op ==", "op !=", "op <>", "op <", "op <=", "op >", "op >=", "op IN", "op NOT IN",
		"op IS NULL", "op IS NOT NULL", "op IS NAN", "op IS NOT NAN", "op STARTS WITH", "op LIKE", "op NOT LIKE",
		"lit LIKE _", "lit LIKE leading %", "path ['key']", "path ['key']['key']", "path ['key'].name", "path ['missing key']", "AND", "OR", "NOT", "parentheses",
		"path bare", `path "quoted"`, "path `quoted`",
		"lit boolean", "lit enum", "lit enum other", "lit date text", "lit time text", "lit timestamp text",
		"lit int", "lit int+1", "lit int-1", "lit int+0.5", "lit int-0.5",
		"lit float", "lit float32 shortest", "lit float next up", "lit float next down",
		"lit NaN", "lit Infinity", "lit -Infinity", "lit -0",
		"lit string", "lit string/bytes cut", "lit string/bytes extended", "lit bytes as text", "lit bytes hex",
		"lit decimal", "lit decimal nudged",
	} {
		if counts[f] == 0 {
			t.Errorf("never made: %s", f)
		}
	}
	if comparisons := counts["op ="] + counts["op !="] + counts["op <"] + counts["op IN"] + counts["op IS NULL"]; counts["fallback"]*50 > comparisons {
		t.Errorf("%d comparisons fell back to IS NOT NULL", counts["fallback"])
	}
}

// nestedMapsCase returns a schema of a map of maps and a map of records,
// records of it and a generator over them.
func nestedMapsCase(t *testing.T) (*schema.Schema, *layout.Layout, []any, *predrand.Generator) {
	s, err := schema.Parse(`{"type":"record","name":"R","fields":[
	 {"name":"mm","type":{"type":"map","values":["null",{"type":"map","values":"long"}]}},
	 {"name":"mr","type":{"type":"map","values":{"type":"record","name":"V","fields":[{"name":"x","type":"string"}]}}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	l, err := layout.New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	var recs []any
	for i := range 6 {
		recs = append(recs, map[string]any{
			"mm": map[string]any{"a": map[string]any{"map": map[string]any{"x": int64(i), "y": int64(-i)}}, "b": nil},
			"mr": map[string]any{"k": map[string]any{"x": string(rune('p' + i))}},
		})
	}
	g := predrand.New(rand.New(rand.NewPCG(3, 4)), s, recs)
	g.Check = func(e string) error {
		_, err := predicate.Compile(e, s, l)
		return err
	}
	return s, l, recs, g
}

// The same seed and records give the same expressions.
func TestDeterministic(t *testing.T) {
	for seed := range uint64(20) {
		_, _, _, a := randomCase(t, seed)
		_, _, _, b := randomCase(t, seed)
		for range 10 {
			if x, y := a.Expr(3), b.Expr(3); x != y {
				t.Fatalf("seed %d: %s, then %s", seed, x, y)
			}
		}
	}
}

// Literals are the records' values or just beside them: an integer one
// above or below, or halfway to the next.
func TestLiteralsNearTheData(t *testing.T) {
	s, err := schema.Parse(`{"type":"record","name":"R","fields":[{"name":"n","type":"long"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	data := []int64{100, 200, 300}
	var recs []any
	for _, n := range data {
		recs = append(recs, map[string]any{"n": n})
	}
	g := predrand.New(rand.New(rand.NewPCG(1, 2)), s, recs)
	num := regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?`)
	exact := 0
	for range 500 {
		e := g.Comparison()
		for _, lit := range num.FindAllString(e, -1) {
			f, err := strconv.ParseFloat(lit, 64)
			if err != nil {
				t.Fatal(err)
			}
			near := false
			for _, n := range data {
				d := f - float64(n)
				near = near || d >= -1 && d <= 1
				if d == 0 {
					exact++
				}
			}
			if !near {
				t.Fatalf("%s: %s is not beside a value of the data", e, lit)
			}
		}
	}
	if exact < 200 {
		t.Fatalf("only %d literals equal a value of the data", exact)
	}
}
