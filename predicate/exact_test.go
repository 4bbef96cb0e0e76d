package predicate

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni/format/stats"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

func mustRat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("bad rational " + s)
	}
	return r
}

const numbersSchema = `{"type":"record","name":"N","fields":[
 {"name":"id","type":"long"},{"name":"n","type":"int"},
 {"name":"x","type":"double"},{"name":"f","type":"float"}]}`

func numbers(t *testing.T) (*schema.Schema, *layout.Layout) {
	t.Helper()
	s, err := schema.Parse(numbersSchema)
	if err != nil {
		t.Fatal(err)
	}
	l, err := layout.New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, l
}

// The cases of the issue: a decimal literal compared with a long column
// was rounded to a double first.
func TestIntegerAgainstDecimalLiteral(t *testing.T) {
	s, l := numbers(t)
	for _, c := range []struct {
		expr string
		id   int64
		want bool
	}{
		{"id = 9007199254740993.0", 9007199254740993, true},
		{"id = 9007199254740993.0", 9007199254740992, false},
		{"id = 9223372036854775807.0", math.MaxInt64, true},
		{"id = 9223372036854775807.000", math.MaxInt64 - 1, false},
		{"id = 9007199254740992.0000001", 9007199254740992, false},
		{"id < 9007199254740992.0000001", 9007199254740992, true},
		{"id > 9007199254740992.9999999", 9007199254740992, false},
		{"id >= 9007199254740992.9999999", 9007199254740993, true},
		{"id < 9223372036854775808", math.MaxInt64, true},
		{"id > -9223372036854775809", math.MinInt64, true},
		{"id = 90071992547409930e-1", 9007199254740993, true},
		{"id IN (1.5, 9007199254740993.0)", 9007199254740993, true},
		{"id IN (1.5, 9007199254740993.0)", 9007199254740992, false},
		{"x = 9007199254740993", 9007199254740992, false},
		{"x = 0.1", 0, false},
	} {
		p, err := Compile(c.expr, s, l)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		rec := map[string]any{"id": c.id, "n": int32(0), "x": float64(c.id), "f": float32(0)}
		if strings.HasPrefix(c.expr, "x = 0.1") {
			rec["x"] = 0.1
		}
		got, err := p.Match(rec)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s on id %d: got %v, want %v", c.expr, c.id, got, c.want)
		}
	}
}

// exactCmp compares a value (int64 or float64) with a literal's exact
// value by brute force; ok is false for NaN.
func exactCmp(v any, lit *big.Rat) (int, bool) {
	switch v := v.(type) {
	case int64:
		return new(big.Rat).SetInt64(v).Cmp(lit), true
	case float64:
		switch {
		case math.IsNaN(v):
			return 0, false
		case math.IsInf(v, 0):
			return int(math.Copysign(1, v)), true
		}
		return new(big.Rat).SetFloat64(v).Cmp(lit), true
	}
	panic(fmt.Sprintf("%T", v))
}

func opHolds(op string, c int, ok bool) bool {
	if !ok {
		return op == "!="
	}
	switch op {
	case "=":
		return c == 0
	case "!=":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

// literalText writes r in one of several forms, exactly.
func literalText(rnd *rand.Rand, r *big.Rat) string {
	if r.IsInt() {
		switch rnd.IntN(4) {
		case 0:
			return r.Num().String()
		case 1:
			return r.Num().String() + ".0"
		case 2:
			return r.Num().String() + "." + strings.Repeat("0", 1+rnd.IntN(30))
		}
		return r.Num().String() + "0e-1"
	}
	// A terminating decimal: r's denominator is a product of 2s and 5s
	// (every literal the generator makes is): as many places as the
	// larger power are exact.
	d := new(big.Int).Set(r.Denom())
	twos := int(d.TrailingZeroBits())
	d.Rsh(d, uint(twos))
	fives := 0
	for m := new(big.Int); d.Cmp(big.NewInt(1)) > 0; fives++ {
		d.QuoRem(d, big.NewInt(5), m)
		if m.Sign() != 0 {
			panic("not a terminating decimal")
		}
	}
	return r.FloatString(max(twos, fives))
}

// randomLiteral is a number near an anchor where rounding to a float would
// change comparisons: an exact rational with a terminating decimal form.
func randomLiteral(rnd *rand.Rand) *big.Rat {
	anchors := []*big.Rat{
		new(big.Rat), big.NewRat(1<<53, 1), big.NewRat(1<<53+1, 1),
		new(big.Rat).SetInt64(math.MaxInt64), new(big.Rat).SetInt64(math.MinInt64),
		new(big.Rat).SetFloat64(0x1p63), new(big.Rat).SetFloat64(math.MaxFloat64),
		new(big.Rat).SetFloat64(math.SmallestNonzeroFloat64), new(big.Rat).SetFloat64(0.1),
		new(big.Rat).SetFloat64(1 << 24), big.NewRat(math.MaxInt32, 1),
	}
	r := new(big.Rat).Set(anchors[rnd.IntN(len(anchors))])
	if rnd.IntN(2) == 0 {
		r.Neg(r)
	}
	switch rnd.IntN(4) {
	case 0: // an integer offset
		r.Add(r, big.NewRat(int64(rnd.IntN(5))-2, 1))
	case 1: // a tiny fraction
		r.Add(r, new(big.Rat).SetFrac(big.NewInt(int64(rnd.IntN(3))-1), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(1+rnd.IntN(40))), nil)))
	case 2: // a half
		r.Add(r, big.NewRat(int64(rnd.IntN(3))-1, 2))
	}
	return r
}

