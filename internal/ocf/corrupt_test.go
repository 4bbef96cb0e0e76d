package ocf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/trevni-go/trevni/internal/avrobin"
	"github.com/trevni-go/trevni/internal/testing/longtest"

	"github.com/trevni-go/trevni/internal/codec"
)

// header builds a container header with the given metadata entries, in
// order, and testSync.
func header(kv ...string) []byte {
	b := []byte(magic)
	b = avrobin.AppendLong(b, int64(len(kv)/2))
	for _, s := range kv {
		b = appendString(b, s)
	}
	b = avrobin.AppendLong(b, 0)
	return append(b, testSync[:]...)
}

// rawBlock builds a block with the given count and stored payload.
func rawBlock(count int64, payload []byte) []byte {
	b := avrobin.AppendLong(nil, count)
	b = avrobin.AppendLong(b, int64(len(payload)))
	b = append(b, payload...)
	return append(b, testSync[:]...)
}

// drain reads all blocks and returns the first error other than io.EOF,
// or nil.
func drain(file []byte, opts ...ReaderOption) error {
	r, err := NewReader(bytes.NewReader(file), opts...)
	if err != nil {
		return err
	}
	for {
		_, _, err := r.NextBlock()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func TestHostileHeaders(t *testing.T) {
	schema := `"int"`
	cases := []struct {
		name string
		file []byte
		want error
	}{
		{"empty", nil, io.ErrUnexpectedEOF},
		{"short magic", []byte("Obj"), io.ErrUnexpectedEOF},
		{"bad magic", []byte("Obj\x02\x00"), ErrNotContainer},
		{"no map end", []byte("Obj\x01\x02\x02a\x02b"), io.ErrUnexpectedEOF},
		{"no sync", header(MetaSchema, schema)[:20], io.ErrUnexpectedEOF},
		{"no schema", header(MetaCodec, codec.Null), ErrFormat},
		{"unknown codec", header(MetaSchema, schema, MetaCodec, "lzo"), ErrUnknownCodec},
		{"empty codec", header(MetaSchema, schema, MetaCodec, ""), ErrUnknownCodec},
		{"negative key length", []byte("Obj\x01\x02\x01"), ErrFormat},
		{"huge key length", append([]byte("Obj\x01\x02"), avrobin.AppendLong(nil, 1<<40)...), ErrTooLarge},
		{"huge entry count", append([]byte("Obj\x01"), avrobin.AppendLong(nil, 1<<40)...), ErrTooLarge},
		{"varint overflow", []byte("Obj\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f"), ErrFormat},
	}
	for _, c := range cases {
		_, err := NewReader(bytes.NewReader(c.file))
		if !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
		var e *Error
		if err != nil && (!errors.As(err, &e) || e.Block != -1) {
			t.Errorf("%s: err = %#v, want a header *Error", c.name, err)
		}
	}

	// A missing avro.codec means null; a negative map block count (with
	// its byte size) is valid.
	file := []byte("Obj\x01\x01\x20")
	file = appendString(file, MetaSchema)
	file = appendString(file, schema)
	file = append(avrobin.AppendLong(file, 0), testSync[:]...)
	r, err := NewReader(bytes.NewReader(append(file, rawBlock(1, []byte{2})...)))
	if err != nil {
		t.Fatal(err)
	}
	if r.Codec() != codec.Null || r.Schema() != schema {
		t.Errorf("codec %q schema %q", r.Codec(), r.Schema())
	}
	if n, data, err := r.NextBlock(); n != 1 || !bytes.Equal(data, []byte{2}) || err != nil {
		t.Errorf("NextBlock = %d, %v, %v", n, data, err)
	}
}

func TestHostileBlocks(t *testing.T) {
	h := header(MetaSchema, `"int"`, MetaCodec, codec.Null)
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	cases := []struct {
		name string
		file []byte
		want error
	}{
		{"negative count", cat(h, avrobin.AppendLong(nil, -1), avrobin.AppendLong(nil, 0)), ErrFormat},
		{"negative size", cat(h, avrobin.AppendLong(nil, 1), avrobin.AppendLong(nil, -5)), ErrFormat},
		{"size over limit", cat(h, avrobin.AppendLong(nil, 1), avrobin.AppendLong(nil, DefaultMaxBlockSize+1)), ErrTooLarge},
		{"no records but bytes", cat(h, rawBlock(0, []byte{1})), ErrFormat},
		{"truncated count", cat(h, []byte{0x80}), io.ErrUnexpectedEOF},
		{"truncated size", cat(h, []byte{2}), io.ErrUnexpectedEOF},
		{"truncated data", cat(h, []byte{2, 8, 1, 2}), io.ErrUnexpectedEOF},
		{"truncated sync", cat(h, rawBlock(1, []byte{2}))[:len(h)+5], io.ErrUnexpectedEOF},
		{"bad sync", cat(h, rawBlock(1, []byte{2})[:3], make([]byte, SyncSize)), ErrSyncMarker},
	}
	for _, c := range cases {
		if err := drain(c.file); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
	if err := drain(cat(h, rawBlock(1, make([]byte, 100))), WithMaxBlockSize(99)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("WithMaxBlockSize: err = %v", err)
	}
	// Empty blocks are allowed.
	if err := drain(cat(h, rawBlock(0, nil), rawBlock(3, nil))); err != nil {
		t.Errorf("empty blocks: %v", err)
	}
}

// TestNoAllocationOnLies checks that size fields the input cannot back do
// not make the Reader allocate what they claim.
func TestNoAllocationOnLies(t *testing.T) {
	h := header(MetaSchema, `"int"`, MetaCodec, codec.Null)
	lies := map[string][]byte{
		"block": append(append(bytes.Clone(h), avrobin.AppendLong(nil, 1)...), append(avrobin.AppendLong(nil, 200<<20), make([]byte, 1000)...)...),
		"meta":  append(append([]byte("Obj\x01\x02"), avrobin.AppendLong(nil, 200<<20)...), make([]byte, 1000)...),
	}
	for name, file := range lies {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := drain(file)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s: err = %v, want io.ErrUnexpectedEOF", name, err)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Errorf("%s: allocated %d bytes for a %d-byte input", name, n, len(file))
		}
	}
}

// TestDecompressionBombs checks the decompressed size limit for every
// codec.
func TestDecompressionBombs(t *testing.T) {
	zeros := make([]byte, 1<<20)
	for _, codec := range allCodecs[1:] {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, `"bytes"`, WriterOptions{Codec: codec, SyncMarker: testSync})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteBlock(1, zeros); err != nil {
			t.Fatal(err)
		}
		w.Close()
		if err := drain(buf.Bytes(), WithMaxDecompressedSize(64<<10)); !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: err = %v, want ErrTooLarge", codec, err)
		}
		if err := drain(buf.Bytes(), WithMaxDecompressedSize(1<<20)); err != nil {
			t.Errorf("%s: block at the limit: %v", codec, err)
		}
	}
}

