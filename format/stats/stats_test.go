package stats_test

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/format/stats"
)

// The package numbers types as package format does.
func TestTypeNumbers(t *testing.T) {
	for ft := format.Null; ft <= format.Bytes; ft++ {
		if got := stats.Type(ft).String(); got != ft.String() {
			t.Errorf("type %d: stats says %q, format %q", ft, got, ft.String())
		}
	}
	if stats.Type(format.Bytes + 1).Valid() {
		t.Error("type past bytes is valid")
	}
}

// within reports whether value v (of the Go type the Add method takes)
// lies within b's bounds.
func within(t stats.Type, b *stats.Block, v any) bool {
	switch v := v.(type) {
	case bool:
		i := int64(0)
		if v {
			i = 1
		}
		return b.HasBounds && b.MinInt <= i && i <= b.MaxInt
	case int64:
		return b.HasBounds && b.MinInt <= v && v <= b.MaxInt
	case float64:
		if v != v {
			return b.NaN
		}
		return b.HasBounds && b.MinFloat <= v && v <= b.MaxFloat
	case string:
		return b.HasBounds && string(b.MinBytes) <= v && (b.NoMax || v <= string(b.MaxBytes))
	}
	panic("unknown value")
}

func randValue(r *rand.Rand, t stats.Type) any {
	switch t {
	case stats.Boolean:
		return r.IntN(2) == 1
	case stats.Int:
		return int64(int32(r.Uint32() >> r.IntN(32)))
	case stats.Long:
		return int64(r.Uint64() >> r.IntN(64))
	case stats.Float, stats.Double:
		switch r.IntN(8) {
		case 0:
			return math.NaN()
		case 1:
			return math.Copysign(0, -1)
		case 2:
			return 0.0
		case 3:
			return math.Inf(1 - 2*r.IntN(2))
		}
		f := r.NormFloat64() * 1e3
		if t == stats.Float {
			f = float64(float32(f))
		}
		return f
	default:
		n := r.IntN(12)
		if r.IntN(4) == 0 {
			n = 4 + r.IntN(8)
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = []byte{0, 1, 'a', 'b', 0xfe, 0xff}[r.IntN(6)]
		}
		return string(b)
	}
}

func add(a *stats.Accumulator, t stats.Type, v any, asBytes bool) {
	switch v := v.(type) {
	case bool:
		a.AddBool(v)
	case int64:
		if t == stats.Int {
			a.AddInt(int32(v))
		} else {
			a.AddLong(v)
		}
	case float64:
		if t == stats.Float {
			a.AddFloat(float32(v))
		} else {
			a.AddDouble(v)
		}
	case string:
		if asBytes {
			a.AddBytes([]byte(v))
		} else {
			a.AddString(v)
		}
	}
}

