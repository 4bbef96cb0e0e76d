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