func TestCodecCorruption(t *testing.T) {
	// Snappy: a wrong checksum.
	file := smallFile(t, codec.Snappy, 2)
	r, _ := NewReader(bytes.NewReader(file))
	r.NextBlock()
	crcEnd := r.InputOffset() - SyncSize
	bad := bytes.Clone(file)
	bad[crcEnd-1] ^= 1
	if err := drain(bad); !errors.Is(err, ErrChecksum) {
		t.Errorf("snappy checksum: err = %v", err)
	}

	// Snappy: a decoded length the body cannot produce.
	h := func(codec string) []byte { return header(MetaSchema, `"int"`, MetaCodec, codec) }
	payload := append(binary.AppendUvarint(nil, 10<<20), 0, 0, 0, 0, 0, 0, 0)
	if err := drain(append(h(codec.Snappy), rawBlock(1, payload)...)); !errors.Is(err, ErrFormat) {
		t.Errorf("snappy length lie: err = %v", err)
	}
	if err := drain(append(h(codec.Snappy), rawBlock(1, []byte{1, 2})...)); !errors.Is(err, ErrFormat) {
		t.Errorf("snappy without checksum: err = %v", err)
	}

	// Zstandard: a frame content size the input cannot back.
	zh := zstd.Header{HasFCS: true, FrameContentSize: 100 << 20, SingleSegment: true}
	frame, err := zh.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	frame = append(frame, 1, 0, 0) // an empty last raw block
	if err := drain(append(h(codec.Zstandard), rawBlock(1, frame)...)); !errors.Is(err, ErrFormat) {
		t.Errorf("zstandard size lie: err = %v", err)
	}
	if err := drain(append(h(codec.Zstandard), rawBlock(1, frame)...), WithMaxDecompressedSize(1<<20)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("zstandard size over limit: err = %v", err)
	}

	// xz: a dictionary over twice the limit (writers round it up to a power
	// of two) is refused before decoding.
	if dict, ok := codec.XZDictSize(blockPayload(t, smallFile(t, codec.XZ, 1))); !ok || dict != 4<<10 {
		t.Errorf("XZDictSize = %d, %v", dict, ok)
	}
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, `"bytes"`, WriterOptions{Codec: codec.XZ})
	w.WriteBlock(1, make([]byte, 100<<10))
	w.Close()
	if err := drain(buf.Bytes(), WithMaxDecompressedSize(32<<10)); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "dictionary") {
		t.Errorf("xz dictionary over limit: err = %v", err)
	}

	// Garbage for every codec.
	for _, codec := range allCodecs[1:] {
		if err := drain(append(h(codec), rawBlock(1, []byte("garbage garbage garbage"))...)); err == nil {
			t.Errorf("%s: garbage accepted", codec)
		}
	}
}