// Over random blocks of every type, with a short MaxLen so that bounds are
// often cut: every value lies within its block's bounds, counts are
// exact, the encoding decodes to what was gathered, merged blocks bound
// both, and exact bounds are values that were added (aborted rows' values
// may widen the bounds).
func TestBoundsProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	types := []stats.Type{stats.Boolean, stats.Int, stats.Long, stats.Float, stats.Double, stats.String, stats.Bytes}
	for iter := 0; iter < 3000; iter++ {
		typ := types[r.IntN(len(types))]
		acc, err := stats.NewAccumulator(typ, true, &stats.Options{MaxLen: 1 + r.IntN(6)})
		if err != nil {
			t.Fatal(err)
		}
		var blocks, tried [][]any // values kept; values added, aborted rows' too
		var gathered []stats.Block
		for nb := r.IntN(4); nb >= 0; nb-- {
			var vals, all []any
			var lengths, nonEmpty int64
			for n := r.IntN(10); n > 0; n-- {
				acc.Mark()
				l := r.IntN(3)
				acc.AddLength(l)
				var row []any
				for j := 0; j < l; j++ {
					v := randValue(r, typ)
					add(acc, typ, v, r.IntN(2) == 0)
					row = append(row, v)
				}
				all = append(all, row...)
				if r.IntN(10) == 0 {
					acc.Rollback()
					continue
				}
				lengths++
				if l > 0 {
					nonEmpty++
				}
				vals = append(vals, row...)
			}
			cur := acc.Current(int64(len(vals)))
			cur.MinBytes = bytes.Clone(cur.MinBytes)
			cur.MaxBytes = bytes.Clone(cur.MaxBytes)
			acc.EndBlock(int64(len(vals)))
			gathered = append(gathered, cur)
			blocks = append(blocks, vals)
			tried = append(tried, all)
			if cur.Values != int64(len(vals)) || cur.Lengths != lengths || cur.NonEmpty != nonEmpty {
				t.Fatalf("iter %d: counts %d/%d/%d, want %d/%d/%d", iter, cur.Values, cur.Lengths, cur.NonEmpty, len(vals), lengths, nonEmpty)
			}
		}
		col, err := stats.Decode(acc.Encode())
		if err != nil {
			t.Fatalf("iter %d: %v", iter, err)
		}
		if col.Type != typ || !col.Array || len(col.Blocks) != len(blocks) {
			t.Fatalf("iter %d: decoded %v %v %d blocks", iter, col.Type, col.Array, len(col.Blocks))
		}
		merged := stats.Block{}
		for i, vals := range blocks {
			b := &col.Blocks[i]
			if !equalBlock(b, &gathered[i]) {
				t.Fatalf("iter %d block %d: decoded %+v, gathered %+v", iter, i, *b, gathered[i])
			}
			for _, v := range vals {
				if !within(typ, b, v) {
					t.Fatalf("iter %d block %d (%v): value %q outside %+v", iter, i, typ, v, *b)
				}
			}
			if typ.IsFloat() && b.HasBounds && (b.MinFloat == 0 && !math.Signbit(b.MinFloat) || b.MaxFloat == 0 && math.Signbit(b.MaxFloat)) {
				t.Fatalf("iter %d: zero bounds not -0 and +0: %+v", iter, *b)
			}
			if typ.IsBytes() && b.HasBounds && !b.MinInexact && !contains(tried[i], string(b.MinBytes)) {
				t.Fatalf("iter %d: exact minimum %q is no value of %q", iter, b.MinBytes, vals)
			}
			if typ.IsBytes() && b.HasBounds && !b.MaxInexact && !contains(tried[i], string(b.MaxBytes)) {
				t.Fatalf("iter %d: exact maximum %q is no value of %q", iter, b.MaxBytes, vals)
			}
			merged = stats.Merge(typ, merged, *b)
		}
		for i, vals := range blocks {
			for _, v := range vals {
				if !within(typ, &merged, v) {
					t.Fatalf("iter %d block %d: value %q outside merged %+v", iter, i, v, merged)
				}
			}
		}
		if again := stats.Encode(col); !bytes.Equal(again, acc.Encode()) {
			t.Fatalf("iter %d: re-encoding differs", iter)
		}
	}
}

func contains(vals []any, s string) bool {
	for _, v := range vals {
		if v == s {
			return true
		}
	}
	return false
}

func equalBlock(a, b *stats.Block) bool {
	x, y := *a, *b
	if !bytes.Equal(x.MinBytes, y.MinBytes) || !bytes.Equal(x.MaxBytes, y.MaxBytes) {
		return false
	}
	x.MinBytes, x.MaxBytes, y.MinBytes, y.MaxBytes = nil, nil, nil, nil
	fx := math.Float64bits(x.MinFloat) == math.Float64bits(y.MinFloat) && math.Float64bits(x.MaxFloat) == math.Float64bits(y.MaxFloat)
	x.MinFloat, x.MaxFloat, y.MinFloat, y.MaxFloat = 0, 0, 0, 0
	return fx && reflect.DeepEqual(x, y)
}

