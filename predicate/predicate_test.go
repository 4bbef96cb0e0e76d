package predicate

import (
	"errors"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni/format/stats"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

const ordersSchema = `{"type":"record","name":"Order","fields":[
 {"name":"id","type":"long"},
 {"name":"region","type":{"type":"enum","name":"Region","symbols":["EU","US","ASIA"]}},
 {"name":"amount","type":"double"},
 {"name":"note","type":["null","string"]},
 {"name":"paid","type":"boolean"},
 {"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"raw","type":"bytes"},
 {"name":"price","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
 {"name":"tags","type":{"type":"array","items":"string"}},
 {"name":"lines","type":{"type":"array","items":{"type":"record","name":"Line","fields":[
   {"name":"sku","type":"string"},{"name":"qty","type":"int"}]}}},
 {"name":"ship","type":["null",{"type":"record","name":"Ship","fields":[{"name":"city","type":"string"}]}]},
 {"name":"in","type":"int"}
]}`

func orders(t *testing.T) (*schema.Schema, *layout.Layout) {
	t.Helper()
	s, err := schema.Parse(ordersSchema)
	if err != nil {
		t.Fatal(err)
	}
	l, err := layout.New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, l
}

func order() map[string]any {
	return map[string]any{
		"id": int64(7), "region": "US", "amount": 4500.5, "note": nil, "paid": true,
		"at":  time.UnixMilli(1700000000000).UTC(),
		"raw": []byte{0x00, 0xff}, "price": mustRat("12.34"),
		"tags":  []any{"a", "b"},
		"lines": []any{map[string]any{"sku": "x1", "qty": int32(2)}, map[string]any{"sku": "y2", "qty": int32(5)}},
		"ship":  map[string]any{"Ship": map[string]any{"city": "Oslo"}},
		"in":    int32(3),
	}
}

func TestEval(t *testing.T) {
	s, l := orders(t)
	rec := order()
	for _, c := range []struct {
		expr string
		want Truth
	}{
		{"amount > 4500", True},
		{"amount > 4500.5", False},
		{"amount >= 4500.5", True},
		{"id = 7 AND paid = TRUE", True},
		{"id = 7.5", False},
		{"id < 7.5", True},
		{"id IN (1, 2, 7)", True},
		{"id NOT IN (1, 2)", True},
		{"region = 'US'", True},
		{"region < 'ASIA'", True}, // enums order by ordinal
		{"note = 'x'", Unknown},
		{"NOT note = 'x'", Unknown},
		{"note = 'x' OR id = 7", True},
		{"note = 'x' AND id = 7", Unknown},
		{"note = 'x' AND id = 8", False},
		{"note IS NULL", True},
		{"note IS NOT NULL", False},
		{"at = 1700000000000", True},
		{"at = '2023-11-14T22:13:20Z'", True},
		{"at > '2023-11-14T22:13:20.001Z'", False},
		{"raw = X'00FF'", True},
		{"raw = '\u0000\u00ff'", True},
		{"raw > X'00'", True},
		{"price = 12.34", True},
		{"price > 12.339", True},
		{"price < 12.34", False},
		{"tags = 'b'", True},
		{"tags = 'c'", False},
		{"lines.qty > 4", True},
		{"lines.qty > 5", False},
		{"NOT lines.qty > 5", True},
		{"lines.sku = 'y2' AND lines.qty = 2", True}, // each "any element" on its own
		{"ship.city = 'Oslo'", True},
		{"ship IS NOT NULL", True},
		{`"in" = 3`, True},
		{"(id = 1 OR id = 7) AND NOT (region = 'EU')", True},
		{"amount != NaN", True},
		{"amount = NaN", False},
		{"amount < Infinity", True},
		{"amount IS NAN", False},
		{"amount IS NOT NAN", True},
		{"ship.city STARTS WITH 'Os'", True},
		{"ship.city STARTS WITH ''", True},
		{"ship.city STARTS WITH 'os'", False},
		{"ship.city starts with 'Oslo'", True},
		{"ship.city LIKE 'O%'", True},
		{"ship.city LIKE 'O_lo'", True},
		{"ship.city LIKE '%s%o'", True},
		{"ship.city LIKE '%sl'", False},
		{"ship.city NOT LIKE 'O__'", True},
		{"note LIKE '%'", Unknown},
		{"note STARTS WITH 'a'", Unknown},
		{"tags STARTS WITH 'b'", True},
		{"raw STARTS WITH X'00'", True},
		{"raw LIKE '\u0000%'", True},
	} {
		p, err := Compile(c.expr, s, l)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		got, err := p.Eval(rec)
		if err != nil || got != c.want {
			t.Errorf("%s = %v, %v; want %v", c.expr, got, err, c.want)
		}
	}
	rec["tags"] = []any{}
	for expr, want := range map[string]Truth{"tags = 'a'": False, "NOT tags = 'a'": True, "tags IS NULL": False} {
		p, _ := Compile(expr, s, l)
		if got, err := p.Eval(rec); err != nil || got != want {
			t.Errorf("empty array: %s = %v, %v; want %v", expr, got, err, want)
		}
	}
	rec["amount"] = math.NaN()
	for expr, want := range map[string]Truth{"amount != 1": True, "amount = 1": False, "NOT amount < 1": True, "amount >= 0 OR amount < 0": False, "amount IS NAN": True, "amount IS NOT NAN": False} {
		p, _ := Compile(expr, s, l)
		if got, err := p.Eval(rec); err != nil || got != want {
			t.Errorf("NaN: %s = %v, %v; want %v", expr, got, err, want)
		}
	}
}

func TestErrors(t *testing.T) {
	s, l := orders(t)
	for _, c := range []struct {
		expr string
		at   int
		msg  string
	}{
		{"", 0, "empty expression"},
		{"id = ", 5, "expected a literal"},
		{"id = 'x", 5, "unterminated"},
		{"id == 1 AND", 11, "expected a field name"},
		{"(id = 1", 7, `expected ")" to close the "(" at offset 0`},
		{"id ! 1", 3, `"!" must be followed by "="`},
		{"id = 1 id = 2", 7, "unexpected"},
		{"id = NULL", 5, "use IS NULL"},
		{"id # 1", 3, "unexpected character '#'"},
		{"nope = 1", 0, `record Order has no field "nope"; did you mean note?`},
		{"ID = 1", 0, `record Order has no field "ID"; did you mean id?`},
		{"amuont > 1", 0, `did you mean amount?`},
		{"lines.skus = 'a'", 6, `record Line has no field "skus"; did you mean sku?`},
		{"regon2 = 'EU'", 0, `did you mean region?`},
		{"lines.nope = 1", 6, `record Line has no field "nope"`},
		{"id.x = 1", 3, `a value of type long has no field "x"`},
		{"id = 'x'", 5, "a long field needs a number"},
		{"region = 'MARS'", 9, `enum Region has no symbol "MARS"`},
		{"paid = 1", 7, "needs TRUE or FALSE"},
		{"ship = 1", 0, "is a record"},
		{"raw = '\u0100'", 6, "is not a byte"},
		{"at = '2023-11-14T22:13:20.0001Z'", 5, "finer than the field's unit"},
		{"in = 3", 0, "keyword IN"},
		{"id IN (1 2)", 9, `expected "," or ")"`},
		{"amount = X'0g'", 12, "not a hex digit"},
		{"price = NaN", 8, "finite number"},
		{"id IS NAN", 0, "IS NAN applies to float and double"},
		{"price IS NAN", 0, "IS NAN applies to float and double"},
		{"id STARTS WITH '1'", 0, "STARTS WITH applies to string"},
		{"region LIKE 'E%'", 0, "LIKE applies to string"},
		{"note STARTS 'a'", 12, "expected WITH"},
		{"note LIKE 1", 10, "needs a 'string'"},
		{"note NOT = 'a'", 9, "expected IN or LIKE after NOT"},
		{"amount IS NANA", 10, "expected NULL or NAN"},
		{strings.Repeat("(", 2000) + "id = 1" + strings.Repeat(")", 2000), 1001, "nested too deeply"},
	} {
		_, err := Compile(c.expr, s, l)
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("%q: got %v, want an *Error", c.expr, err)
			continue
		}
		if pe.Offset != c.at || !strings.Contains(pe.Msg, c.msg) {
			t.Errorf("%q: got offset %d %q, want %d %q", c.expr, pe.Offset, pe.Msg, c.at, c.msg)
		}
	}
	// A name more than two edits from every field gets no suggestion.
	for _, e := range []string{"regoin2 = 'EU'", "zzzz = 1", "lines.qtyyyy = 1"} {
		if _, err := Compile(e, s, l); err == nil || strings.Contains(err.Error(), "did you mean") || !strings.Contains(err.Error(), "has no field") {
			t.Errorf("%s: %v", e, err)
		}
	}
	// The example of docs/filters.md.
	_, err := Compile("amont > 4500 AND region = 'EU'", s, l)
	if want := "amont: record Order has no field \"amont\"; did you mean amount? at offset 0\n  amont > 4500 AND region = 'EU'\n  ^"; err == nil || err.Error() != want {
		t.Errorf("docs/filters.md example:\n%v\nwant\n%s", err, want)
	}
	_, err = Compile("id = 1 AND région = 2", s, l)
	want := "unexpected character 'é' at offset 12\n  id = 1 AND région = 2\n              ^"
	if err == nil || err.Error() != want {
		t.Errorf("caret line:\n%v\nwant\n%s", err, want)
	}
}

