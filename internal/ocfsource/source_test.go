package ocfsource_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/ocf"
	"github.com/trevni-go/trevni/internal/ocfsource"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/schema"
)

// goavroRecords reads every record of an Avro container file with goavro:
// the independent reading the Source is compared with.
func goavroRecords(t *testing.T, data []byte) []any {
	t.Helper()
	out, err := goavroRead(data)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func goavroRead(data []byte) ([]any, error) {
	r, err := goavro.NewOCFReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	var out []any
	for r.Scan() {
		v, err := r.Read()
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, r.Err()
}

// sourceRecords reads every record of data through a Source, shredded in
// groups of groupBytes, and the assembler.
func sourceRecords(data []byte, opts *ocfsource.Options) ([]any, error) {
	src, err := ocfsource.Open(bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		return nil, err
	}
	rd, err := format.NewSourceReader(src, nil)
	if err != nil {
		return nil, err
	}
	ar, err := assemble.NewAvroReader(rd, nil)
	if err != nil {
		return nil, err
	}
	var out []any
	for {
		v, err := ar.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
}

// Java's Avro files of the interop vectors (written by Avro 1.8.2), read
// through the Source in groups of one Avro block and of the default size:
// every record is what goavro reads.
func TestJavaFilesReadAsGoavro(t *testing.T) {
	files, err := filepath.Glob("../../testdata/interop/*/input.avro")
	if err != nil || len(files) < 8 {
		t.Fatalf("%d files: %v", len(files), err)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		want := goavroRecords(t, data)
		for _, g := range []int64{1, 0} {
			got, err := sourceRecords(data, &ocfsource.Options{GroupBytes: g})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !avrorand.EqualNative(got, want) {
				t.Fatalf("%s, groups of %d bytes: records differ from goavro's", name, g)
			}
		}
	}
}

// Random schemas and records written by goavro with every codec it has
// and blocks of 1 to 50 records, read through the Source in groups of
// random sizes: the records are goavro's.
func TestRandomFilesReadAsGoavro(t *testing.T) {
	var files, groups int
	for seed := range uint64(60) {
		g := avrorand.New(seed, avrorand.Options{})
		text := g.Schema()
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		codec, err := goavro.NewCodec(text)
		if err != nil {
			continue
		}
		r := rand.New(rand.NewPCG(seed, 5))
		var buf bytes.Buffer
		w, err := goavro.NewOCFWriter(goavro.OCFConfig{W: &buf, Codec: codec, CompressionName: []string{goavro.CompressionNullLabel, goavro.CompressionDeflateLabel, goavro.CompressionSnappyLabel}[seed%3]})
		if err != nil {
			t.Fatal(err)
		}
		n := r.IntN(300)
		for i := 0; i < n; {
			k := min(n-i, 1+r.IntN(50))
			recs := make([]any, k)
			for j := range recs {
				recs[j] = g.Value(s)
			}
			if err := w.Append(recs); err != nil {
				t.Fatal(err)
			}
			i += k
		}
		want, err := goavroRead(buf.Bytes())
		if err != nil {
			// goavro does not read blocks of records of no bytes
			// ("block size is not greater than 0"), which it writes.
			continue
		}
		gb := []int64{1, 0, 1 + r.Int64N(4096)}[seed%3]
		got, err := sourceRecords(buf.Bytes(), &ocfsource.Options{GroupBytes: gb})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if len(got) != len(want) || (len(want) > 0 && !avrorand.EqualNative(got, want)) {
			for i := range min(len(got), len(want)) {
				if !avrorand.EqualNative(got[i], want[i]) {
					t.Logf("record %d:\n%#v\n%#v", i, got[i], want[i])
					break
				}
			}
			t.Fatalf("seed %d (groups of %d bytes): %d records differ from goavro's %d", seed, gb, len(got), len(want))
		}
		src, _ := ocfsource.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), &ocfsource.Options{GroupBytes: gb})
		bl, _ := src.Blocks(0)
		files++
		groups += len(bl)
	}
	t.Logf("%d files, %d groups", files, groups)
	if files < 40 || groups < files {
		t.Fatalf("only %d files, %d groups", files, groups)
	}
}

// Damaged containers are refused with an error that says where, whether
// the damage is found on opening (the block headers) or on reading (the
// records): never a panic, never records that are not the file's.
func TestDamagedFiles(t *testing.T) {
	data, err := os.ReadFile("../../testdata/interop/email/input.avro")
	if err != nil {
		t.Fatal(err)
	}
	want := goavroRecords(t, data)
	hdr, err := ocf.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	first := hdr.InputOffset()
	// Truncated anywhere past the header: refused on opening.
	for _, cut := range []int64{first + 1, first + 5, int64(len(data)) - 1, int64(len(data)) - 16} {
		_, err := sourceRecords(data[:cut], nil)
		if err == nil {
			t.Errorf("cut at %d of %d: read", cut, len(data))
		}
	}
	// A sync marker changed: refused on opening, naming the block.
	bad := bytes.Clone(data)
	bad[len(bad)-1] ^= 0xff
	if _, err := sourceRecords(bad, nil); !errors.Is(err, ocf.ErrSyncMarker) || !strings.Contains(err.Error(), "block") {
		t.Errorf("sync marker: %v", err)
	}
	// Every byte of the records changed in turn (one at a time, a
	// sample): an error, or records goavro reads the same from the
	// damaged file, never a panic.
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		at := first + r.Int64N(int64(len(data))-first-16)
		bad := bytes.Clone(data)
		bad[at] ^= byte(1 + r.IntN(255))
		got, err := sourceRecords(bad, nil)
		if err != nil {
			continue
		}
		gr, gerr := goavro.NewOCFReader(bytes.NewReader(bad))
		if gerr != nil {
			continue
		}
		var theirs []any
		for gr.Scan() {
			v, err := gr.Read()
			if err != nil {
				break
			}
			theirs = append(theirs, v)
		}
		if gr.Err() == nil && len(theirs) == len(got) && !avrorand.EqualNative(got, theirs) && len(got) == len(want) {
			t.Errorf("byte %d changed: records read differ from goavro's reading of the same bytes", at)
		}
	}
}

