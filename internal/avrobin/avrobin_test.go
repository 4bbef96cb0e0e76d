package avrobin

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestConsumeLong checks ConsumeLong and SkipLong against encoding/binary,
// whose Varint is Avro's long: every length from 1 to 10 bytes, at every
// distance from the end of the data (the 8-byte step and the byte loop),
// and random bytes, overlong, overflowing and truncated ones included.
func TestConsumeLong(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	check := func(b []byte) {
		got, n := ConsumeLong(b)
		skip := SkipLong(b)
		want, wn := binary.Varint(b)
		switch {
		case wn > 0:
			if n != wn || got != want || skip != wn {
				t.Fatalf("% x: got %d of %d bytes (skip %d), want %d of %d", b, got, n, skip, want, wn)
			}
		case wn == 0: // truncated
			if n != errCodeTruncated || skip != errCodeTruncated {
				t.Fatalf("% x: got %d, %d (skip %d), want truncated", b, got, n, skip)
			}
		case wn == -MaxVarintLen: // a tenth byte above 1
			if n != errCodeOverflow || skip != errCodeOverflow {
				t.Fatalf("% x: got %d, %d (skip %d), want an overflow", b, got, n, skip)
			}
		default: // more than 10 bytes
			if n != errCodeOverlong || skip != errCodeOverlong {
				t.Fatalf("% x: got %d, %d (skip %d), want overlong", b, got, n, skip)
			}
		}
		if n < 0 && got != 0 {
			t.Fatalf("% x: error %d with the value %d", b, n, got)
		}
	}
	for range 200000 {
		var v int64
		switch r.IntN(4) {
		case 0:
			v = int64(r.Uint64())
		case 1:
			v = int64(r.Uint64() >> r.IntN(64))
		case 2:
			v = -int64(r.Uint64() >> r.IntN(64))
		default:
			v = []int64{0, -1, 1, math.MaxInt64, math.MinInt64, 63, -64, 64, -65}[r.IntN(9)]
		}
		b := AppendLong(nil, v)
		if w := binary.AppendVarint(nil, v); !bytes.Equal(b, w) {
			t.Fatalf("AppendLong(%d) = % x, want % x", v, b, w)
		}
		pad := r.IntN(10)
		for range pad {
			b = append(b, byte(r.Uint32()))
		}
		check(b)
		check(b[:len(b)-pad-r.IntN(len(b)-pad)]) // truncated, or whole when 0 cut
		raw := make([]byte, r.IntN(14))
		for i := range raw {
			raw[i] = byte(r.Uint32()) | byte(r.IntN(2))<<7
		}
		check(raw)
	}
}

func TestConsumeInt(t *testing.T) {
	for _, tc := range []struct {
		v  int64
		ok bool
	}{{0, true}, {math.MaxInt32, true}, {math.MinInt32, true}, {math.MaxInt32 + 1, false}, {math.MinInt32 - 1, false}, {math.MinInt64, false}} {
		b := AppendLong(nil, tc.v)
		got, n := ConsumeInt(b)
		if tc.ok && (n != len(b) || int64(got) != tc.v) || !tc.ok && !errors.Is(ParseError(n), ErrIntRange) {
			t.Errorf("%d: got %d, %d", tc.v, got, n)
		}
	}
}

// long appends longs.
func long(b []byte, vs ...int64) []byte {
	for _, v := range vs {
		b = AppendLong(b, v)
	}
	return b
}

