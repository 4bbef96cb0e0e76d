package trevni_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/clmn"
)

// TestErrorsNameTheRootsOptions checks that an error of a limit, met
// through the front door, names the option a program of the root sets
// (OpenOptions.BlockMemory), not that of the package beneath that reads
// the part (format's, trevni1's, clmn's ReaderOptions, clmn's
// SourceOptions, the column layout's, the schema parser's), and still
// wraps ErrLimit (or ErrSchemaTooLarge) for errors.Is, with a *FileError
// where the part is a Trevni file and the limit one of its blocks, for
// every format of part.
func TestErrorsNameTheRootsOptions(t *testing.T) {
	longStrings := clmnOfLongStrings(t)
	cases := []struct {
		file, option string
		opts         trevni.OpenOptions
		is           error
	}{
		{"testdata/interop/medium/medium.deflate.crc32.trv", "OpenOptions.BlockMemory", trevni.OpenOptions{BlockMemory: 1000}, trevni.ErrLimit},
		{"testdata/interop/medium/medium.deflate.crc32.trv", "OpenOptions.MaxBlockSize", trevni.OpenOptions{MaxBlockSize: 1000}, trevni.ErrLimit},
		{"testdata/interop/medium/medium.deflate.crc32.trv", "OpenOptions.MaxColumns", trevni.OpenOptions{MaxColumns: 1}, trevni.ErrSchemaTooLarge},
		{"testdata/interop/medium/medium.deflate.crc32.trv", "OpenOptions.MaxDepth", trevni.OpenOptions{MaxDepth: 1}, trevni.ErrSchemaTooLarge},
		{"testdata/trevni1/impala_several_blocks.trv", "OpenOptions.MaxBlockSize", trevni.OpenOptions{MaxBlockSize: 10}, trevni.ErrLimit},
		{"testdata/trevni1/impala_several_blocks.trv", "OpenOptions.BlockMemory", trevni.OpenOptions{BlockMemory: 10}, trevni.ErrLimit},
		{"testdata/trevni1/impala_several_blocks.trv", "OpenOptions.MaxColumns", trevni.OpenOptions{MaxColumns: 1}, trevni.ErrSchemaTooLarge},
		{"testdata/clmn/sample.clmn", "OpenOptions.BlockMemory", trevni.OpenOptions{BlockMemory: 10}, trevni.ErrLimit},
		{"testdata/clmn/sample.clmn", "OpenOptions.MaxBlockSize", trevni.OpenOptions{MaxBlockSize: 10}, trevni.ErrLimit},
		{"testdata/clmn/sample.clmn", "OpenOptions.MaxColumns", trevni.OpenOptions{MaxColumns: 1}, trevni.ErrLimit},
		// Blocks whose size, estimated from the column's average, passes
		// the bound, and whose strings do not: the CLMN reader's own
		// check (clmn.SourceOptions.MaxBlockSize) meets them.
		{longStrings, "OpenOptions.MaxBlockSize", trevni.OpenOptions{MaxBlockSize: 200_000}, trevni.ErrLimit},
		{"testdata/interop/medium/input.avro", "OpenOptions.BlockMemory", trevni.OpenOptions{BlockMemory: 1000}, trevni.ErrLimit},
		{"testdata/interop/medium/input.avro", "OpenOptions.MaxBlockSize", trevni.OpenOptions{MaxBlockSize: 1000}, trevni.ErrLimit},
		{"testdata/interop/medium/input.avro", "OpenOptions.MaxColumns", trevni.OpenOptions{MaxColumns: 1}, trevni.ErrSchemaTooLarge},
		{"testdata/interop/medium/input.avro", "OpenOptions.MaxDepth", trevni.OpenOptions{MaxDepth: 1}, trevni.ErrSchemaTooLarge},
	}
	ctx := context.Background()
	for _, c := range cases {
		label := c.file + " " + c.option
		err := readAllErr(ctx, c.file, &c.opts)
		if err == nil {
			t.Errorf("%s: read whole within the limit", label)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, c.option) || strings.Contains(msg, "ReaderOptions") || strings.Contains(msg, "SourceOptions") ||
			strings.Contains(msg, "layout.") || strings.Contains(msg, "ParseOptions") || strings.Contains(msg, "--") {
			t.Errorf("%s: the error names another option: %v", label, err)
		}
		if !strings.HasPrefix(msg, c.file+": ") {
			t.Errorf("%s: the error does not start with the part: %v", label, err)
		}
		if !errors.Is(err, c.is) {
			t.Errorf("%s: not %v: %v", label, c.is, err)
		}
		var fe *trevni.FileError
		if strings.HasSuffix(c.file, ".trv") && c.is == trevni.ErrLimit && !errors.As(err, &fe) {
			t.Errorf("%s: no FileError in %v", label, err)
		}
	}
}