// Parsing never panics and reports errors inside the expression.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"id = 1", "lines.qty IN (1, 2.5) AND NOT note IS NULL", "ship IS NULL OR raw = 'x'", "NOT (a.b IN ('x', 'y''z')) OR c IS NOT NULL", "x >= -1.5e3 AND y != X'00ff'", `"in" <> NaN`, "(((a = -Infinity)))"} {
		f.Add(s)
	}
	s := schema.MustParse(ordersSchema)
	l, err := layout.New(s, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := Parse(src)
		var pe *Error
		if err != nil {
			if !errors.As(err, &pe) || pe.Offset < 0 || pe.Offset > len(src) {
				t.Fatalf("%q: %v", src, err)
			}
			return
		}
		p, err := e.Bind(s, l)
		if err != nil {
			if !errors.As(err, &pe) || pe.Offset < 0 || pe.Offset > len(src) {
				t.Fatalf("%q: %v", src, err)
			}
			return
		}
		if _, err := p.Eval(order()); err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		// Without statistics nothing is known.
		if !p.MayMatch(0, 10, func(int) (*stats.Block, int64, bool) { return nil, 0, false }) {
			t.Fatalf("%q: pruned without statistics", src)
		}
	})
}

// LIKE agrees with the regular expression its pattern stands for, over
// random strings and patterns of a small alphabet (so that wildcards meet
// matches and near misses).
func TestLikeAgainstRegexp(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	word := func(alphabet []string, n int) string {
		var b strings.Builder
		for range rnd.IntN(n + 1) {
			b.WriteString(alphabet[rnd.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 20000 {
		s := word([]string{"a", "b", "é", "%", "_"}, 6)
		pat := word([]string{"a", "b", "é", "%", "_", "%"}, 5)
		var re strings.Builder
		re.WriteString(`^(?s)`)
		for _, r := range pat {
			switch r {
			case '%':
				re.WriteString(".*")
			case '_':
				re.WriteString(".")
			default:
				re.WriteString(regexp.QuoteMeta(string(r)))
			}
		}
		re.WriteString("$")
		want := regexp.MustCompile(re.String()).MatchString(s)
		if got := likeMatch(s, pat); got != want {
			t.Fatalf("likeMatch(%q, %q) = %v, want %v", s, pat, got, want)
		}
	}
}
