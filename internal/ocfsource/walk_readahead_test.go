package ocfsource_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/internal/ocf"
	"github.com/trevni-go/trevni/internal/ocfsource"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
)

// countingReaderAt counts the reads made of a file and the bytes of the
// largest past its first 4 MiB.
type countingReaderAt struct {
	data         []byte
	reads        int
	largestAfter int
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.reads++
	if off >= 4<<20 {
		c.largestAfter = max(c.largestAfter, len(p))
	}
	return bytes.NewReader(c.data).ReadAt(p, off)
}

// mixedBlocks writes an Avro container file with goavro: 4,000 blocks of
// two small records, 6 blocks of 600 KB, then 8,000 small blocks again
// (11 MB).
func mixedBlocks(t *testing.T) []byte {
	t.Helper()
	const text = `{"type":"record","name":"R","fields":[{"name":"id","type":"long"},{"name":"s","type":"string"}]}`
	codec, err := goavro.NewCodec(text)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := goavro.NewOCFWriter(goavro.OCFConfig{W: &buf, Codec: codec})
	if err != nil {
		t.Fatal(err)
	}
	id := int64(0)
	add := func(blocks, per, size int) {
		for range blocks {
			recs := make([]any, per)
			for i := range recs {
				recs[i] = map[string]any{"id": id, "s": fmt.Sprintf("%0*d", size, id*7919)}
				id++
			}
			if err := w.Append(recs); err != nil {
				t.Fatal(err)
			}
		}
	}
	add(4000, 2, 300)
	add(6, 2, 300_000)
	add(8000, 2, 300)
	return buf.Bytes()
}

// Past its first 4 MiB, the walk over a file's blocks reads small blocks
// in growing windows (a few reads for thousands of blocks) and a large
// block with one small read, the windows no larger than the reader's
// block memory; the records are goavro's.
func TestWalkReadsSmallBlocksInWindows(t *testing.T) {
	data := mixedBlocks(t)
	want := goavroRecords(t, data)
	for _, tc := range []struct {
		memory    int64
		maxReads  int
		maxWindow int
	}{
		// The prefix in 1 MiB windows (5 reads), the small blocks past
		// it in windows of 64 KiB to 4 MiB, each large block one read:
		// 8,000 small blocks, 6 large ones.
		{0, 5 + 6 + 6 + 2, 4 << 20},
		// A block memory of 1.5 MiB: windows of at most that.
		{1536 << 10, 5 + 6 + 6 + 2, 1536 << 10},
	} {
		ra := &countingReaderAt{data: data}
		src, err := ocfsource.Open(ra, int64(len(data)), &ocfsource.Options{Memory: tc.memory})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("memory %d: %d blocks, %d bytes: %d reads to open, the largest past 4 MiB %d bytes", tc.memory, src.AvroBlocks(), len(data), ra.reads, ra.largestAfter)
		if src.AvroBlocks() != 12006 || src.RowCount() != int64(len(want)) {
			t.Fatalf("%d blocks, %d rows; want 12006, %d", src.AvroBlocks(), src.RowCount(), len(want))
		}
		if ra.reads > tc.maxReads {
			t.Errorf("memory %d: %d reads to open, want at most %d", tc.memory, ra.reads, tc.maxReads)
		}
		if ra.largestAfter > tc.maxWindow {
			t.Errorf("memory %d: a read of %d bytes, past the %d allowed", tc.memory, ra.largestAfter, tc.maxWindow)
		}
		got, err := sourceRecords(data, &ocfsource.Options{Memory: tc.memory})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || !avrorand.EqualNative(got, want) {
			t.Fatalf("memory %d: %d records differ from goavro's %d", tc.memory, len(got), len(want))
		}
	}
}

// A sync marker damaged in a block read ahead (past the first 4 MiB,
// among small blocks) is refused on opening, naming that block and its
// offset.
func TestWalkReadAheadErrorLocated(t *testing.T) {
	data := mixedBlocks(t)
	src, err := ocfsource.Open(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	hdr, err := ocf.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	// Find block 11,000's sync marker by reading the blocks in turn.
	var at, syncEnd int64
	for i := 0; i <= 11000; i++ {
		rb, _, err := hdr.NextRawBlock(nil)
		if err != nil {
			t.Fatalf("block %d: %v", i, err)
		}
		at, syncEnd = rb.Offset, rb.End
	}
	if syncEnd < 5<<20 || src.AvroBlocks() != 12006 {
		t.Fatalf("block 11000 ends at %d", syncEnd)
	}
	bad := bytes.Clone(data)
	bad[syncEnd-3] ^= 0x5a
	_, err = ocfsource.Open(bytes.NewReader(bad), int64(len(bad)), nil)
	var oe *ocf.Error
	if !errors.As(err, &oe) || !errors.Is(err, ocf.ErrSyncMarker) || oe.Block != 11000 || oe.Offset != at {
		t.Fatalf("damaged sync marker of block 11000 at offset %d: %v", at, err)
	}
}
