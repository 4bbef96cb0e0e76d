package jsontext

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestAppendFloatJava checks values against what Java 25's
// Double.toString and Float.toString print for them (run on the same bit
// patterns; Java 17 agrees except on 2 × and 20 × Double.MIN_VALUE, which
// it prints 1.0E-323 and 1.0E-322, and Float.MIN_NORMAL, 1.17549435E-38).
func TestAppendFloatJava(t *testing.T) {
	doubles := []struct {
		bits uint64
		java string
	}{
		{0, "0.0"}, {1 << 63, "-0.0"}, {4607182418800017408, "1.0"}, {0xbff0000000000000, "-1.0"},
		{4652539472469032960, "1097.0"}, {4562254508917369340, "0.001"}, {4562208392057185066, "9.9E-4"},
		{4711630319185297408, "9999999.0"}, {4711630319722168320, "1.0E7"}, {118622047889322841, "1.0E-300"},
		{1, "4.9E-324"}, {4503599627370496, "2.2250738585072014E-308"}, {9218868437227405311, "1.7976931348623157E308"},
		{4962933279127225623, "6.02214076E23"}, {4591870180066957722, "0.1"}, {4683220299150161609, "123456.789"},
		{0xbeef75104d551d69, "-1.5E-5"}, {4921056587992461136, "1.0E21"}, {4936209963552724370, "1.0E22"},
		{4636737291354636288, "100.0"}, {4567911030049346683, "0.0025"}, {4712889646492470477, "1.23456789E7"},
		{2, "9.9E-324"}, {3, "1.5E-323"}, {4, "2.0E-323"}, {20, "9.9E-323"}, {2024, "1.0E-320"},
		{4940713563180094866, "2.0E22"}, {4542503522391573293, "5.0E-5"}, {4464366475030941260, "3.0E-10"},
		{9109340329147925583, "9.0E300"},
	}
	for _, c := range doubles {
		f := math.Float64frombits(c.bits)
		if got := string(AppendFloat(nil, f, 64)); got != c.java {
			t.Errorf("double %v: %s, Java prints %s", f, got, c.java)
		}
	}
	floats := []struct {
		bits uint32
		java string
	}{
		{0, "0.0"}, {1 << 31, "-0.0"}, {1065353216, "1.0"}, {1149837312, "1097.0"}, {1, "1.4E-45"},
		{2139095039, "3.4028235E38"}, {1036831949, "0.1"}, {1266679808, "1.6777216E7"}, {1259902592, "1.0E7"},
		{1259902591, "9999999.0"}, {981668463, "0.001"}, {925353388, "1.0E-5"}, {0xc4807c00, "-1027.875"},
		{1078530000, "3.14159"}, {8388608, "1.1754944E-38"}, {2, "2.8E-45"}, {3, "4.2E-45"}, {7, "9.8E-45"},
		{71362, "1.0E-40"}, {1630370028, "2.0E20"}, {944879383, "5.0E-5"}, {799337791, "3.0E-10"},
		{1371161527, "1.0E11"}, {3722142572, "-1.9760747E18"},
	}
	for _, c := range floats {
		f := math.Float32frombits(c.bits)
		if got := string(AppendFloat(nil, float64(f), 32)); got != c.java {
			t.Errorf("float %v: %s, Java prints %s", f, got, c.java)
		}
	}
	for f, want := range map[float64]string{math.NaN(): `"NaN"`, math.Inf(1): `"Infinity"`, math.Inf(-1): `"-Infinity"`} {
		for _, bits := range []int{32, 64} {
			if got := string(AppendFloat(nil, f, bits)); got != want {
				t.Errorf("%v (%d bits): %s, want %s", f, bits, got, want)
			}
		}
	}
}

// TestAppendFloatRandom: over random bit patterns, the text reads back as
// the same value at its size, always has a fractional digit, and is in
// plain notation exactly from 10^-3 up to 10^7, as Java's is.
func TestAppendFloatRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		bits := 64
		f := math.Float64frombits(r.Uint64())
		if r.IntN(2) == 0 {
			bits = 32
			f = float64(math.Float32frombits(r.Uint32()))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		s := string(AppendFloat(nil, f, bits))
		back, err := strconv.ParseFloat(strings.Replace(s, "E", "e", 1), bits)
		if err != nil || back != f || math.Signbit(back) != math.Signbit(f) {
			t.Fatalf("%v (%d bits) written %s, read back %v, %v", f, bits, s, back, err)
		}
		mant, _, sci := strings.Cut(s, "E")
		if !strings.Contains(mant, ".") || strings.HasSuffix(mant, ".") {
			t.Fatalf("%v (%d bits) written %s: no fractional digit", f, bits, s)
		}
		if abs := math.Abs(f); sci != (abs != 0 && (abs < 1e-3 || abs >= 1e7)) {
			t.Fatalf("%v (%d bits) written %s: wrong notation", f, bits, s)
		}
	}
}

// BenchmarkAppendFloat writes floats of the kinds data sets hold: short
// binary fractions, integers, random doubles, tiny and huge values.
func BenchmarkAppendFloat(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	var vals []float64
	for range 1000 {
		vals = append(vals, float64(r.IntN(4096)-2048)/8, float64(r.IntN(100000)), r.NormFloat64()*1000, math.Ldexp(r.Float64(), r.IntN(2000)-1000))
	}
	for _, bits := range []int{32, 64} {
		b.Run(strconv.Itoa(bits), func(b *testing.B) {
			b.ReportAllocs()
			var buf []byte
			for i := 0; i < b.N; i++ {
				for _, v := range vals {
					if bits == 32 {
						v = float64(float32(v))
					}
					buf = AppendFloat(buf[:0], v, bits)
				}
			}
		})
	}
}
