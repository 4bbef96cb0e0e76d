package shred

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/trevni-go/trevni/format"
)

// mapRecord encodes a record of one field, a map of longs, in Avro
// binary: the entries in the order given, in one block.
func mapRecord(keys []string, vals []int64) []byte {
	var b []byte
	b = binary.AppendVarint(b, int64(len(keys)))
	for i, k := range keys {
		b = binary.AppendVarint(b, int64(len(k)))
		b = append(b, k...)
		b = binary.AppendVarint(b, vals[i])
	}
	if len(keys) > 0 {
		b = append(b, 0)
	}
	return b
}

// mapEntries reads back the entries of each record's map, in the order
// the file's columns hold them.
func mapEntries(t *testing.T, file []byte) (keys [][]string, vals [][]int64) {
	t.Helper()
	rd, err := format.NewReader(bytes.NewReader(file), int64(len(file)), nil)
	if err != nil {
		t.Fatal(err)
	}
	mc, err := rd.ValuesByName("m>")
	if err != nil {
		t.Fatal(err)
	}
	kc, err := rd.ValuesByName("m>key")
	if err != nil {
		t.Fatal(err)
	}
	vc, err := rd.ValuesByName("m>value")
	if err != nil {
		t.Fatal(err)
	}
	for range rd.RowCount() {
		for _, c := range []*format.ColumnReader{mc, kc, vc} {
			if err := c.StartRow(); err != nil {
				t.Fatal(err)
			}
		}
		n, err := mc.NextLength()
		if err != nil {
			t.Fatal(err)
		}
		var ks []string
		var vs []int64
		for range n {
			k, err := kc.ReadString()
			if err != nil {
				t.Fatal(err)
			}
			v, err := vc.ReadLong()
			if err != nil {
				t.Fatal(err)
			}
			ks, vs = append(ks, k), append(vs, v)
		}
		keys, vals = append(keys, ks), append(vals, vs)
	}
	return keys, vals
}

// KeepMapOrder writes a map's entries, given in Avro binary, in their
// order, the last of equal keys kept where it stands (in maps of a few
// entries, compared pairwise, and of many, found by sorting); without it
// they are sorted by key, the last of equal keys kept.
func TestKeepMapOrder(t *testing.T) {
	const text = `{"type":"record","name":"R","fields":[{"name":"m","type":{"type":"map","values":"long"}}]}`
	var many []string
	var manyVals []int64
	for i := range 20 {
		many = append(many, fmt.Sprintf("k%02d", 19-i))
		manyVals = append(manyVals, int64(i))
	}
	manyDup := append(slices.Clone(many), "k05", "k30")
	manyDupVals := append(slices.Clone(manyVals), 100, 101)
	type rec struct {
		keys []string
		vals []int64
	}
	in := []rec{
		{[]string{"b", "a", "c"}, []int64{1, 2, 3}},
		{nil, nil},
		{[]string{"x", "y", "x"}, []int64{1, 2, 3}},
		{many, manyVals},
		{manyDup, manyDupVals},
	}
	kept := []rec{
		{[]string{"b", "a", "c"}, []int64{1, 2, 3}},
		{nil, nil},
		{[]string{"y", "x"}, []int64{2, 3}},
		{many, manyVals},
		{append(slices.Delete(slices.Clone(many), 14, 15), "k05", "k30"), append(slices.Delete(slices.Clone(manyVals), 14, 15), 100, 101)},
	}
	for _, keep := range []bool{true, false} {
		var out bytes.Buffer
		aw, err := NewAvroWriter(&out, text, &Options{KeepMapOrder: keep})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range in {
			if err := aw.WriteBinary(mapRecord(r.keys, r.vals)); err != nil {
				t.Fatal(err)
			}
		}
		if err := aw.Close(); err != nil {
			t.Fatal(err)
		}
		keys, vals := mapEntries(t, out.Bytes())
		for i, r := range kept {
			wantK, wantV := r.keys, r.vals
			if !keep {
				// Sorted by key: the same entries, the last of equal keys.
				idx := make([]int, len(wantK))
				for j := range idx {
					idx[j] = j
				}
				slices.SortFunc(idx, func(a, b int) int { return bytes.Compare([]byte(wantK[a]), []byte(wantK[b])) })
				var sk []string
				var sv []int64
				for _, j := range idx {
					sk, sv = append(sk, wantK[j]), append(sv, wantV[j])
				}
				wantK, wantV = sk, sv
			}
			if !slices.Equal(keys[i], wantK) || !slices.Equal(vals[i], wantV) {
				t.Errorf("KeepMapOrder %v, record %d: %v %v, want %v %v", keep, i, keys[i], vals[i], wantK, wantV)
			}
		}
	}
}

