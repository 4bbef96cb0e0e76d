package format

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

// TestShortValuesRoundTrip writes strings and bytes of every length from 0
// to 40 (those of at most 16 bytes take the writer's copy without memmove),
// some of them not ASCII, in random order, as the block buffers grow and are cut, and reads every
// one back.
func TestShortValuesRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var want [][]byte
	for range 20000 {
		v := make([]byte, r.IntN(41))
		for i := range v {
			v[i] = byte('a' + r.IntN(26))
		}
		if len(v) >= 2 && r.IntN(8) == 0 {
			copy(v[r.IntN(len(v)-1):], "é") // not ASCII: checked apart
		}
		want = append(want, v)
	}
	var file bytes.Buffer
	w, err := NewWriter(&file, []ColumnMeta{{Name: "s", Type: String}, {Name: "b", Type: Bytes}}, &WriterOptions{BlockSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range want {
		w.StartRow()
		w.WriteStringBytes(0, v)
		w.WriteBytes(1, want[len(want)-1-i])
		if err := w.EndRow(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(bytes.NewReader(file.Bytes()), int64(file.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	for col := range 2 {
		cr, err := rd.Values(col)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			v := want[i]
			if col == 1 {
				v = want[len(want)-1-i]
			}
			if err := cr.StartRow(); err != nil {
				t.Fatalf("column %d, row %d: %v", col, i, err)
			}
			got, err := cr.ReadBytes()
			if err != nil {
				t.Fatalf("column %d, row %d: %v", col, i, err)
			}
			if !bytes.Equal(got, v) {
				t.Fatalf("column %d, row %d: got %q, want %q", col, i, got, v)
			}
		}
	}
}

// TestVarintsRoundTrip writes ints and longs of every bit length, of both
// signs, as the block buffers grow and are cut (varints of two to eight
// bytes take the writer's word-at-a-time path where the buffer has room),
// and reads every one back.
func TestVarintsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var longs []int64
	for range 20000 {
		v := int64(r.Uint64() >> r.IntN(64))
		if r.IntN(2) == 0 {
			v = -v
		}
		longs = append(longs, v)
	}
	longs = append(longs, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32, 63, 64, -64, -65, 8191, 8192)
	var file bytes.Buffer
	w, err := NewWriter(&file, []ColumnMeta{{Name: "l", Type: Long}, {Name: "i", Type: Int}}, &WriterOptions{BlockSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range longs {
		w.StartRow()
		w.WriteLong(0, v)
		w.WriteInt(1, int32(v))
		if err := w.EndRow(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(bytes.NewReader(file.Bytes()), int64(file.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	lc, err := rd.Values(0)
	if err != nil {
		t.Fatal(err)
	}
	ic, err := rd.Values(1)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range longs {
		if err := lc.StartRow(); err != nil {
			t.Fatal(err)
		}
		if err := ic.StartRow(); err != nil {
			t.Fatal(err)
		}
		l, err := lc.ReadLong()
		if err != nil || l != v {
			t.Fatalf("row %d: long %d, %v; want %d", i, l, err, v)
		}
		n, err := ic.ReadInt()
		if err != nil || n != int32(v) {
			t.Fatalf("row %d: int %d, %v; want %d", i, n, err, int32(v))
		}
	}
}
