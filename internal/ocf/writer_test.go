package ocf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/trevni-go/trevni/internal/codec"
	"github.com/trevni-go/trevni/internal/testing/longtest"
)

// testSync is the sync marker of files written by the tests.
var testSync = [SyncSize]byte{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}

// smallFile writes nblocks blocks of three primitives records each with
// the given codec.
func smallFile(t testing.TB, codec string, nblocks int) []byte {
	t.Helper()
	schema, recs := interopRecords(t, interopFiles(t)["primitives"])
	var buf bytes.Buffer
	w, err := NewWriter(&buf, schema, WriterOptions{Codec: codec, SyncMarker: testSync})
	if err != nil {
		t.Fatal(err)
	}
	for i := range nblocks {
		var data []byte
		for _, r := range recs[3*i : 3*i+3] {
			data = append(data, r...)
		}
		if err := w.WriteBlock(3, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestRoundTrip re-encodes every interop file with every codec, once record
// by record with Append and once block by block with WriteBlock, and reads
// the result back.
func TestRoundTrip(t *testing.T) {
	for name, path := range interopFiles(t) {
		if testing.Short() && name == "medium" {
			continue
		}
		schema, recs := interopRecords(t, path)
		_, javaBlocks := readBlocks(t, readFile(t, path))
		if name == "medium" {
			// The default form takes the medium vector's first blocks,
			// of about 5,000 records (see longtest.Rounds).
			n, keep := int64(0), 0
			for keep < len(javaBlocks) && n < int64(longtest.Rounds(5000, len(recs))) {
				n += javaBlocks[keep].count
				keep++
			}
			recs, javaBlocks = recs[:n], javaBlocks[:keep]
		}
		for _, codec := range allCodecs {
			t.Run(name+"/"+codec, func(t *testing.T) {
				// Append, with small blocks so that there are many.
				var buf bytes.Buffer
				w, err := NewWriter(&buf, schema, WriterOptions{Codec: codec, BlockSize: 4 << 10})
				if err != nil {
					t.Fatal(err)
				}
				for _, rec := range recs {
					if err := w.Append(rec); err != nil {
						t.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				r, blocks := readBlocks(t, buf.Bytes())
				if r.Schema() != schema || r.Codec() != codec || r.Sync() != w.Sync() {
					t.Errorf("header: schema %q codec %q sync %x", r.Schema(), r.Codec(), r.Sync())
				}
				maxRec := 0
				for _, rec := range recs {
					maxRec = max(maxRec, len(rec))
				}
				var got []byte
				var n int64
				for i, b := range blocks {
					if b.count == 0 {
						t.Errorf("empty block written")
					}
					if len(b.data) >= 4<<10+maxRec || (len(b.data) < 4<<10 && i < len(blocks)-1) {
						t.Errorf("block %d of %d: %d bytes, block size 4096, records up to %d bytes", i, len(blocks), len(b.data), maxRec)
					}
					got = append(got, b.data...)
					n += b.count
				}
				if n != int64(len(recs)) || !bytes.Equal(got, bytes.Join(recs, nil)) {
					t.Errorf("read back %d records (%d bytes), wrote %d", n, len(got), len(recs))
				}

				// NextBlockInto gives the same blocks, in the caller's memory.
				r, err = NewReader(bytes.NewReader(buf.Bytes()))
				if err != nil {
					t.Fatal(err)
				}
				dst := make([]byte, 0, 64<<10)
				for i := 0; ; i++ {
					count, data, err := r.NextBlockInto(dst)
					if err == io.EOF {
						if i != len(blocks) {
							t.Errorf("NextBlockInto: %d blocks, NextBlock %d", i, len(blocks))
						}
						break
					}
					if err != nil {
						t.Fatalf("NextBlockInto: block %d: %v", i, err)
					}
					if i >= len(blocks) || count != blocks[i].count || !bytes.Equal(data, blocks[i].data) {
						t.Fatalf("NextBlockInto: block %d differs from NextBlock's", i)
					}
					if len(data) > 0 && &data[:1][0] != &dst[:1][0] {
						t.Fatalf("NextBlockInto: block %d of %d bytes is not in the given buffer of %d", i, len(data), cap(dst))
					}
				}

				// WriteBlock: the blocks must come back as they went in.
				buf.Reset()
				w, err = NewWriter(&buf, schema, WriterOptions{Codec: codec, SyncMarker: testSync})
				if err != nil {
					t.Fatal(err)
				}
				for _, b := range javaBlocks {
					if err := w.WriteBlock(b.count, b.data); err != nil {
						t.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				_, blocks = readBlocks(t, buf.Bytes())
				if len(blocks) != len(javaBlocks) {
					t.Fatalf("read %d blocks, wrote %d", len(blocks), len(javaBlocks))
				}
				for i := range blocks {
					if blocks[i].count != javaBlocks[i].count || !bytes.Equal(blocks[i].data, javaBlocks[i].data) {
						t.Errorf("block %d differs", i)
					}
				}
			})
		}
	}
}

func TestWriterLevels(t *testing.T) {
	cases := []struct {
		codec string
		level int
		ok    bool
	}{
		{codec.Deflate, 1, true}, {codec.Deflate, 9, true}, {codec.Deflate, 10, false}, {codec.Deflate, -1, false},
		{codec.Bzip2, 1, true}, {codec.Bzip2, 9, true}, {codec.Bzip2, 10, false},
		{codec.Zstandard, 1, true}, {codec.Zstandard, 19, true}, {codec.Zstandard, 23, false},
		{codec.Snappy, 5, true}, {codec.XZ, 5, true}, {codec.Null, 5, true},
	}
	rec := bytes.Repeat([]byte("abcdefgh"), 1000)
	for _, c := range cases {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, `"bytes"`, WriterOptions{Codec: c.codec, Level: c.level})
		if (err == nil) != c.ok {
			t.Errorf("%s level %d: err = %v, want ok=%v", c.codec, c.level, err, c.ok)
			continue
		}
		if err != nil {
			continue
		}
		if err := w.WriteBlock(1, rec); err != nil {
			t.Fatal(err)
		}
		w.Close()
		if _, blocks := readBlocks(t, buf.Bytes()); len(blocks) != 1 || !bytes.Equal(blocks[0].data, rec) {
			t.Errorf("%s level %d: round trip failed", c.codec, c.level)
		}
	}
}

func TestWriterOptions(t *testing.T) {
	if _, err := NewWriter(io.Discard, `"int"`, WriterOptions{Codec: "lzo"}); !errors.Is(err, ErrUnknownCodec) {
		t.Errorf("unknown codec: err = %v", err)
	}
	if _, err := NewWriter(io.Discard, "", WriterOptions{}); err == nil {
		t.Error("empty schema accepted")
	}
	for _, k := range []string{MetaSchema, MetaCodec} {
		if _, err := NewWriter(io.Discard, `"int"`, WriterOptions{Metadata: map[string][]byte{k: nil}}); err == nil {
			t.Errorf("metadata key %q accepted", k)
		}
	}

	// Extra metadata, the schema byte for byte, and the null default.
	schema := "{ \"type\" : \"string\" }\n"
	var buf bytes.Buffer
	w, err := NewWriter(&buf, schema, WriterOptions{Metadata: map[string][]byte{"b": []byte("2"), "a": {0, 1}}})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	r, blocks := readBlocks(t, buf.Bytes())
	if len(blocks) != 0 {
		t.Errorf("empty file has %d blocks", len(blocks))
	}
	m := r.Meta()
	if r.Schema() != schema || r.Codec() != codec.Null || len(m) != 4 || string(m["b"]) != "2" || !bytes.Equal(m["a"], []byte{0, 1}) {
		t.Errorf("schema %q codec %q meta %q", r.Schema(), r.Codec(), m)
	}
	if !bytes.Contains(buf.Bytes(), []byte("\x02a\x04\x00\x01\x02b\x022\x00")) {
		t.Errorf("extra metadata not written in key order: %q", buf.Bytes())
	}

	// Random sync markers differ.
	w1, _ := NewWriter(io.Discard, `"int"`, WriterOptions{})
	w2, _ := NewWriter(io.Discard, `"int"`, WriterOptions{})
	if w1.Sync() == w2.Sync() || w1.Sync() == [SyncSize]byte{} {
		t.Errorf("sync markers %x and %x", w1.Sync(), w2.Sync())
	}
}

func TestWriterBlocks(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, `"int"`, WriterOptions{SyncMarker: testSync, BlockSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.Append([]byte{2}))           // 1
	must(w.Append([]byte{4}))           // 2
	must(w.WriteBlock(0, nil))          // no-op
	must(w.WriteBlock(2, []byte{6, 8})) // flushes {1,2} first
	must(w.Append([]byte{10}))
	must(w.Append([]byte{12}))
	must(w.Append([]byte{14})) // reaches BlockSize: cut
	must(w.Append([]byte{16}))
	must(w.Flush())
	must(w.Flush()) // nothing pending
	must(w.Close())
	must(w.Close())
	if err := w.Append([]byte{0}); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close: %v", err)
	}
	if err := w.WriteBlock(-1, nil); err == nil {
		t.Errorf("negative count accepted")
	}
	_, blocks := readBlocks(t, buf.Bytes())
	got := fmt.Sprint(blocks)
	want := "[{2 [2 4]} {2 [6 8]} {3 [10 12 14]} {1 [16]}]"
	if got != want {
		t.Errorf("blocks = %s, want %s", got, want)
	}

	w, _ = NewWriter(io.Discard, `"int"`, WriterOptions{})
	if err := w.WriteBlock(-1, nil); err == nil {
		t.Errorf("negative count accepted")
	}
	if err := w.WriteBlock(0, []byte{1}); err == nil {
		t.Errorf("count 0 with data accepted")
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("disk full")
	}
	f.n--
	return len(p), nil
}

func TestWriterErrorsSticky(t *testing.T) {
	if _, err := NewWriter(&failWriter{}, `"int"`, WriterOptions{}); err == nil {
		t.Error("header write error lost")
	}
	w, err := NewWriter(&failWriter{n: 1}, `"int"`, WriterOptions{Codec: codec.Deflate})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteBlock(1, []byte{2}); err == nil {
		t.Fatal("block write error lost")
	}
	if err := w.Append([]byte{2}); err == nil {
		t.Error("error not sticky")
	}
	if err := w.Close(); err == nil {
		t.Error("Close lost the error")
	}
}

// TestSteadyStateAllocs checks that once buffers have grown, reading and
// writing blocks allocates nothing. The bzip2 library allocates small
// scratch slices for every block, and the xz library a whole new coder, so
// for those the counts are only logged.
func TestSteadyStateAllocs(t *testing.T) {
	check := func(t *testing.T, name, what string, allocs float64) {
		t.Helper()
		switch {
		case name == codec.Bzip2 || name == codec.XZ:
			t.Logf("%s: %v allocations per block", what, allocs)
		case allocs != 0:
			t.Errorf("%s: %v allocations per block", what, allocs)
		}
	}
	schema, recs := interopRecords(t, interopFiles(t)["primitives"])
	data := bytes.Join(recs[:100], nil)
	for _, codec := range allCodecs {
		t.Run(codec, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, schema, WriterOptions{Codec: codec})
			if err != nil {
				t.Fatal(err)
			}
			const nblocks = 60
			for range nblocks {
				if err := w.WriteBlock(100, data); err != nil {
					t.Fatal(err)
				}
			}
			w.Close()

			r, err := NewReader(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			for range 5 { // warm up
				if _, _, err := r.NextBlock(); err != nil {
					t.Fatal(err)
				}
			}
			allocs := testing.AllocsPerRun(50, func() {
				if _, _, err := r.NextBlock(); err != nil {
					t.Fatal(err)
				}
			})
			check(t, codec, "NextBlock", allocs)

			w, _ = NewWriter(io.Discard, schema, WriterOptions{Codec: codec})
			for range 5 {
				w.WriteBlock(100, data)
				for _, rec := range recs[:100] {
					w.Append(rec)
				}
				w.Flush()
			}
			allocs = testing.AllocsPerRun(50, func() {
				if err := w.WriteBlock(100, data); err != nil {
					t.Fatal(err)
				}
				for _, rec := range recs[:100] {
					w.Append(rec)
				}
				w.Flush()
			})
			check(t, codec, "WriteBlock+Append", allocs)
		})
	}
}

// TestZstdNames checks that "zstd" and "zstandard" both name the zstandard
// codec: a writer given either stores the specification's name, and a
// reader accepts either in a header.
func TestZstdNames(t *testing.T) {
	for _, name := range []string{"zstd", codec.Zstandard} {
		file := smallFile(t, name, 2)
		r, err := NewReader(bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		if r.Codec() != codec.Zstandard || string(r.Meta()[MetaCodec]) != codec.Zstandard {
			t.Errorf("writer given %q stored %q", name, r.Meta()[MetaCodec])
		}
		if err := drain(file); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		// Its first block behind a header that says "zstd".
		renamed := header(MetaSchema, r.Schema(), MetaCodec, "zstd")
		renamed = append(renamed, rawBlock(3, blockPayload(t, file))...)
		if err := drain(renamed); err != nil {
			t.Errorf("header naming zstd: %v", err)
		}
	}
}
