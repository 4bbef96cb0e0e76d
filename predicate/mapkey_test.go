package predicate

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format/stats"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

// attrs['k'] looks up one key of a map: Eval agrees with a lookup in Go
// over random maps (a missing key is NULL, so a comparison is UNKNOWN), and
// MayMatch never drops a block whose values could hold a match.
func TestMapLookup(t *testing.T) {
	s, err := schema.Parse(`{"type":"record","name":"R","fields":[
	 {"name":"attrs","type":{"type":"map","values":"string"}},
	 {"name":"opt","type":["null",{"type":"map","values":{"type":"record","name":"V","fields":[{"name":"n","type":"long"}]}}]},
	 {"name":"list","type":{"type":"array","items":"string"}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	l, err := layout.New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(9, 10))
	keys, vals := []string{"a", "b", "c"}, []string{"x", "y", "z"}
	for range 2000 {
		attrs := map[string]any{}
		var present []string
		for _, k := range keys {
			if rnd.IntN(2) == 0 {
				attrs[k] = vals[rnd.IntN(len(vals))]
				present = append(present, attrs[k].(string))
			}
		}
		rec := map[string]any{"attrs": attrs, "opt": nil, "list": []any{}}
		k, v := keys[rnd.IntN(len(keys))], vals[rnd.IntN(len(vals))]
		op := []string{"=", "!=", "<", ">="}[rnd.IntN(4)]
		expr := fmt.Sprintf("attrs['%s'] %s '%s'", k, op, v)
		p, err := Compile(expr, s, l)
		if err != nil {
			t.Fatal(err)
		}
		want := Unknown
		if got, ok := attrs[k]; ok {
			c := strings.Compare(got.(string), v)
			want = map[bool]Truth{true: True, false: False}[op == "=" && c == 0 || op == "!=" && c != 0 || op == "<" && c < 0 || op == ">=" && c >= 0]
		}
		if got, err := p.Eval(rec); err != nil || got != want {
			t.Fatalf("%s on %v: %v %v, want %v", expr, attrs, got, err, want)
		}
		isNull, _ := Compile(fmt.Sprintf("attrs['%s'] IS NULL", k), s, l)
		if got, _ := isNull.Eval(rec); (got == True) != (attrs[k] == nil) {
			t.Fatalf("attrs['%s'] IS NULL on %v: %v", k, attrs, got)
		}
		// The block of the map's values holds these records' values.
		i, b := blockOf(t, l, "attrs>value", 1, func(a *stats.Accumulator) {
			for _, x := range present {
				a.AddString(x)
			}
		})
		if want == True && !p.MayMatch(0, 1, func(c int) (*stats.Block, int64, bool) { return &b, 0, c == i }) {
			t.Fatalf("%s on %v: pruned a match", expr, attrs)
		}
	}
	p, err := Compile("opt['k'].n > 3", s, l)
	if err != nil {
		t.Fatal(err)
	}
	for rec, want := range map[*map[string]any]Truth{
		{"opt": nil}: Unknown,
		{"opt": map[string]any{"map": map[string]any{"k": map[string]any{"n": int64(4)}}}}: True,
		{"opt": map[string]any{"map": map[string]any{"j": map[string]any{"n": int64(4)}}}}: Unknown,
		{"opt": map[string]any{"map": map[string]any{"k": map[string]any{"n": int64(3)}}}}: False,
	} {
		if got, err := p.Eval(*rec); err != nil || got != want {
			t.Errorf("%s on %v: %v %v, want %v", p, *rec, got, err, want)
		}
	}
	for expr, msg := range map[string]string{
		"list['k'] = 'x'":  `not a map`,
		"attrs[1] = 'x'":   `expected a 'key'`,
		"attrs['k' = 'x'":  `expected "]"`,
		"attrs['k'].n = 1": `has no field "n"`,
	} {
		if _, err := Compile(expr, s, l); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", expr, err, msg)
		}
	}
}

// Lookups in a map of maps (m['a']['b']), a lookup inside a record path
// (r.m['k'].x) and in the maps of an array (am['k']: any element's) give
// what a lookup in Go gives: a key missing at any level is NULL.
func TestNestedMapLookup(t *testing.T) {
	s, err := schema.Parse(`{"type":"record","name":"R","fields":[
	 {"name":"mm","type":{"type":"map","values":["null",{"type":"map","values":"long"}]}},
	 {"name":"r","type":{"type":"record","name":"In","fields":[
	   {"name":"m","type":{"type":"map","values":{"type":"record","name":"V","fields":[{"name":"x","type":"string"}]}}}]}},
	 {"name":"am","type":{"type":"array","items":{"type":"map","values":"boolean"}}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	l, err := layout.New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(11, 12))
	keys := []string{"a", "b"}
	for range 2000 {
		mm := map[string]any{}
		for _, k := range keys {
			switch rnd.IntN(3) {
			case 0:
				mm[k] = nil
			case 1:
				inner := map[string]any{}
				for _, j := range keys {
					if rnd.IntN(2) == 0 {
						inner[j] = int64(rnd.IntN(4))
					}
				}
				mm[k] = map[string]any{"map": inner}
			}
		}
		rm := map[string]any{}
		for _, k := range keys {
			if rnd.IntN(2) == 0 {
				rm[k] = map[string]any{"x": keys[rnd.IntN(2)]}
			}
		}
		var am []any
		for range rnd.IntN(3) {
			e := map[string]any{}
			for _, k := range keys {
				if rnd.IntN(2) == 0 {
					e[k] = rnd.IntN(2) == 0
				}
			}
			am = append(am, e)
		}
		rec := map[string]any{"mm": mm, "r": map[string]any{"m": rm}, "am": am}
		k1, k2, n := keys[rnd.IntN(2)], keys[rnd.IntN(2)], rnd.IntN(4)

		// mm[k1][k2] > n
		want := Unknown
		if u, ok := mm[k1].(map[string]any); ok {
			if v, ok := u["map"].(map[string]any)[k2]; ok {
				want = map[bool]Truth{true: True, false: False}[v.(int64) > int64(n)]
			}
		}
		check(t, s, l, fmt.Sprintf("mm['%s']['%s'] > %d", k1, k2, n), rec, want)
		nullWant := map[bool]Truth{true: False, false: True}[want != Unknown]
		check(t, s, l, fmt.Sprintf("mm['%s']['%s'] IS NULL", k1, k2), rec, nullWant)

		// r.m[k1].x = k2
		want = Unknown
		if v, ok := rm[k1]; ok {
			want = map[bool]Truth{true: True, false: False}[v.(map[string]any)["x"] == k2]
		}
		check(t, s, l, fmt.Sprintf("r.m['%s'].x = '%s'", k1, k2), rec, want)

		// am[k1] = TRUE: true if an element's k1 is true, else unknown if
		// an element lacks k1, else false.
		want = False
		for _, e := range am {
			v, ok := e.(map[string]any)[k1]
			switch {
			case ok && v.(bool):
				want = True
			case !ok && want == False:
				want = Unknown
			}
		}
		check(t, s, l, fmt.Sprintf("am['%s'] = TRUE", k1), rec, want)
	}
	for expr, msg := range map[string]string{
		"mm['a']['b']['c'] = 1": `is a long, not a map`,
		"r['k'] = 'x'":          `r is a record In, not a map`,
		"r.m['k']['j'].x = 'x'": `not a map`,
	} {
		if _, err := Compile(expr, s, l); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", expr, err, msg)
		}
	}
}

func check(t *testing.T, s *schema.Schema, l *layout.Layout, expr string, rec map[string]any, want Truth) {
	t.Helper()
	p, err := Compile(expr, s, l)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := p.Eval(rec); err != nil || got != want {
		t.Fatalf("%s on %v: %v %v, want %v", expr, rec, got, err, want)
	}
}
