package plainjson

import (
	"math/big"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/schema"
)

// TestNumberDigits checks the digits before and after the point of JSON
// numbers, their exponents applied.
func TestNumberDigits(t *testing.T) {
	for _, tc := range []struct {
		text         string
		intD, scaleD int
	}{
		{"1.5", 1, 1}, {"-12.250", 2, 2}, {"0.001", 0, 3}, {"1.25e1", 2, 1}, {"5e-3", 0, 3},
		{"1e2", 3, 0}, {"0", 0, 0}, {"0.0", 0, 0}, {"123", 3, 0}, {"1.5E+3", 4, 0}, {"100.5e-2", 1, 3},
	} {
		i, s := numberDigits(tc.text)
		if i != tc.intD || s != tc.scaleD {
			t.Errorf("%s: %d, %d; want %d, %d", tc.text, i, s, tc.intD, tc.scaleD)
		}
	}
}

// TestInferWideIntegersBesideFractions checks that a place of integers
// beyond 2^53 and numbers with a fraction or an exponent becomes a decimal
// that holds every one of them (a double would round the integers), that
// Decode reads each number to its exact value, and that one needing more
// than 76 digits is refused, naming the reason.
func TestInferWideIntegersBesideFractions(t *testing.T) {
	nums := []string{"12345678901234567890", "1.5", "-0.125", "9007199254740993", "2.5e-4", "3E2", "-99999999999999999999"}
	var in Inferrer
	for _, n := range nums {
		if err := in.Add([]byte(`{"v":` + n + `,"d":1.5}`)); err != nil {
			t.Fatal(err)
		}
	}
	text, err := in.Schema()
	if err != nil {
		t.Fatal(err)
	}
	s, err := schema.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	v := s.Fields[0].Type
	if v.Logical != schema.LogicalDecimal || v.Scale != 5 || v.Precision != 25 {
		t.Fatalf("v: %s, want a decimal(25,5)", v)
	}
	if s.Fields[1].Type.Kind != schema.Double {
		t.Errorf("d: %s, want a double (no wide integer)", s.Fields[1].Type)
	}
	for _, n := range nums {
		got, err := Decode(s, []byte(`{"v":`+n+`,"d":1.5}`))
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		r := got.(map[string]any)["v"].(*big.Rat)
		want, _ := new(big.Rat).SetString(n)
		if r.Cmp(want) != 0 {
			t.Errorf("%s read as %s", n, r.FloatString(4))
		}
	}
	var wide Inferrer
	if err := wide.Add([]byte(`{"v":12345678901234567890}`)); err != nil {
		t.Fatal(err)
	}
	err = wide.Add([]byte(`{"v":1.` + strings.Repeat("1", 60) + `}`))
	if err == nil || !strings.Contains(err.Error(), "80 digits") {
		t.Errorf("a decimal of 80 digits: %v", err)
	}
}
