package format_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/shred"
)

// commonEnds computes by brute force the rows where every column has a
// block end: a set per column, intersected.
func commonEnds(t *testing.T, rd *format.Reader) []int64 {
	t.Helper()
	count := map[int64]int{}
	for i := range rd.NumColumns() {
		blocks, err := rd.Blocks(i)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int64]bool{}
		for _, b := range blocks {
			if e := b.FirstRow + b.Rows; b.Rows > 0 && !seen[e] {
				seen[e] = true
				count[e]++
			}
		}
	}
	var out []int64
	for e, n := range count {
		if n == rd.NumColumns() {
			out = append(out, e)
		}
	}
	slices.Sort(out)
	return out
}

// sliceFiles are files to cut: Java's, and ours with small blocks, user
// metadata and statistics.
func sliceFiles(t *testing.T) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	names, _ := filepath.Glob(filepath.Join(concatInterop, "*", "*.trv"))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		files[n] = b
	}
	_, _, recs, schemaText := emailParts(t)
	for k, o := range []format.WriterOptions{
		{Codec: "null", Checksum: "crc32", BlockSize: 1},
		{Codec: "deflate", BlockSize: 64},
		{Codec: "snappy", Checksum: "crc32", BlockSize: 1},
	} {
		o.Meta.SetString("user.owner", "team-a")
		o.Meta.Set("user.blob", []byte{0, 1, 2})
		var buf bytes.Buffer
		aw, err := shred.NewAvroWriter(&buf, schemaText, &shred.Options{WriterOptions: o})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if err := aw.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := aw.Close(); err != nil {
			t.Fatal(err)
		}
		files[filepath.Join("ours", string(rune('a'+k)))] = buf.Bytes()
	}
	return files
}

// TestSliceByBlocks cuts files at random rows of BlockEnds (which agrees
// with brute force) and checks that each part holds, as stored, the
// input's blocks of its rows (the compressed bytes equal), the input's
// file metadata, and its records; that Concat of the parts gives the
// input back byte for byte (with right CRC-32s, as Concat writes them);
// and that a cut off the block ends is refused.
func TestSliceByBlocks(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	cutFiles := 0
	for name, b := range sliceFiles(t) {
		rd := openBytes(t, b)
		ends, err := rd.BlockEnds()
		if err != nil {
			t.Fatal(err)
		}
		if want := commonEnds(t, rd); !slices.Equal(ends, want) {
			t.Fatalf("%s: BlockEnds %v, brute force %v", name, ends, want)
		}
		if rd.RowCount() > 0 && (len(ends) == 0 || ends[len(ends)-1] != rd.RowCount()) {
			t.Fatalf("%s: BlockEnds %v do not end at the row count %d", name, ends, rd.RowCount())
		}
		cuts := []int64{0}
		for _, e := range ends {
			if e == rd.RowCount() || r.IntN(3) == 0 {
				cuts = append(cuts, e)
			}
		}
		if len(cuts) > 2 {
			cutFiles++
		}
		if len(cuts) == 1 {
			cuts = append(cuts, 0) // a file of no rows: one empty part
		}
		var parts [][]byte
		var recs []string
		for k := 0; k+1 < len(cuts); k++ {
			view, err := rd.Slice(cuts[k], cuts[k+1]-cuts[k])
			if err != nil {
				t.Fatalf("%s: Slice(%d, %d): %v", name, cuts[k], cuts[k+1]-cuts[k], err)
			}
			var out bytes.Buffer
			if _, err := format.Concat(context.Background(), &out, []*format.Reader{view}, nil); err != nil {
				t.Fatalf("%s: part %d: %v", name, k, err)
			}
			part := openBytes(t, out.Bytes())
			if part.RowCount() != cuts[k+1]-cuts[k] {
				t.Fatalf("%s: part %d has %d rows, want %d", name, k, part.RowCount(), cuts[k+1]-cuts[k])
			}
			if !sameMeta(part.Meta(), rd.Meta()) {
				t.Fatalf("%s: part %d's file metadata differs from the input's", name, k)
			}
			for i := range rd.NumColumns() {
				in, _ := rd.Blocks(i)
				got, _ := part.Blocks(i)
				var want []format.BlockInfo
				for _, bi := range in {
					if bi.FirstRow >= cuts[k] && bi.FirstRow < cuts[k+1] {
						want = append(want, bi)
					}
				}
				if len(got) != len(want) {
					t.Fatalf("%s: part %d column %d: %d blocks, want %d", name, k, i, len(got), len(want))
				}
				pb := out.Bytes()
				for j := range got {
					g, w := got[j], want[j]
					if g.Rows != w.Rows || g.FirstRow != w.FirstRow-cuts[k] || !bytes.Equal(pb[g.Offset:g.Offset+int64(g.CompressedSize)], b[w.Offset:w.Offset+int64(w.CompressedSize)]) {
						t.Fatalf("%s: part %d column %d block %d is not the input's block", name, k, i, j)
					}
				}
			}
			if errs := validateStrict(t, out.Bytes()); len(errs) > 0 {
				t.Fatalf("%s: part %d: %v", name, k, errs)
			}
			if rd.Meta().GetString("avro.schema") != "" {
				recs = append(recs, records(t, part)...)
			}
			parts = append(parts, out.Bytes())
		}
		if rd.Meta().GetString("avro.schema") != "" && !slices.Equal(recs, records(t, rd)) {
			t.Fatalf("%s: the parts' records differ from the input's", name)
		}
		if got := concatBytes(t, parts...); !bytes.Equal(got, rightCRCs(t, b)) {
			t.Errorf("%s: Concat of the %d parts differs from the input", name, len(parts))
		}
		// A cut inside a block of some column is refused.
		for row := int64(1); row < rd.RowCount(); row++ {
			if !slices.Contains(ends, row) {
				if _, err := rd.Slice(0, row); !errors.Is(err, format.ErrUsage) {
					t.Fatalf("%s: Slice(0, %d) off the block ends: %v", name, row, err)
				}
				break
			}
		}
	}
	if cutFiles < 2 {
		t.Fatalf("only %d files were cut in several parts", cutFiles)
	}
}

// sameMeta reports whether two metadata hold the same keys and values in
// the same order.
func sameMeta(a, b *format.MetaData) bool {
	if a.Len() != b.Len() {
		return false
	}
	for i := range a.Len() {
		if a.Key(i) != b.Key(i) || !bytes.Equal(a.Value(i), b.Value(i)) {
			return false
		}
	}
	return true
}
