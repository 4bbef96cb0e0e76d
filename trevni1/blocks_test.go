package trevni1

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
)

// blockRows writes rows of one column and returns its blocks' row counts.
func blockRows(t *testing.T, typ Type, codec string, n int, value func(i int) any) []int64 {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, []ColumnSpec{{Name: "col_1", Type: typ, MaxDef: 1}}, &WriterOptions{Codec: codec})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := w.WriteRow(value(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := rd.Verify(); err != nil {
		t.Fatal(err)
	}
	var rows []int64
	for _, b := range rd.Blocks(0) {
		rows = append(rows, b.Rows)
	}
	return rows
}

// The first-block limits of the layout's §11 table, and later blocks
// computed by its rule by hand.
func TestBlockCutting(t *testing.T) {
	fixed := func(v any) func(int) any { return func(int) any { return v } }
	for _, tc := range []struct {
		name  string
		typ   Type
		codec string
		n     int
		value func(int) any
		want  []int64
	}{
		// Fixed widths: cap = 65536/width, limit = 65536 - cap/8; cut
		// by space after limit/width values.
		{"fixed8", Fixed8, "", 60000, fixed(int8(1)), []int64{57344, 2656}},
		{"fixed16", Fixed16, "", 40000, fixed(int16(1)), []int64{30720, 9280}},
		{"float", Float, "", 20000, fixed(float32(1)), []int64{15872, 4128}},
		{"double", Double, "", 10000, fixed(1.0), []int64{8064, 1936}},
		{"timestamp", Timestamp, "", 6000, fixed(TimestampValue{1, 2}), []int64{5404, 596}},
		// Booleans: cap 262144 entries, 32768 bytes of bits: 262144 rows.
		{"boolean", Boolean, "", 262145, fixed(true), []int64{262144, 1}},
		// Ints of 5 bytes (2^30 zigzags to 2^31): block 0 has limit 61440,
		// cut when 5 + size > 61440: 12288 values. Its average, 5 bytes,
		// gives cap 13107 and limit 65536 - 1639 = 63897: 12779 values.
		{"int", Int, "", 30000, fixed(int32(1 << 30)), []int64{12288, 12779, 4933}},
		// Longs of 10 bytes: block 0 limit 63488, 10 + size > 63488 after
		// 6348 values; average 10: cap 6553, limit 64716: 6471 values.
		{"long", Long, "", 15000, fixed(int64(math.MinInt64)), []int64{6348, 6471, 2181}},
		// Strings: block 0 holds 1310 rows (its definition array is full).
		// "abc" takes 4 bytes: cap 16384, limit 63488; 5+3+size > 63488
		// after 15871 values (cap not reached).
		{"string", String, "", 20000, fixed("abc"), []int64{1310, 15871, 2819}},
		// All NULL strings: Impala divided by zero after block 0 (average 0
		// bytes a row); we take one byte: cap 65536.
		{"null strings", String, "", 70000, fixed(nil), []int64{1310, 65536, 3154}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := blockRows(t, tc.typ, tc.codec, tc.n, tc.value)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("blocks %v, want %v", got, tc.want)
			}
		})
	}
}

// With a codec, Impala's average for the next block counts the definition
// bytes too. Block 0 of strings: 1250 values "a" (2 bytes) and 60 NULLs,
// 1310 rows. Uncompressed: 2500/1310 = 1 -> cap 65536, limit 57344, so
// block 1 takes 28670 "a"s (6 + 2k > 57344). Compressed: (2500 + 164)/1310
// = 2 -> cap 32768, limit 61440: 30718.
func TestBlockCuttingCompressed(t *testing.T) {
	value := func(i int) any {
		if i < 1310 && i%21 == 20 && i/21 < 60 {
			return nil
		}
		return "a"
	}
	nulls := 0
	for i := range 1310 {
		if value(i) == nil {
			nulls++
		}
	}
	if nulls != 60 {
		t.Fatalf("%d NULLs", nulls)
	}
	if got := blockRows(t, String, "", 40000, value); got[1] != 28670 {
		t.Fatalf("uncompressed blocks %v", got)
	}
	if got := blockRows(t, String, "snappy", 40000, value); got[1] != 30718 {
		t.Fatalf("compressed blocks %v", got)
	}
}

// A string too large for any block starts its own (Impala left an empty
// block behind and crashed).
func TestBlockHugeValue(t *testing.T) {
	big := strings.Repeat("x", 100000)
	got := blockRows(t, String, "", 3, func(i int) any { return []any{big, "a", big}[i] })
	if fmt.Sprint(got) != "[1 1 1]" {
		t.Fatalf("blocks %v", got)
	}
}

// Several blocks byte for byte: a fixed8 column of 60000 rows, NULL every
// 1000th. Block 0 takes rows until 57344 values are stored (its limit,
// 65536 - 8192); the NULLs that follow the last of them stay in it, and the
// next value starts block 1. Each body is the values, then one definition
// bit per row.
func TestBlocksByteForByte(t *testing.T) {
	const n = 60000
	value := func(i int) any {
		if i%1000 == 999 {
			return nil
		}
		return int8(i)
	}
	var rows [][]any
	for i := range n {
		rows = append(rows, []any{value(i)})
	}
	stored, cut := 0, 0
	for i := range n {
		if value(i) != nil {
			if stored == 57344 {
				cut = i
				break
			}
			stored++
		}
	}
	body := func(lo, hi int) vecBlock {
		var vals, defs []byte
		defs = make([]byte, (hi-lo+7)/8)
		for i := lo; i < hi; i++ {
			if v := value(i); v != nil {
				vals = append(vals, byte(v.(int8)))
				defs[(i-lo)/8] |= 1 << ((i - lo) % 8)
			}
		}
		return vecBlock{rows: uint32(hi - lo), body: append(vals, defs...)}
	}
	want := build(n, "", []string{"fixed8"}, [][]vecBlock{{body(0, cut), body(cut, n)}})
	got := writeRows(t, specs([]string{"fixed8"}), nil, rows)
	if !bytes.Equal(got, want.b) {
		t.Fatalf("writer output differs from the layout (cut at row %d)", cut)
	}
}
