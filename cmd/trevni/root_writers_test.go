package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/csvtable"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/avrojson"
	"github.com/trevni-go/trevni/internal/ocf"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/protoschema"
	"github.com/trevni-go/trevni/shred"
	"google.golang.org/protobuf/types/known/structpb"
)

// The converters that write records (fromavro, fromjson, fromproto,
// fromcsv, fromclmn, random, recodec --stats, split) go through the front
// door's writers (trevni.NewWriter, Write, WriteBinary, AppendAvro,
// AppendJSONLines, AppendCSV, ConvertAvroStream, ConvertProtoStream). Their files are byte for byte what the library's
// shredder writes for the same options, called here directly as the
// command called it before: the files are made by the test from
// package shred, an independent path, never by the command.
func TestRootWritersSameBytes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	email := filepath.Join(interopDir, "email")
	avroIn := filepath.Join(email, "input.avro")
	schemaFile, err := os.ReadFile(filepath.Join(email, "schema.avsc"))
	if err != nil {
		t.Fatal(err)
	}
	schemaText := strings.TrimSpace(string(schemaFile)) // as a --schema file is read
	// The command's options for its default flags.
	wopts := func(codec, checksum string, blockSize int, noStats bool, workers int) shred.Options {
		return shred.Options{WriterOptions: format.WriterOptions{
			Codec: codec, Checksum: checksum, BlockSize: blockSize, MemoryBudget: 16 << 20,
			DisableStats: noStats, Concurrency: workers,
		}, Workers: workers}
	}
	check := func(t *testing.T, name string, want []byte, args ...string) {
		t.Helper()
		if r := runIn(t, nil, args...); r.code != 0 {
			t.Fatalf("%q: %+v", args, r)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%q: %s: %d bytes differ from the %d the library writes", args, name, len(got), len(want))
		}
	}
	fromContainer := func(t *testing.T, o shred.Options, ins ...string) []byte {
		t.Helper()
		var buf bytes.Buffer
		var aw *shred.AvroWriter
		for _, in := range ins {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			if aw == nil {
				r, err := ocf.NewReader(bytes.NewReader(data))
				if err != nil {
					t.Fatal(err)
				}
				if aw, err = shred.NewAvroWriter(&buf, r.Schema(), &o); err != nil {
					t.Fatal(err)
				}
			}
			if err := aw.AppendContainer(ctx, bytes.NewReader(data)); err != nil {
				t.Fatal(err)
			}
		}
		if err := aw.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}

	t.Run("fromavro", func(t *testing.T) {
		var one bytes.Buffer
		f, err := os.Open(avroIn)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		o := wopts("snappy", "crc32", 4096, false, 3)
		if _, err := shred.FromContainer(ctx, &one, f, &o); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "one.trv")
		check(t, out, one.Bytes(), "fromavro", "--codec", "snappy", "--block-size", "4096", "--workers", "3", avroIn, out)
		out = filepath.Join(dir, "two.trv")
		check(t, out, fromContainer(t, wopts("null", "null", 64<<10, true, 1), avroIn, avroIn),
			"fromavro", "--codec", "null", "--checksum", "null", "--stats=false", "--workers", "1", avroIn, avroIn, out)
	})

	t.Run("random", func(t *testing.T) {
		s, err := schema.Parse(schemaText)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		o := wopts("zstd", "crc32", 1000, false, 1)
		aw, err := shred.NewAvroWriter(&buf, schemaText, &o)
		if err != nil {
			t.Fatal(err)
		}
		gen := avrorand.New(11, avrorand.Options{})
		for range 3000 {
			if err := aw.Write(gen.Value(s)); err != nil {
				t.Fatal(err)
			}
		}
		if err := aw.Close(); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "random.trv")
		check(t, out, buf.Bytes(), "random", "--seed", "11", "--codec", "zstd", "--block-size", "1000", filepath.Join(email, "schema.avsc"), "3000", out)
	})

	t.Run("fromjson", func(t *testing.T) {
		jsonIn := filepath.Join(email, "input.jsonl")
		data, err := os.ReadFile(jsonIn)
		if err != nil {
			t.Fatal(err)
		}
		s, err := schema.Parse(schemaText)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		o := wopts("deflate", "crc32", 3000, false, 3)
		aw, err := shred.NewAvroWriter(&buf, schemaText, &o)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := aw.WriteLines(ctx, bytes.NewReader(data), func(line []byte) (any, error) { return avrojson.Decode(s, line) }); err != nil {
				t.Fatal(err)
			}
		}
		if err := aw.Close(); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "json.trv")
		check(t, out, buf.Bytes(), "fromjson", "--schema", filepath.Join(email, "schema.avsc"), "--block-size", "3000", "--workers", "3", jsonIn, jsonIn, out)
	})

	t.Run("fromproto", func(t *testing.T) {
		var stream bytes.Buffer
		for i := range 3000 {
			fmt.Fprintf(&stream, `{"k%d": %d, "s": "v%d", "l": [true, null, {"n": %d}]}`+"\n", i%7, i, i, i)
		}
		md := (&structpb.Struct{}).ProtoReflect().Descriptor()
		var buf bytes.Buffer
		o := wopts("snappy", "crc32", 2000, false, 2)
		po := &shred.ProtoOptions{File: o, Mapping: &protoschema.Options{RecursionLimit: 2}}
		if _, err := shred.FromProtoStream(ctx, &buf, bytes.NewReader(stream.Bytes()), protoschema.JSONLines, md, po); err != nil {
			t.Fatal(err)
		}
		in := filepath.Join(dir, "struct.jsonl")
		if err := os.WriteFile(in, stream.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "proto.trv")
		check(t, out, buf.Bytes(), "fromproto", "--input", "json", "--message", "google.protobuf.Struct", "--recursion-limit", "2",
			"--codec", "snappy", "--block-size", "2000", "--workers", "2", in, out)
	})

	// CSV and CLMN: the library's path is csvtable's Trevni sink, with
	// the fields its inferrer gives (fromcsv) or the CLMN file's.
	tableFile := func(t *testing.T, o shred.Options, src csvtable.Source) []byte {
		t.Helper()
		var buf bytes.Buffer
		sink, err := csvtable.NewTrevniSink(&buf, src.Fields(), &o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := csvtable.Copy(ctx, sink, src, nil); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	t.Run("fromcsv", func(t *testing.T) {
		var text bytes.Buffer
		text.WriteString("id,when,amount,flag,note,a b\n")
		for i := range 9000 {
			fmt.Fprintf(&text, "%d,2024-01-%02dT10:%02d:00Z,%d.%03d,%v,\"n \"\"%d\"\", x\",%s\n", i, i%28+1, i%60, i*7, i%1000, i%3 == 0, i, map[bool]string{true: "", false: fmt.Sprint(i)}[i%5 == 0])
		}
		in := filepath.Join(dir, "table.csv")
		if err := os.WriteFile(in, text.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{1, 3} {
			var inf csvtable.Inferrer
			if _, err := inf.Add(bytes.NewReader(text.Bytes()), ',', nil); err != nil {
				t.Fatal(err)
			}
			src, err := csvtable.NewCSVSource(bytes.NewReader(text.Bytes()), inf.Fields(), ',', nil)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, fmt.Sprintf("csv%d.trv", workers))
			check(t, out, tableFile(t, wopts("zstd", "crc32", 5000, false, workers), src),
				"fromcsv", "--codec", "zstd", "--block-size", "5000", "--workers", fmt.Sprint(workers), in, out)
		}
	})
	t.Run("fromclmn", func(t *testing.T) {
		in := filepath.Join("..", "..", "testdata", "clmn", "sample.clmn")
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := clmn.NewReader(bytes.NewReader(data), int64(len(data)), nil)
		if err != nil {
			t.Fatal(err)
		}
		src, err := csvtable.NewCLMNSource(rd, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "clmn.trv")
		check(t, out, tableFile(t, wopts("snappy", "crc32", 700, false, 1), src),
			"fromclmn", "--codec", "snappy", "--block-size", "700", in, out)
	})

	// A file of the program's own metadata and no statistics, which
	// recodec --stats and split write again record by record, keeping the
	// metadata in its order.
	withMeta := func(o shred.Options) shred.Options {
		o.Meta.SetString("z.first", "1")
		o.Meta.SetString("a.second", "two")
		return o
	}
	in := filepath.Join(dir, "meta.trv")
	if err := os.WriteFile(in, fromContainer(t, withMeta(wopts("deflate", "crc32", 2048, true, 1)), avroIn), 0o644); err != nil {
		t.Fatal(err)
	}
	records := func(t *testing.T) [][]byte {
		t.Helper()
		ds, err := trevni.Open(ctx, avroIn, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ds.Close()
		r, err := ds.NewReader(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var recs [][]byte
		for {
			rec, err := r.ReadBinary(nil)
			if err == io.EOF {
				return recs
			}
			if err != nil {
				t.Fatal(err)
			}
			recs = append(recs, rec)
		}
	}(t)
	binaryFile := func(t *testing.T, o shred.Options, recs [][]byte) []byte {
		t.Helper()
		var buf bytes.Buffer
		aw, err := shred.NewAvroWriter(&buf, string(mustSchemaOf(t, in)), &o)
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range recs {
			if err := aw.WriteBinary(rec); err != nil {
				t.Fatal(err)
			}
		}
		if err := aw.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}

	t.Run("recodec-stats", func(t *testing.T) {
		out := filepath.Join(dir, "recodec.trv")
		check(t, out, binaryFile(t, withMeta(wopts("snappy", "crc32", 0, false, 1)), records),
			"recodec", "--codec", "snappy", "--stats", in, out)
	})

	t.Run("split", func(t *testing.T) {
		const per = 7
		prefix := filepath.Join(dir, "part")
		if r := runIn(t, nil, "split", "--rows", fmt.Sprint(per), in, prefix); r.code != 0 {
			t.Fatalf("split: %+v", r)
		}
		k := 0
		for from := 0; from < len(records); from, k = from+per, k+1 {
			name := fmt.Sprintf("%s-%05d.trv", prefix, k)
			got, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			want := binaryFile(t, withMeta(wopts("deflate", "crc32", 0, false, 1)), records[from:min(from+per, len(records))])
			if !bytes.Equal(got, want) {
				t.Errorf("%s: %d bytes differ from the %d the library writes", name, len(got), len(want))
			}
		}
		if k < 2 {
			t.Fatalf("only %d parts: the input is too small for the test", k)
		}
		if _, err := os.Stat(fmt.Sprintf("%s-%05d.trv", prefix, k)); err == nil {
			t.Errorf("split wrote more than the %d parts of %d records", k, len(records))
		}
	})
}

// mustSchemaOf returns the avro.schema metadata of the Trevni file name.
func mustSchemaOf(t *testing.T, name string) []byte {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	rd, err := format.NewReader(f, fi.Size(), nil)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := rd.Meta().Get("avro.schema")
	if !ok {
		t.Fatalf("%s: no avro.schema", name)
	}
	return bytes.Clone(v)
}