// blockPayload returns the stored payload of the first block of file.
func blockPayload(t *testing.T, file []byte) []byte {
	r, err := NewReader(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	rest := file[r.InputOffset():]
	br := bytes.NewReader(rest)
	readLong(br)
	size, _, _ := readLong(br)
	start := len(rest) - br.Len()
	return rest[start : start+int(size)]
}

// TestTruncation cuts small files of every codec at every offset: the
// result is either a clean end at a block boundary, with the blocks before
// it intact, or an error wrapping io.ErrUnexpectedEOF.
func TestTruncation(t *testing.T) {
	for _, codec := range allCodecs {
		file := smallFile(t, codec, 3)
		_, full := readBlocks(t, file)
		// Block boundaries.
		ends := map[int]int{}
		r, _ := NewReader(bytes.NewReader(file))
		ends[int(r.InputOffset())] = 0
		for i := range full {
			r.NextBlock()
			ends[int(r.InputOffset())] = i + 1
		}
		for n := range len(file) {
			r, err := NewReader(bytes.NewReader(file[:n]))
			var got []block
			for err == nil {
				var c int64
				var data []byte
				c, data, err = r.NextBlock()
				if err == nil {
					got = append(got, block{c, bytes.Clone(data)})
				}
			}
			nb, boundary := ends[n]
			switch {
			case boundary && err == io.EOF:
				if len(got) != nb {
					t.Errorf("%s cut at %d: %d blocks, want %d", codec, n, len(got), nb)
				}
			case !errors.Is(err, io.ErrUnexpectedEOF):
				t.Errorf("%s cut at %d: err = %v, want io.ErrUnexpectedEOF", codec, n, err)
			}
			for i := range got {
				if got[i].count != full[i].count || !bytes.Equal(got[i].data, full[i].data) {
					t.Errorf("%s cut at %d: block %d differs", codec, n, i)
				}
			}
		}
	}
}

// TestByteFlips flips random bytes of small files of every codec: reading
// must fail or succeed, never panic or hang.
func TestByteFlips(t *testing.T) {
	for k, codec := range allCodecs {
		rng := rand.New(rand.NewPCG(1, 2+uint64(k)))
		file := smallFile(t, codec, 3)
		// The default form makes the first 500 of the 2000 damaged
		// files (see longtest.Rounds).
		n := longtest.Rounds(500, 2000)
		if testing.Short() {
			n = 200
		}
		failed := 0
		for range n {
			bad := bytes.Clone(file)
			for range 1 + rng.IntN(3) {
				bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
			}
			err := drain(bad, WithMaxBlockSize(1<<20), WithMaxDecompressedSize(1<<20))
			if err != nil {
				failed++
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("%s: error %v is not an *Error", codec, err)
				}
			}
		}
		t.Logf("%s: %d of %d corrupted files rejected", codec, failed, n)
	}
}
