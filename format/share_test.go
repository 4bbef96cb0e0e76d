package format

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// TestShareBlocks reads one column with two readers, the peer reading
// every row and the other a random third of them, and checks
// that the second reads the same values as a reader of its own would,
// while taking every block the peer held from it instead of from storage.
func TestShareBlocks(t *testing.T) {
	var file bytes.Buffer
	w, err := NewWriter(&file, []ColumnMeta{{Name: "s", Type: String}, {Name: "n", Type: Long}}, &WriterOptions{BlockSize: 256, Codec: "snappy", Checksum: "crc32"})
	if err != nil {
		t.Fatal(err)
	}
	const rows = 3000
	want := make([]string, rows)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range rows {
		want[i] = string(bytes.Repeat([]byte{byte('a' + r.IntN(26))}, r.IntN(20)))
		if err := w.WriteRow(want[i], int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(bytes.NewReader(file.Bytes()), int64(file.Len()), &ReaderOptions{ReadAhead: true})
	if err != nil {
		t.Fatal(err)
	}
	blocks, _ := rd.Blocks(0)
	if len(blocks) < 10 {
		t.Fatalf("only %d blocks", len(blocks))
	}
	peer, _ := rd.Values(0)
	c, _ := rd.Values(0)
	other, _ := rd.Values(1)
	if err := c.ShareBlocks(other); !errors.Is(err, ErrUsage) {
		t.Fatalf("ShareBlocks with another column: %v", err)
	}
	if err := c.ShareBlocks(c); !errors.Is(err, ErrUsage) {
		t.Fatalf("ShareBlocks with itself: %v", err)
	}
	if err := c.ShareBlocks(peer); err != nil {
		t.Fatal(err)
	}
	read := func(cr *ColumnReader, row int) {
		t.Helper()
		if err := cr.StartRow(); err != nil {
			t.Fatalf("row %d: %v", row, err)
		}
		s, err := cr.ReadString()
		if err != nil || s != want[row] {
			t.Fatalf("row %d: %q, %v; want %q", row, s, err, want[row])
		}
	}
	// As a filter and its reader go: the peer reads each row, and c reads
	// the rows that match, seeking to them over those that do not.
	for row := range rows {
		read(peer, row)
		if r.IntN(3) > 0 {
			continue
		}
		if c.Row() != int64(row-1) {
			if err := c.SeekRow(int64(row)); err != nil {
				t.Fatal(err)
			}
		}
		read(c, row)
	}
	pn, _ := peer.Loaded()
	cn, _ := c.Loaded()
	if cn != 0 || c.Shared() != pn || pn == 0 {
		t.Fatalf("the peer loaded %d blocks; c loaded %d and shared %d", pn, cn, c.Shared())
	}
	// Sharing ended, c reads from storage again.
	if err := c.ShareBlocks(nil); err != nil {
		t.Fatal(err)
	}
	if err := c.SeekRow(0); err != nil {
		t.Fatal(err)
	}
	read(c, 0)
	if cn, _ := c.Loaded(); cn != 1 {
		t.Fatalf("after ShareBlocks(nil): %d blocks loaded", cn)
	}
	peer.Close()
	c.Close()
	other.Close()
}
