package format_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/trevni-go/trevni/format"
)

// Blocks compressed again on several goroutines (ConcatOptions.Workers)
// make the very bytes one goroutine makes, whatever the codecs; a damaged
// block, early or late, gives the error one goroutine gives.
func TestConcatWorkers(t *testing.T) {
	t.Parallel()
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(concatInterop, "medium", name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	deflate, snappy := read("medium.deflate.crc32.trv"), read("medium.snappy.crc32.trv")
	concat := func(parts [][]byte, codec string, workers int) ([]byte, error) {
		var rds []*format.Reader
		for _, p := range parts {
			rds = append(rds, openBytes(t, p))
		}
		var out bytes.Buffer
		_, err := format.Concat(context.Background(), &out, rds, &format.ConcatOptions{Codec: codec, Workers: workers})
		return out.Bytes(), err
	}
	for _, codec := range []string{format.CodecSnappy, format.CodecZstd} {
		parts := [][]byte{deflate, snappy}
		want, err := concat(parts, codec, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{2, 5} {
			got, err := concat(parts, codec, workers)
			if err != nil {
				t.Fatalf("%s, %d workers: %v", codec, workers, err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s, %d workers: %d bytes differ from one worker's %d", codec, workers, len(got), len(want))
			}
		}
		if problems := validateStrict(t, want); len(problems) > 0 {
			t.Fatalf("%s: %v", codec, problems)
		}
	}
	// Damage in the column of most blocks: its third block's, then the
	// sixth's as well, where one goroutine meets the third's first.
	rd := openBytes(t, deflate)
	var blocks []format.BlockInfo
	for i := range rd.NumColumns() {
		b, err := rd.Blocks(i)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > len(blocks) {
			blocks = b
		}
	}
	if len(blocks) < 6 {
		t.Fatalf("the longest column has %d blocks", len(blocks))
	}
	for _, damage := range [][]int{{2}, {5, 2}, {len(blocks) - 1}} {
		bad := slices.Clone(deflate)
		for _, b := range damage {
			bad[blocks[b].Offset+int64(blocks[b].CompressedSize)/2] ^= 0x55
		}
		_, want := concat([][]byte{snappy, bad}, format.CodecSnappy, 1)
		if want == nil {
			t.Fatalf("blocks %v damaged: no error", damage)
		}
		_, got := concat([][]byte{snappy, bad}, format.CodecSnappy, 8) // every block at once
		if got == nil || got.Error() != want.Error() {
			t.Fatalf("blocks %v damaged, 8 workers: %v, want %v", damage, got, want)
		}
	}
}