// randomValue is a value of the column near the literal.
func randomValue(rnd *rand.Rand, col string, lit *big.Rat) any {
	f, _ := lit.Float64()
	switch col {
	case "id", "n":
		fl := new(big.Int).Quo(lit.Num(), lit.Denom())
		fl.Add(fl, big.NewInt(int64(rnd.IntN(5))-2))
		lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
		if col == "n" {
			lo, hi = math.MinInt32, math.MaxInt32
		}
		switch {
		case !fl.IsInt64() && fl.Sign() > 0, fl.IsInt64() && fl.Int64() > hi:
			return hi
		case !fl.IsInt64(), fl.Int64() < lo:
			return lo
		}
		return fl.Int64()
	case "x":
		switch rnd.IntN(6) {
		case 0:
			return math.Nextafter(f, math.Inf(1))
		case 1:
			return math.Nextafter(f, math.Inf(-1))
		case 2:
			return math.Inf(1 - 2*rnd.IntN(2))
		}
		return f
	}
	f32 := float32(f)
	switch rnd.IntN(3) {
	case 0:
		f32 = math.Nextafter32(f32, float32(math.Inf(1)))
	case 1:
		f32 = math.Nextafter32(f32, float32(math.Inf(-1)))
	}
	return float64(f32)
}

// Every comparison of an integer or float column with a number literal
// agrees with exact arithmetic, in Eval and in statistics pruning.
func TestNumberComparisonsExact(t *testing.T) {
	s, l := numbers(t)
	colOf := map[string]int{}
	for i, c := range l.Columns {
		colOf[c.Name] = i
	}
	rnd := rand.New(rand.NewPCG(5, 6))
	ops := []string{"=", "!=", "<", "<=", ">", ">="}
	n := 4000
	if testing.Short() {
		n = 800
	}
	for i := 0; i < n; i++ {
		lit := randomLiteral(rnd)
		text := literalText(rnd, lit)
		col := []string{"id", "n", "x", "f"}[rnd.IntN(4)]
		op := ops[rnd.IntN(len(ops))]
		src := col + " " + op + " " + text
		p, err := Compile(src, s, l)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		v := randomValue(rnd, col, lit)
		rec := map[string]any{"id": int64(0), "n": int32(0), "x": 0.0, "f": float32(0)}
		var b stats.Block
		b.Rows, b.Values, b.HasBounds = 1, 1, true
		switch col {
		case "id":
			rec[col] = v.(int64)
			b.MinInt, b.MaxInt = v.(int64), v.(int64)
		case "n":
			rec[col] = int32(v.(int64))
			b.MinInt, b.MaxInt = v.(int64), v.(int64)
		case "x":
			rec[col] = v.(float64)
			b.MinFloat, b.MaxFloat = v.(float64), v.(float64)
		case "f":
			rec[col] = float32(v.(float64))
			b.MinFloat, b.MaxFloat = v.(float64), v.(float64)
		}
		cv, cok := exactCmp(v, lit)
		want := opHolds(op, cv, cok)
		got, err := p.Match(rec)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got != want {
			t.Fatalf("%s on %v: got %v, want %v", src, v, got, want)
		}
		c, ok := colOf[col]
		if !ok {
			t.Fatalf("no column %s", col)
		}
		may := p.MayMatch(0, 1, func(k int) (*stats.Block, int64, bool) { return &b, 0, k == c })
		if may != want {
			// One exact value per block: pruning is exact too.
			t.Fatalf("%s on a block holding only %v: MayMatch %v, want %v", src, v, may, want)
		}
	}
}

// A long number literal is refused at once, not parsed in superlinear
// time; so is a huge exponent.
func TestLongNumberLiteral(t *testing.T) {
	s, l := numbers(t)
	for _, src := range []string{
		"id = " + strings.Repeat("9", 3_000_000),
		"id = 1" + strings.Repeat("0", 5000) + ".5",
		"id = 1e999999999",
		"x < 1e-99999999999999999999",
	} {
		start := time.Now()
		_, err := Compile(src, s, l)
		if err == nil {
			t.Errorf("%.40s...: no error", src)
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("%.40s...: took %v", src, d)
		}
	}
	// The longest literal allowed still compares exactly.
	lit := "9007199254740993." + strings.Repeat("0", maxNumberLen-18) + "1"
	p, err := Compile("id > "+lit, s, l)
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := p.Match(map[string]any{"id": int64(9007199254740993), "n": int32(0), "x": 0.0, "f": float32(0)}); ok {
		t.Errorf("id > %s... matched 9007199254740993", lit[:20])
	}
}

// A long IN list is looked up, not scanned: 20,000 literals over 30,000
// rows stay well under a second.
func TestLongInList(t *testing.T) {
	s, l := numbers(t)
	var b strings.Builder
	b.WriteString("id IN (")
	for i := 0; i < 20000; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d", 2*i)
	}
	b.WriteString(", 1.5, 7.0, NaN, Infinity)")
	p, err := Compile(b.String(), s, l)
	if err != nil {
		t.Fatal(err)
	}
	q, err := Compile(strings.Replace(b.String(), "id IN", "x IN", 1), s, l)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rec := map[string]any{"id": int64(0), "n": int32(0), "x": 0.0, "f": float32(0)}
	for i := 0; i < 30000; i++ {
		rec["id"], rec["x"] = int64(i), float64(i)/2
		want := i%2 == 0 && i < 40000 || i == 7
		if got, err := p.Match(rec); err != nil || got != want {
			t.Fatalf("id %d: got %v (%v), want %v", i, got, err, want)
		}
		wantX := i%4 == 0 || i == 3 || i == 14
		if got, err := q.Match(rec); err != nil || got != wantX {
			t.Fatalf("x %v: got %v (%v), want %v", float64(i)/2, got, err, wantX)
		}
	}
	if d := time.Since(start); d > 60*time.Second {
		t.Errorf("60,000 evaluations of a 20,000-item IN took %v", d)
	}
}
