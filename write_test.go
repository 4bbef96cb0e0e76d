package trevni_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/linkedin/goavro/v2"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/schema"
)

// Random schemas and values written in parts with Create and read back
// through Open as one data set: every record equal (goavro's decoding of
// our Avro container output included), with offsets and limits across the
// parts' boundaries.
func TestCreateOpenProperty(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(25) {
		g := avrorand.New(seed, avrorand.Options{})
		text := g.Schema()
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		dir := t.TempDir()
		var want []any
		for part := range 3 {
			w, err := trevni.Create(context.Background(), filepath.Join(dir, fmt.Sprintf("p%d.trv", part)), text, nil)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			for range int(seed%7) + part {
				v := g.Value(s)
				if err := w.Write(v); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				want = append(want, v)
			}
			if err := w.Close(); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
		}
		ds, err := trevni.Open(ctx, dir, nil)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if ds.RowCount() != int64(len(want)) {
			t.Fatalf("seed %d: %d rows, want %d", seed, ds.RowCount(), len(want))
		}
		for off := range int64(len(want) + 1) {
			for _, lim := range []int64{0, 1, 4} {
				k := off
				for rec, err := range ds.All(ctx, &trevni.ReadOptions{Offset: off, Limit: lim}) {
					if err != nil {
						t.Fatalf("seed %d offset %d: %v", seed, off, err)
					}
					if !avrorand.EqualNative(rec, want[k]) {
						t.Fatalf("seed %d offset %d limit %d: record %d differs\n got %v\nwant %v", seed, off, lim, k, rec, want[k])
					}
					k++
				}
				wantEnd := int64(len(want))
				if lim > 0 {
					wantEnd = min(wantEnd, off+lim)
				}
				if k != wantEnd {
					t.Fatalf("seed %d offset %d limit %d: read to %d, want %d", seed, off, lim, k, wantEnd)
				}
			}
		}
		if err := ds.Validate(ctx); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		// The Avro container we write, read by goavro, which refuses a
		// block of zero bytes (records that all encode to nothing, as
		// nulls do) although the specification allows it.
		if encodedSize(t, text, want) == 0 {
			continue
		}
		var buf bytes.Buffer
		if _, err := ds.WriteAvro(ctx, &buf, nil, nil); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		ocf, err := goavro.NewOCFReader(&buf)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		k := 0
		for ocf.Scan() {
			v, err := ocf.Read()
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if !avrorand.EqualNative(v, want[k]) {
				t.Fatalf("seed %d: container record %d differs", seed, k)
			}
			k++
		}
		if k != len(want) || ocf.Err() != nil {
			t.Fatalf("seed %d: container of %d records, want %d: %v", seed, k, len(want), ocf.Err())
		}
	}
}