func TestConsumeBytes(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		want string // the bytes, or the error's text
		n    int
	}{
		{"empty", long(nil, 0), "", 1},
		{"short", append(long(nil, 3), "abcd"...), "abc", 4},
		{"a length of two bytes", append(long(nil, 100), bytes.Repeat([]byte("x"), 100)...), string(bytes.Repeat([]byte("x"), 100)), 102},
		{"negative length", append(long(nil, -1), "abcd"...), ErrLength.Error(), -1},
		{"length past the end", append(long(nil, 5), "abcd"...), ErrLength.Error(), -1},
		{"length 2^62", append(long(nil, 1<<62), "abcd"...), ErrLength.Error(), -1},
		{"no length", nil, ErrTruncated.Error(), -1},
		{"truncated length", []byte{0x80}, ErrTruncated.Error(), -1},
	} {
		got, n := ConsumeBytes(tc.in)
		if tc.n < 0 {
			if n >= 0 || ParseError(n).Error() != tc.want || got != nil {
				t.Errorf("%s: got %q, %d (%v), want %s", tc.name, got, n, ParseError(n), tc.want)
			}
			continue
		}
		if n != tc.n || string(got) != tc.want || cap(got) != len(got) {
			t.Errorf("%s: got %q, %d, want %q, %d", tc.name, got, n, tc.want, tc.n)
		}
		if s := AppendString(nil, tc.want); !bytes.Equal(s, tc.in[:tc.n]) || !bytes.Equal(AppendBytes(nil, []byte(tc.want)), s) {
			t.Errorf("%s: appended % x", tc.name, s)
		}
	}
}

func TestConsumeBlockCount(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    []byte
		count int64
		n     int // or an error code
	}{
		{"end", long(nil, 0), 0, 1},
		{"positive", long(nil, 3, 7), 3, 1},
		{"positive of two bytes", long(nil, 1000), 1000, 2},
		{"negative, with its size", append(long(nil, -2, 4), 1, 2, 3, 4), 2, 2},
		{"negative, the size of all that is left", append(long(nil, -300, 3), 1, 2, 3), 300, 3},
		{"negative, the size past the end", append(long(nil, -2, 5), 1, 2, 3, 4), 0, errCodeBlockSize},
		{"negative, a negative size", append(long(nil, -2, -1), 1, 2, 3, 4), 0, errCodeBlockSize},
		{"negative, no size", long(nil, -2), 0, errCodeTruncated},
		{"negative, a truncated size", append(long(nil, -2), 0x80), 0, errCodeTruncated},
		{"the most negative count", long(nil, math.MinInt64, 0), 0, errCodeBlockCount},
		{"the most negative count but one", long(nil, math.MinInt64+1, 0), math.MaxInt64, 11},
		{"nothing", nil, 0, errCodeTruncated},
		{"overlong", bytes.Repeat([]byte{0xff}, 11), 0, errCodeOverlong},
	} {
		c, n := ConsumeBlockCount(tc.in)
		if c != tc.count || n != tc.n {
			t.Errorf("%s (% x): got %d, %d (%v), want %d, %d", tc.name, tc.in, c, n, ParseError(n), tc.count, tc.n)
		}
	}
}

func TestFloats(t *testing.T) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1.5, math.Inf(-1), math.NaN(), math.MaxFloat64, math.SmallestNonzeroFloat64} {
		b := AppendDouble(nil, v)
		got, n := ConsumeDouble(b)
		if n != 8 || math.Float64bits(got) != math.Float64bits(v) {
			t.Errorf("double %v: got %v, %d", v, got, n)
		}
		if _, n := ConsumeDouble(b[:7]); n != errCodeTruncated {
			t.Errorf("double %v of 7 bytes: %d", v, n)
		}
		f := float32(v)
		b = AppendFloat(nil, f)
		gf, n := ConsumeFloat(b)
		if n != 4 || math.Float32bits(gf) != math.Float32bits(f) {
			t.Errorf("float %v: got %v, %d", f, gf, n)
		}
		if _, n := ConsumeFloat(b[:3]); n != errCodeTruncated {
			t.Errorf("float %v of 3 bytes: %d", f, n)
		}
	}
}

func TestParseError(t *testing.T) {
	if ParseError(0) != nil || ParseError(5) != nil {
		t.Error("an error for a length")
	}
	seen := map[error]bool{}
	for n := -1; n >= errCodeBlockSize; n-- {
		err := ParseError(n)
		if err == nil || err == errUnknown || seen[err] {
			t.Errorf("code %d: %v", n, err)
		}
		seen[err] = true
	}
	if ParseError(errCodeBlockSize-1) != errUnknown {
		t.Error("an unknown code has a known error")
	}
}