// Cases worth naming.
func TestEdgeCases(t *testing.T) {
	block := func(typ stats.Type, maxLen int, add func(a *stats.Accumulator)) stats.Block {
		t.Helper()
		a, err := stats.NewAccumulator(typ, false, &stats.Options{MaxLen: maxLen})
		if err != nil {
			t.Fatal(err)
		}
		add(a)
		a.EndBlock(1)
		c, err := stats.Decode(a.Encode())
		if err != nil {
			t.Fatal(err)
		}
		return c.Blocks[0]
	}
	b := block(stats.Double, 0, func(a *stats.Accumulator) { a.AddDouble(math.NaN()); a.AddDouble(math.NaN()) })
	if !b.NaN || b.HasBounds || b.Values != 2 {
		t.Errorf("NaNs only: %+v", b)
	}
	b = block(stats.Float, 0, func(a *stats.Accumulator) { a.AddFloat(0); a.AddFloat(float32(math.Copysign(0, -1))) })
	if !math.Signbit(b.MinFloat) || math.Signbit(b.MaxFloat) || b.MinFloat != 0 || b.MaxFloat != 0 {
		t.Errorf("zeros: %+v", b)
	}
	b = block(stats.String, 0, func(a *stats.Accumulator) { a.AddString(""); a.AddString("b") })
	if !b.HasBounds || len(b.MinBytes) != 0 || string(b.MaxBytes) != "b" || b.MinInexact || b.MaxInexact {
		t.Errorf("empty string: %+v", b)
	}
	b = block(stats.Bytes, 0, func(a *stats.Accumulator) { a.AddBytes([]byte{0x7f}); a.AddBytes([]byte{0x80}) })
	if b.MinBytes[0] != 0x7f || b.MaxBytes[0] != 0x80 {
		t.Errorf("unsigned bytes: %+v", b)
	}
	huge := strings.Repeat("x", 1<<20)
	b = block(stats.String, 0, func(a *stats.Accumulator) { a.AddString(huge) })
	if string(b.MinBytes) != huge[:64] || !b.MinInexact || string(b.MaxBytes) != huge[:63]+"y" || !b.MaxInexact {
		t.Errorf("huge string: min %q max %q", b.MinBytes, b.MaxBytes)
	}
	b = block(stats.Bytes, 2, func(a *stats.Accumulator) { a.AddBytes([]byte{0xff, 0xff, 0}) })
	if !b.NoMax || !b.MaxInexact || b.MaxBytes != nil {
		t.Errorf("0xff prefix: %+v", b)
	}
	b = block(stats.Bytes, 2, func(a *stats.Accumulator) { a.AddBytes([]byte{1, 0xff, 0}) })
	if string(b.MaxBytes) != "\x02" {
		t.Errorf("round up past 0xff: %q", b.MaxBytes)
	}
	b = block(stats.Boolean, 0, func(a *stats.Accumulator) { a.AddBool(true); a.AddBool(true) })
	if b.MinInt != 1 || b.MaxInt != 1 {
		t.Errorf("booleans: %+v", b)
	}
	b = block(stats.Int, 0, func(a *stats.Accumulator) { a.AddValue(int32(-3)); a.AddValue(int32(9)); a.AddValue(struct{}{}) })
	if b.MinInt != -3 || b.MaxInt != 9 || b.Values != 3 {
		t.Errorf("AddValue: %+v", b)
	}
	b = block(stats.Null, 0, func(a *stats.Accumulator) { a.AddNull() })
	if b.HasBounds || b.Values != 1 {
		t.Errorf("null: %+v", b)
	}
}

