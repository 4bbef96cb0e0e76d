package csvtable

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/schema"
)

// TestDecimalRoundTrip writes random decimals as big.Rat prints them,
// reads them with a schema of decimals on bytes and on fixed, and checks
// the text after a Trevni round trip, and the bytes against big.Int.
func TestDecimalRoundTrip(t *testing.T) {
	s, err := schema.Parse(`{"type":"record","name":"R","fields":[
		{"name":"b","type":{"type":"bytes","logicalType":"decimal","precision":30,"scale":4}},
		{"name":"f","type":["null",{"type":"fixed","name":"F","size":8,"logicalType":"decimal","precision":18,"scale":2}]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	fields, err := FieldsOf(s)
	if err != nil {
		t.Fatal(err)
	}
	if fields[0].Type != Decimal || fields[0].Precision != 30 || fields[0].Scale != 4 || fields[1].Size != 8 {
		t.Fatalf("fields %+v", fields)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(digits int) *big.Int {
		var b strings.Builder
		if rng.IntN(2) == 0 {
			b.WriteByte('-')
		}
		b.WriteByte('0')
		for n := rng.IntN(digits + 1); n > 0; n-- {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
		v, _ := new(big.Int).SetString(b.String(), 10)
		return v
	}
	var in, want strings.Builder
	in.WriteString("b,f\n")
	want.WriteString("b,f\n")
	var unscaled []*big.Int
	for i := 0; i < 500; i++ {
		b, f := random(30), random(18)
		unscaled = append(unscaled, b)
		bt := new(big.Rat).SetFrac(b, big.NewInt(10000)).FloatString(4)
		ft := new(big.Rat).SetFrac(f, big.NewInt(100)).FloatString(2)
		// The input drops trailing zeros of the fraction, or adds some.
		in.WriteString(strings.TrimRight(strings.TrimRight(bt, "0"), ".") + "," + ft + "000\n")
		want.WriteString(bt + "," + ft + "\n")
	}
	in.WriteString("0,\n")
	want.WriteString("0.0000,\n")
	src, err := NewCSVSource(strings.NewReader(in.String()), fields, ',', nil)
	if err != nil {
		t.Fatal(err)
	}
	cells := make([]Cell, 2)
	for i, u := range unscaled {
		if err := src.Next(cells); err != nil {
			t.Fatal(err)
		}
		// Two's complement, as big.Int says: the value mod 2^(8n).
		n := len(cells[0].S)
		mod := new(big.Int).Lsh(big.NewInt(1), uint(8*n))
		exp := new(big.Int).Mod(u, mod)
		if new(big.Int).SetBytes(cells[0].S).Cmp(exp) != 0 || (u.Sign() < 0) != (n > 0 && cells[0].S[0]&0x80 != 0) {
			t.Fatalf("row %d: bytes %x for %v", i+1, cells[0].S, u)
		}
		if len(cells[1].S) != 8 {
			t.Fatalf("row %d: fixed of %d bytes", i+1, len(cells[1].S))
		}
	}
	got, err := trevniToCSV(t, toTrevni(t, in.String(), fields), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got != want.String() {
		gl, wl := strings.Split(got, "\n"), strings.Split(want.String(), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("line %d: %q, want %q", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%d lines, want %d", len(gl), len(wl))
	}

	// Nothing is rounded or cut.
	for _, tc := range []struct{ cell, want string }{
		{"1.23456", "more than 4 digits after the point"},
		{"123456789012345678901234567", "more than 26 digits before the point"},
		{"1e5", "not a decimal number"},
		{".", "not a decimal number"},
		{"1.2.3", "not a decimal number"},
	} {
		src, _ := NewCSVSource(strings.NewReader("b,f\n"+tc.cell+",\n"), fields, ',', nil)
		if err := src.Next(cells); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.cell, err, tc.want)
		}
	}
}