// clmnOfLongStrings writes a CLMN file of one string column: 9,980 empty
// strings, then 20 of 60,000 bytes, and returns its name.
func clmnOfLongStrings(t *testing.T) string {
	name := filepath.Join(t.TempDir(), "long.clmn")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := clmn.NewWriter(f, []clmn.Column{{Name: "s", Type: clmn.String}}, &clmn.WriterOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	long := bytes.Repeat([]byte("x"), 60_000)
	for i := range 10_000 {
		if i < 9_980 {
			w.WriteString(0, nil)
		} else {
			w.WriteString(0, long)
		}
		if err := w.EndRow(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return name
}

// readAllErr reads every record of the data set name, and returns the
// first error.
func readAllErr(ctx context.Context, name string, opts *trevni.OpenOptions) error {
	ds, err := trevni.Open(ctx, name, opts)
	return firstReadErr(ctx, ds, err)
}

// TestWriteErrorsNameTheRootsOptions checks that an error of the writers,
// from Create, NewWriter, CreateStructs, NewStructWriter, CreateProto,
// NewProtoWriter and their Write, names the options a program of the root
// sets (WriteOptions' and ProtoWriteOptions' fields, and OpenOptions'
// where it speaks of readers), not those of the packages beneath (format's
// WriterOptions, the column layout's, the schema parser's, the protobuf
// mapping's limits in words, and its codec and checksum as "unknown
// codec" of a column), and still wraps what it wraps for errors.Is and
// errors.As.
func TestWriteErrorsNameTheRootsOptions(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const flat = `{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"b","type":"string"},{"name":"c","type":"long"}]}`
	const deep = `{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"record","name":"S","fields":[{"name":"b","type":{"type":"array","items":"long"}}]}}]}`
	md := (&descriptorpb.FileDescriptorProto{}).ProtoReflect().Descriptor()
	type row struct {
		A int64
		B string
		C int64
	}
	long := strings.Repeat("x", 5000)
	small := trevni.WriteOptions{BlockSize: 100, MaxBlockSize: 1000}
	// The error of a Write of a value of 5000 bytes into blocks of at most
	// 1000, after the writer was made with opts.
	writeAvro := func(w *trevni.Writer, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		return w.Write(map[string]any{"a": int64(1), "b": long, "c": int64(2)})
	}
	writeBinary := func(w *trevni.Writer, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		// 1, a string of 5000 bytes, 2, in Avro's binary encoding.
		rec := append(binary.AppendVarint([]byte{2}, int64(len(long))), long...)
		return w.WriteBinary(append(rec, 4))
	}
	writeStructs := func(w *trevni.StructWriter[row], err error) error {
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		_, err = w.Write([]row{{1, long, 2}})
		return err
	}
	writeProto := func(w *trevni.ProtoWriter, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		return w.Write(&descriptorpb.FileDescriptorProto{Name: &long})
	}
	writeWire := func(w *trevni.ProtoWriter, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		b, err := proto.Marshal(&descriptorpb.FileDescriptorProto{Name: &long})
		if err != nil {
			t.Fatal(err)
		}
		return w.WriteWire(b)
	}
	second := func(_ any, err error) error { return err }
	cases := []struct {
		what  string
		want  []string // what the message names
		is    error    // what it wraps, nil for none of the root's
		limit bool     // a *RecordError of record 0 too
		err   error
	}{
		{"Create, BlockSize past the most", []string{"WriteOptions.BlockSize 1073741824", "OpenOptions.MaxBlockSize"}, nil, false,
			second(trevni.Create(ctx, dir+"/a.trv", flat, &trevni.WriteOptions{BlockSize: 1 << 30}))},
		{"NewWriter, BlockSize past the most", []string{"WriteOptions.BlockSize 1073741824", "OpenOptions.MaxBlockSize"}, nil, false,
			second(trevni.NewWriter(io.Discard, flat, &trevni.WriteOptions{BlockSize: 1 << 30}))},
		{"CreateStructs, MaxBlockSize under BlockSize", []string{"WriteOptions.MaxBlockSize 1000", "WriteOptions.BlockSize (65536)"}, nil, false,
			second(trevni.CreateStructs[row](ctx, dir+"/b.trv", "", &trevni.WriteOptions{MaxBlockSize: 1000}))},
		{"NewStructWriter, MaxBlockSize under BlockSize", []string{"WriteOptions.MaxBlockSize 1000", "WriteOptions.BlockSize (65536)"}, nil, false,
			second(trevni.NewStructWriter[row](io.Discard, "", &trevni.WriteOptions{MaxBlockSize: 1000}))},
		{"CreateProto, MaxBlockSize under BlockSize", []string{"WriteOptions.MaxBlockSize 1000", "WriteOptions.BlockSize (65536)"}, nil, false,
			second(trevni.CreateProto(ctx, dir+"/c.trv", md, &trevni.ProtoWriteOptions{WriteOptions: trevni.WriteOptions{MaxBlockSize: 1000}}))},
		{"Create, MaxColumns", []string{"more than 2 columns (WriteOptions.MaxColumns)"}, trevni.ErrSchemaTooLarge, false,
			second(trevni.Create(ctx, dir+"/d.trv", flat, &trevni.WriteOptions{MaxColumns: 2}))},
		{"NewStructWriter, MaxColumns", []string{"(WriteOptions.MaxColumns)"}, trevni.ErrSchemaTooLarge, false,
			second(trevni.NewStructWriter[row](io.Discard, "", &trevni.WriteOptions{MaxColumns: 2}))},
		{"Create, MaxDepth", []string{"(WriteOptions.MaxDepth)"}, trevni.ErrSchemaTooLarge, false,
			second(trevni.Create(ctx, dir+"/e.trv", deep, &trevni.WriteOptions{MaxDepth: 1}))},
		{"NewWriter, MaxDepth", []string{"(WriteOptions.MaxDepth)"}, trevni.ErrSchemaTooLarge, false,
			second(trevni.NewWriter(io.Discard, deep, &trevni.WriteOptions{MaxDepth: 1}))},
		{"CreateProto, MaxColumns", []string{"lower ProtoWriteOptions.RecursionLimit, or raise WriteOptions.MaxColumns"}, trevni.ErrSchemaTooLarge, false,
			second(trevni.CreateProto(ctx, dir+"/f.trv", md, &trevni.ProtoWriteOptions{WriteOptions: trevni.WriteOptions{MaxColumns: 2}}))},
		{"NewProtoWriter, MaxDepth", []string{"lower ProtoWriteOptions.RecursionLimit, or raise WriteOptions.MaxDepth"}, trevni.ErrSchemaTooLarge, false,
			second(trevni.NewProtoWriter(io.Discard, md, &trevni.ProtoWriteOptions{WriteOptions: trevni.WriteOptions{MaxDepth: 2}}))},
		{"Writer.Write, MaxBlockSize", []string{"past the 1000 of WriteOptions.MaxBlockSize", "OpenOptions.MaxBlockSize is raised"}, trevni.ErrLimit, true,
			writeAvro(trevni.Create(ctx, dir+"/g.trv", flat, &small))},
		{"Writer.WriteBinary, MaxBlockSize", []string{"past the 1000 of WriteOptions.MaxBlockSize"}, trevni.ErrLimit, true,
			writeBinary(trevni.NewWriter(io.Discard, flat, &small))},
		{"StructWriter.Write, MaxBlockSize", []string{"past the 1000 of WriteOptions.MaxBlockSize"}, trevni.ErrLimit, true,
			writeStructs(trevni.CreateStructs[row](ctx, dir+"/h.trv", "", &small))},
		{"ProtoWriter.Write, MaxBlockSize", []string{"past the 1000 of WriteOptions.MaxBlockSize"}, trevni.ErrLimit, true,
			writeProto(trevni.CreateProto(ctx, dir+"/i.trv", md, &trevni.ProtoWriteOptions{WriteOptions: small}))},
		{"ProtoWriter.WriteWire, MaxBlockSize", []string{"past the 1000 of WriteOptions.MaxBlockSize"}, trevni.ErrLimit, true,
			writeWire(trevni.NewProtoWriter(io.Discard, md, &trevni.ProtoWriteOptions{WriteOptions: small}))},
		{"NewWriter, Codec xz", []string{`WriteOptions.Codec "xz"`, "null, deflate, snappy, bzip2 or zstd"}, nil, false,
			second(trevni.NewWriter(io.Discard, flat, &trevni.WriteOptions{Codec: trevni.XZ}))},
		{"CreateStructs, an unknown Codec", []string{`WriteOptions.Codec "lz5"`}, nil, false,
			second(trevni.CreateStructs[row](ctx, dir+"/j.trv", "", &trevni.WriteOptions{Codec: "lz5"}))},
		{"NewProtoWriter, an unknown Checksum", []string{`WriteOptions.Checksum "md5"`, "crc32 or null"}, nil, false,
			second(trevni.NewProtoWriter(io.Discard, md, &trevni.ProtoWriteOptions{WriteOptions: trevni.WriteOptions{Checksum: "md5"}}))},
		{"Concat, an unknown Codec", []string{`WriteOptions.Codec "lz5"`}, nil, false,
			second(trevni.Concat(ctx, dir+"/k.trv", []string{"testdata/interop/email/email.null.crc32.trv"}, &trevni.WriteOptions{Codec: "lz5"}))},
		{"Dataset.Concat, an unknown Checksum", []string{`WriteOptions.Checksum "md5"`}, nil, false, datasetConcat(t, &trevni.WriteOptions{Checksum: "md5"})},
		{"CreateProto, a negative RecursionLimit", []string{"negative ProtoWriteOptions.RecursionLimit"}, nil, false,
			second(trevni.CreateProto(ctx, dir+"/l.trv", md, &trevni.ProtoWriteOptions{RecursionLimit: -1}))},
	}
	inner := []string{"WriterOptions", "ReaderOptions", "layout.", "ParseOptions", "MaxWriterBlockSize", "recursion limit", "column limit", "depth limit", "unknown codec", " RecursionLimit"}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.what)
			continue
		}
		msg := c.err.Error()
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q is not in %v", c.what, w, c.err)
			}
		}
		for _, w := range inner {
			if strings.Contains(msg, w) {
				t.Errorf("%s: names %q, an option beneath the root: %v", c.what, w, c.err)
			}
		}
		if c.is != nil && !errors.Is(c.err, c.is) {
			t.Errorf("%s: not %v: %v", c.what, c.is, c.err)
		}
		var re *trevni.RecordError
		if c.limit && (!errors.As(c.err, &re) || re.Record != 0) {
			t.Errorf("%s: no *RecordError of record 0 in %v", c.what, c.err)
		}
	}
}

// datasetConcat returns the error of a Dataset.Concat of a file with opts.
func datasetConcat(t *testing.T, opts *trevni.WriteOptions) error {
	ctx := context.Background()
	ds, err := trevni.Open(ctx, "testdata/interop/email/email.null.crc32.trv", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	_, err = ds.Concat(ctx, io.Discard, opts)
	return err
}