// KeepMapOrder over random maps (0 to 40 entries drawn from a few keys, so
// that keys repeat two and more times, in maps below and above the
// pairwise limit of 8) keeps what a Go map of the last position of each
// key keeps (the way the entries were found before the sort of
// positions), in the order given.
func TestKeepMapOrderRandom(t *testing.T) {
	const text = `{"type":"record","name":"R","fields":[{"name":"m","type":{"type":"map","values":"long"}}]}`
	rng := rand.New(rand.NewPCG(38, 2))
	var inK [][]string
	var inV [][]int64
	for range 3000 {
		n := rng.IntN(41)
		alphabet := 1 + rng.IntN(2*n+1)
		var ks []string
		var vs []int64
		for range n {
			ks = append(ks, fmt.Sprintf("k%d", rng.IntN(alphabet)))
			vs = append(vs, rng.Int64N(1000))
		}
		inK, inV = append(inK, ks), append(inV, vs)
	}
	var out bytes.Buffer
	aw, err := NewAvroWriter(&out, text, &Options{KeepMapOrder: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range inK {
		if err := aw.WriteBinary(mapRecord(inK[i], inV[i])); err != nil {
			t.Fatal(err)
		}
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	keys, vals := mapEntries(t, out.Bytes())
	if len(keys) != len(inK) {
		t.Fatalf("%d records read, want %d", len(keys), len(inK))
	}
	dups := 0
	for i, ks := range inK {
		last := make(map[string]int)
		for j, k := range ks {
			last[k] = j
		}
		var wantK []string
		var wantV []int64
		for j, k := range ks {
			if last[k] == j {
				wantK, wantV = append(wantK, k), append(wantV, inV[i][j])
			}
		}
		if len(wantK) < len(ks) {
			dups++
		}
		if !slices.Equal(keys[i], wantK) || !slices.Equal(vals[i], wantV) {
			t.Fatalf("record %d (%v %v): %v %v, want %v %v", i, ks, inV[i], keys[i], vals[i], wantK, wantV)
		}
	}
	if dups < 1000 {
		t.Fatalf("only %d of %d random maps had equal keys", dups, len(inK))
	}
}

// BenchmarkMapOrder writes records of one map of n entries given out of
// key order (as Parquet's MAP columns come to fromparquet) with the
// entries sorted by key (the default) and kept in their order
// (KeepMapOrder), without and with a key given twice: the cost of the
// duplicate check that keeping the order needs (a pairwise compare up to
// 8 entries, a sort of keys with their positions above and where a key
// repeats) against that of sorting. 2048 records a writer, so that making
// and closing the writer weighs little; the allocations per op are the
// writer's own, the same with and without a repeated key (none a record).
func BenchmarkMapOrder(b *testing.B) {
	const text = `{"type":"record","name":"R","fields":[{"name":"m","type":{"type":"map","values":"long"}}]}`
	for _, n := range []int{4, 32, 256} {
		for _, dup := range []bool{false, true} {
			var recs [][]byte
			for r := range 2048 {
				keys := make([]string, n)
				vals := make([]int64, n)
				for i := range n {
					keys[i] = fmt.Sprintf("key%05d", (i*7919+r)%n) // a permutation, out of order
					vals[i] = int64(i)
				}
				if dup {
					keys[n-1] = keys[0]
				}
				recs = append(recs, mapRecord(keys, vals))
			}
			var size int64
			for _, r := range recs {
				size += int64(len(r))
			}
			for _, keep := range []bool{false, true} {
				name := fmt.Sprintf("entries=%d/dup=%v/keep=%v", n, dup, keep)
				b.Run(name, func(b *testing.B) {
					b.SetBytes(size)
					b.ReportAllocs()
					for b.Loop() {
						aw, err := NewAvroWriter(io.Discard, text, &Options{KeepMapOrder: keep})
						if err != nil {
							b.Fatal(err)
						}
						for _, r := range recs {
							if err := aw.WriteBinary(r); err != nil {
								b.Fatal(err)
							}
						}
						if err := aw.Close(); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
