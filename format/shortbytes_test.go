package format

import (
	"bytes"
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