// Create never replaces a file without Replace, neither one there at the
// start nor one that appears while it writes, and leaves nothing behind
// when aborted.
func TestCreateReplaceRules(t *testing.T) {
	const text = `{"type":"record","name":"R","fields":[{"name":"a","type":"long"}]}`
	dir := t.TempDir()
	name := filepath.Join(dir, "out.trv")
	if err := os.WriteFile(name, []byte("keep me"), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := trevni.Create(context.Background(), name, text, nil); !errors.Is(err, trevni.ErrExists) {
		t.Fatalf("Create over an existing file: %v", err)
	}
	w, err := trevni.Create(context.Background(), name, text, &trevni.WriteOptions{Replace: true})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(map[string]any{"a": int64(1)})
	w.Abort()
	if b, _ := os.ReadFile(name); string(b) != "keep me" {
		t.Fatalf("Abort changed the file: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("Abort left %d entries", len(ents))
	}
	// A file that appears while the writer works is not replaced.
	fresh := filepath.Join(dir, "fresh.trv")
	w, err = trevni.Create(context.Background(), fresh, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(map[string]any{"a": int64(2)})
	if err := os.WriteFile(fresh, []byte("someone else's"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); !errors.Is(err, trevni.ErrExists) {
		t.Fatalf("Close over a file made meanwhile: %v", err)
	}
	if b, _ := os.ReadFile(fresh); string(b) != "someone else's" {
		t.Fatalf("the file made meanwhile was replaced")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Fatalf("a failed Close left %d entries", len(ents))
	}
	// With Replace, it is.
	w, err = trevni.Create(context.Background(), name, text, &trevni.WriteOptions{Replace: true})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(map[string]any{"a": int64(3)})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ds, err := trevni.Open(context.Background(), name, nil)
	if err != nil || ds.RowCount() != 1 {
		t.Fatalf("replaced file: %v", err)
	}
}

// A data set opened on a caller's ReaderAt reads as one opened by name.
func TestOpenReaderAt(t *testing.T) {
	b, err := os.ReadFile("testdata/interop/primitives/primitives.bzip2.crc32.trv")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := trevni.OpenReaderAt(context.Background(), bytes.NewReader(b), int64(len(b)), "in memory", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	checkPrimitives(t, ds, 1)
	if err := ds.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A damaged copy fails validation, naming the part.
	bad := bytes.Clone(b)
	bad[len(bad)/2] ^= 0xff
	ds2, err := trevni.OpenReaderAt(context.Background(), bytes.NewReader(bad), int64(len(bad)), "damaged", nil)
	if err == nil {
		err = ds2.Validate(context.Background())
	}
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("damaged")) {
		t.Fatalf("a damaged file: %v", err)
	}
}

// encodedSize returns the bytes of the values' Avro binary encoding.
func encodedSize(t *testing.T, text string, values []any) int {
	codec, err := goavro.NewCodec(text)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range values {
		b, err := codec.BinaryFromNative(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		n += len(b)
	}
	return n
}

// ConvertAvro on several workers (WriteOptions.Workers) writes the records
// one worker writes, its blocks ending where the workers' ranges do; a
// bad record leaves no file and no temporary file behind.
func TestConvertAvroWorkers(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "in.avro")
	g := avrorand.New(11, avrorand.Options{})
	text := g.Schema()
	s, err := schema.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	codec, err := goavro.NewCodec(text)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	w, err := goavro.NewOCFWriter(goavro.OCFConfig{W: f, Codec: codec, CompressionName: "snappy"})
	if err != nil {
		t.Fatal(err)
	}
	var want []any
	for range 40 { // 40 container blocks of 50 records
		var block []any
		for range 50 {
			block = append(block, g.Value(s))
		}
		if err := w.Append(block); err != nil {
			t.Fatal(err)
		}
		want = append(want, block...)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	convert := func(workers int) []byte {
		opts := &trevni.WriteOptions{}
		opts.Workers, opts.Codec, opts.BlockSize, opts.Memory = workers, trevni.Snappy, 256, 64<<10
		dst := filepath.Join(dir, fmt.Sprintf("out%d.trv", workers))
		if n, err := trevni.ConvertAvro(ctx, dst, src, opts); err != nil || n != int64(len(want)) {
			t.Fatalf("%d workers: %d records, %v", workers, n, err)
		}
		ds, err := trevni.Open(ctx, dst, nil)
		if err != nil {
			t.Fatal(err)
		}
		k := 0
		for rec, err := range ds.All(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			if !avrorand.EqualNative(rec, want[k]) {
				t.Fatalf("%d workers: record %d differs\n got %v\nwant %v", workers, k, rec, want[k])
			}
			k++
		}
		if k != len(want) {
			t.Fatalf("%d workers: %d records read, want %d", workers, k, len(want))
		}
		b, err := os.ReadFile(dst)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if one, three := convert(1), convert(3); bytes.Equal(one, three) {
		t.Fatal("3 workers wrote one worker's bytes: the option did not reach the parallel path")
	}
	// A container cut short ends the conversion on every worker: no
	// output, nothing left beside it.
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut", "in.avro")
	if err := os.MkdirAll(filepath.Dir(cut), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cut, data[:len(data)*3/4], 0o644); err != nil {
		t.Fatal(err)
	}
	opts := &trevni.WriteOptions{}
	opts.Workers, opts.BlockSize, opts.Memory = 3, 256, 64<<10
	if _, err := trevni.ConvertAvro(ctx, filepath.Join(dir, "cut", "out.trv"), cut, opts); err == nil {
		t.Fatal("a container cut short converted")
	}
	if left, _ := os.ReadDir(filepath.Dir(cut)); len(left) != 1 {
		t.Fatalf("after a failed conversion the directory holds %d entries, want the input alone", len(left))
	}
}