// The groups held are bounded by Options.Memory: a group that takes more
// is an error wrapping format.ErrLimit, never a larger allocation held.
func TestMemoryBound(t *testing.T) {
	data, err := os.ReadFile("../../testdata/interop/medium/input.avro")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sourceRecords(data, &ocfsource.Options{Memory: 1 << 10}); !errors.Is(err, format.ErrLimit) || !strings.Contains(err.Error(), "block memory") {
		t.Fatalf("1 KiB of memory: %v", err)
	}
	if _, err := sourceRecords(data, &ocfsource.Options{Memory: 64 << 20}); err != nil {
		t.Fatal(err)
	}
}

// The Source's metadata holds the container's: avro.schema first, as
// stored, then its other keys.
func TestMeta(t *testing.T) {
	var buf bytes.Buffer
	w, err := ocf.NewWriter(&buf, `"long"`, ocf.WriterOptions{Codec: "deflate", Metadata: map[string][]byte{"writer.note": []byte("x")}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := w.Append([]byte{byte(i * 2)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	src, err := ocfsource.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := src.Meta()
	got := fmt.Sprint(m.Key(0), " ", m.GetString("avro.schema"), " ", m.GetString("avro.codec"), " ", m.GetString("writer.note"), " ", src.RowCount())
	if got != `avro.schema "long" deflate x 10` {
		t.Fatalf("meta: %s", got)
	}
	recs, err := sourceRecords(buf.Bytes(), nil)
	if err != nil || len(recs) != 10 || recs[9] != int64(9) {
		t.Fatalf("records %v: %v", recs, err)
	}
}

// A single Avro block of more than 32 MiB decompressed (34 records of
// 1 MiB strings, deflated, in one block), a column of it as large, is read
// as goavro reads it within the default limits; a block memory or a block
// size below what it takes is refused before the block is shredded, the
// error naming the limit and its flag.
func TestLargeBlock(t *testing.T) {
	const text = `{"type":"record","name":"R","fields":[{"name":"id","type":"long"},{"name":"s","type":"string"}]}`
	codec, err := goavro.NewCodec(text)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := goavro.NewOCFWriter(goavro.OCFConfig{W: &buf, Codec: codec, CompressionName: goavro.CompressionDeflateLabel})
	if err != nil {
		t.Fatal(err)
	}
	var recs []any
	for i := range 34 {
		recs = append(recs, map[string]any{"id": int64(i), "s": strings.Repeat(fmt.Sprintf("%c record %04d;", 'a'+i%26, i), 1<<20/14+1)[:1<<20]})
	}
	if err := w.Append(recs); err != nil {
		t.Fatal(err)
	}
	want := goavroRecords(t, buf.Bytes())
	src, err := ocfsource.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if src.AvroBlocks() != 1 {
		t.Fatalf("%d Avro blocks, want 1", src.AvroBlocks())
	}
	got, err := sourceRecords(buf.Bytes(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || !avrorand.EqualNative(got, want) {
		t.Fatalf("%d records differ from goavro's %d", len(got), len(want))
	}
	for _, tc := range []struct {
		opts *ocfsource.Options
		says string
	}{
		{&ocfsource.Options{Memory: 32 << 20}, "--block-memory"},
		{&ocfsource.Options{MaxBlockSize: 33 << 20}, "--max-block-size"},
	} {
		_, err := sourceRecords(buf.Bytes(), tc.opts)
		if !errors.Is(err, format.ErrLimit) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%+v: %v, want an error naming %s", *tc.opts, err, tc.says)
		}
		t.Log(err)
	}
}