// The encoding, byte by byte, as docs/filters.md documents it.
func TestEncodingBytes(t *testing.T) {
	a, _ := stats.NewAccumulator(stats.String, true, nil)
	a.AddLength(1)
	a.AddString("ab")
	a.AddLength(0)
	a.EndBlock(2)
	a.AddLength(0)
	a.EndBlock(1)
	want := []byte{
		1, 8, 1, 2, // version, type string, array, 2 blocks
		0x01, 2, 2, 1, 1, 2, 'a', 'b', 2, 'a', 'b', // bounds; rows 2; lengths 2, non-empty 1; 1 value; "ab", "ab"
		0x00, 1, 1, 0, 0, // no bounds; rows 1; lengths 1, non-empty 0; no values
	}
	if got := a.Encode(); !bytes.Equal(got, want) {
		t.Errorf("got % x\nwant % x", got, want)
	}
	l, _ := stats.NewAccumulator(stats.Long, false, nil)
	l.AddLong(-1)
	l.AddLong(64)
	l.EndBlock(2)
	want = []byte{1, 3, 0, 1, 0x01, 2, 2, 0x01, 0x80, 0x01}
	if got := l.Encode(); !bytes.Equal(got, want) {
		t.Errorf("long: got % x, want % x", got, want)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		want string
	}{
		{nil, "truncated version at byte 0"},
		{[]byte{2, 3, 0, 0}, "unknown version 2 at byte 0"},
		{[]byte{1, 10, 0, 0}, "unknown type 10 at byte 1"},
		{[]byte{1, 3, 2, 0}, "unknown header flags 0x2 at byte 2"},
		{[]byte{1, 3, 0, 0xff, 0xff, 0xff, 0xff, 0x0f}, "exceeds the bytes that follow"},
		{[]byte{1, 3, 0, 1, 0x01, 1, 1, 4, 2}, "minimum above maximum at byte 4"},
		{[]byte{1, 3, 0, 1, 0x10, 1, 1}, "NaN in a long column at byte 4"},
		{[]byte{1, 7, 0, 1, 0x11, 1, 1, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f}, "minimum above maximum"},
		{[]byte{1, 8, 0, 1, 0x01, 1, 1, 9, 'a'}, "bound length too large"},
		{[]byte{1, 3, 0, 1, 0x00, 1, 0, 7}, "1 bytes after the last block"},
		{[]byte{1, 3, 1, 1, 0x00, 1, 1, 2, 0}, "more non-empty lengths than lengths"},
	} {
		_, err := stats.Decode(c.in)
		if err == nil || !errors.Is(err, stats.ErrCorrupt) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Decode(% x) = %v, want %q", c.in, err, c.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	a, _ := stats.NewAccumulator(stats.String, true, nil)
	a.AddLength(1)
	a.AddString("hello")
	a.EndBlock(1)
	f.Add(a.Encode())
	f.Add([]byte{1, 7, 0, 1, 0x11, 1, 2, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := stats.Decode(b)
		if err != nil {
			return
		}
		// Varints may be written longer than needed; otherwise the
		// encoding is canonical.
		enc := stats.Encode(c)
		c2, err := stats.Decode(enc)
		if err != nil {
			t.Fatalf("re-encoded % x: %v", enc, err)
		}
		if again := stats.Encode(c2); !bytes.Equal(again, enc) || len(enc) > len(b) {
			t.Fatalf("% x decoded and encoded: % x then % x", b, enc, again)
		}
	})
}

func TestFromFirstValues(t *testing.T) {
	bs := stats.FromFirstValues(stats.Long, []int64{2, 3, 1}, []any{int64(1), int64(5), int64(5)})
	if len(bs) != 3 || bs[0].MinInt != 1 || bs[0].MaxInt != 5 || bs[1].MinInt != 5 || bs[1].MaxInt != 5 ||
		bs[2].MinInt != 5 || bs[2].MaxInt != math.MaxInt64 || bs[0].Values != 2 {
		t.Errorf("longs: %+v", bs)
	}
	if bs := stats.FromFirstValues(stats.Long, []int64{1, 1}, []any{int64(2), int64(1)}); bs != nil {
		t.Errorf("decreasing first values: %+v", bs)
	}
	if bs := stats.FromFirstValues(stats.Long, []int64{1}, []any{int32(2)}); bs != nil {
		t.Errorf("wrong type: %+v", bs)
	}
	bs = stats.FromFirstValues(stats.String, []int64{1, 1}, []any{"a", "b"})
	if string(bs[0].MinBytes) != "a" || string(bs[0].MaxBytes) != "b" || !bs[1].NoMax {
		t.Errorf("strings: %+v", bs)
	}
	bs = stats.FromFirstValues(stats.Double, []int64{1}, []any{0.0})
	if !bs[0].NaN || !math.Signbit(bs[0].MinFloat) || !math.IsInf(bs[0].MaxFloat, 1) {
		t.Errorf("doubles: %+v", bs)
	}
	// They encode and decode like gathered statistics.
	if _, err := stats.Decode(stats.Encode(&stats.Column{Type: stats.String, Blocks: stats.FromFirstValues(stats.String, []int64{1, 1}, []any{"a", "b"})})); err != nil {
		t.Error(err)
	}
}

// TestAddBytesWithin checks that settling values in line with
// AddBytesWithin, and passing the rest to AddBytes, gathers the very
// statistics AddString gathers, over random strings of a few first bytes
// (so that the in-line case and both slow cases all occur), empty ones,
// long ones past MaxLen, aborted rows and block ends.
func TestAddBytesWithin(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for iter := range 200 {
		opts := &stats.Options{MaxLen: 1 + r.IntN(6)}
		plain, err := stats.NewAccumulator(stats.String, false, opts)
		if err != nil {
			t.Fatal(err)
		}
		split, _ := stats.NewAccumulator(stats.String, false, opts)
		for block := range 1 + r.IntN(4) {
			for range r.IntN(50) {
				plain.Mark()
				split.Mark()
				for range 1 + r.IntN(3) {
					v := make([]byte, r.IntN(9))
					for i := range v {
						v[i] = "abcxyz\xff\x00"[r.IntN(8)]
					}
					plain.AddString(string(v))
					if !split.AddBytesWithin(v) {
						split.AddBytes(v)
					}
				}
				if r.IntN(5) == 0 {
					plain.Rollback()
					split.Rollback()
				}
			}
			plain.EndBlock(int64(block))
			split.EndBlock(int64(block))
		}
		if !bytes.Equal(plain.Encode(), split.Encode()) {
			t.Fatalf("iteration %d: statistics differ", iter)
		}
	}
}
