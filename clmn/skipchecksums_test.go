package clmn

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zlib"
)

// A column whose zlib stream's Adler-32 no longer matches its data (one
// byte of it changed) is refused, the error naming the column; with
// ReaderOptions.SkipChecksums it reads the values written. Small columns
// (inflated at once) and large ones (inflated as they are read) alike.
func TestSkipChecksumsReadsDamagedColumns(t *testing.T) {
	var sizes []int64
	for _, nrows := range []int{3000, 200} {
		cols, rows := randomTable(rand.New(rand.NewPCG(33, uint64(nrows))), 4, nrows)
		good := writeTable(t, cols, rows, nil)
		rd, err := NewReader(bytes.NewReader(good), int64(len(good)), nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range rd.Columns() {
			sizes = append(sizes, c.UncompressedSize)
			bad := bytes.Clone(good)
			bad[c.Offset+c.CompressedSize-1] ^= 0x10
			want, err := readColumn(rd, i)
			if err != nil {
				t.Fatal(err)
			}
			brd, err := NewReader(bytes.NewReader(bad), int64(len(bad)), nil)
			if err != nil {
				t.Fatal(err)
			}
			var ce *Error
			if _, err := readColumn(brd, i); !errors.As(err, &ce) || ce.Column != c.Name || !errors.Is(err, zlib.ErrChecksum) && !strings.Contains(err.Error(), "checksum") {
				t.Errorf("%d rows, column %d: a bad Adler-32 read as %v", nrows, i, err)
			}
			srd, err := NewReader(bytes.NewReader(bad), int64(len(bad)), &ReaderOptions{SkipChecksums: true})
			if err != nil {
				t.Fatal(err)
			}
			got, err := readColumn(srd, i)
			if err != nil || len(got) != len(want) {
				t.Fatalf("%d rows, column %d under SkipChecksums: %d values, %v; want %d", nrows, i, len(got), err, len(want))
			}
			for k := range got {
				if !sameValue(c.Type, got[k], want[k]) {
					t.Fatalf("%d rows, column %d row %d under SkipChecksums: %v, want %v", nrows, i, k, got[k], want[k])
				}
			}
		}
	}
	if small, large := slices.Min(sizes), slices.Max(sizes); small > smallColumn || large <= smallColumn {
		t.Errorf("columns of %d to %d bytes: the test wants both sides of %d", small, large, smallColumn)
	}
}
