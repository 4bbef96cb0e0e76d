package trevni_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
)

// readJSON returns the records of the Trevni file data in Avro's JSON
// encoding, one a line.
func readJSON(t *testing.T, data []byte) string {
	t.Helper()
	ds, err := trevni.OpenReaderAt(t.Context(), bytes.NewReader(data), int64(len(data)), "x.trv", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	var b strings.Builder
	if _, err := ds.WriteJSON(t.Context(), &b, nil, nil); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The email records come as an Avro container file and as their Avro JSON
// lines (testdata/interop/email, both written by Java's tools): the file
// AppendJSONLines writes of the lines reads back as the lines, and as
// ConvertAvroStream's file of the container, on several goroutines or one.
func TestAppendJSONLinesAndConvertAvroStream(t *testing.T) {
	ctx := t.Context()
	dir := filepath.Join("testdata", "interop", "email")
	lines, err := os.ReadFile(filepath.Join(dir, "expected.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 3} {
		opts := &trevni.WriteOptions{Codec: trevni.Snappy, BlockSize: 4096, Workers: workers}
		avro, err := os.Open(filepath.Join(dir, "input.avro"))
		if err != nil {
			t.Fatal(err)
		}
		var fromAvro bytes.Buffer
		n, err := trevni.ConvertAvroStream(ctx, &fromAvro, avro, opts)
		avro.Close()
		if err != nil || n != 300 {
			t.Fatalf("ConvertAvroStream: %d records, %v", n, err)
		}
		in, err := os.ReadFile(filepath.Join(dir, "input.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		var fromJSON bytes.Buffer
		w, err := trevni.NewWriter(&fromJSON, readSchema(t, fromAvro.Bytes()), opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AppendJSONLines(ctx, bytes.NewReader(in), nil); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got := readJSON(t, fromJSON.Bytes()); got != string(lines) {
			t.Errorf("workers %d: AppendJSONLines' file reads back otherwise than expected.jsonl", workers)
		}
		if got := readJSON(t, fromAvro.Bytes()); got != string(lines) {
			t.Errorf("workers %d: ConvertAvroStream's file reads back otherwise than expected.jsonl", workers)
		}
	}
}

// readSchema returns the avro.schema of a Trevni file.
func readSchema(t *testing.T, data []byte) string {
	t.Helper()
	rd, err := format.NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return rd.Meta().GetString("avro.schema")
}

// A line that does not fit the schema is a *LineError naming it, in the
// plain form and Avro's, counting the blank lines.
func TestAppendJSONLinesLineError(t *testing.T) {
	const schema = `{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"b","type":["null","string"]}]}`
	for _, c := range []struct {
		plain bool
		input string
	}{
		{false, "{\"a\":1,\"b\":null}\n\n{\"a\":2,\"b\":{\"string\":\"x\"}}\n{\"a\":\"three\",\"b\":null}\n"},
		{true, "{\"a\":1,\"b\":null}\n\n{\"a\":2,\"b\":\"x\"}\n{\"a\":\"three\"}\n"},
	} {
		var buf bytes.Buffer
		w, err := trevni.NewWriter(&buf, schema, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = w.AppendJSONLines(t.Context(), strings.NewReader(c.input), &trevni.JSONOptions{Plain: c.plain})
		var le *trevni.LineError
		if !errors.As(err, &le) || le.Line != 4 || !strings.HasPrefix(err.Error(), "line 4: ") {
			t.Errorf("plain %v: %v, want a *LineError of line 4", c.plain, err)
		}
		w.Abort()
	}
}

// ConvertProtoStream's file holds the messages of its stream, in order,
// whichever the framing and the goroutines (compared by their
// deterministic encodings: those read back are dynamic messages).
func TestConvertProtoStream(t *testing.T) {
	var msgs []*structpb.Struct
	var jsonl, delim bytes.Buffer
	for i := range 500 {
		m, err := structpb.NewStruct(map[string]any{fmt.Sprintf("k%d", i%5): float64(i), "l": []any{true, nil, "v"}})
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
		j, err := protojson.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		jsonl.Write(append(j, '\n'))
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		delim.Write(protowireLen(len(b)))
		delim.Write(b)
	}
	md := msgs[0].ProtoReflect().Descriptor()
	for _, c := range []struct {
		framing trevni.Framing
		in      []byte
	}{{trevni.JSONLines, jsonl.Bytes()}, {trevni.Delimited, delim.Bytes()}} {
		for _, workers := range []int{1, 4} {
			var buf bytes.Buffer
			n, err := trevni.ConvertProtoStream(t.Context(), &buf, bytes.NewReader(c.in), c.framing, md,
				&trevni.ProtoWriteOptions{WriteOptions: trevni.WriteOptions{Workers: workers, BlockSize: 1000}, RecursionLimit: 3})
			if err != nil || n != int64(len(msgs)) {
				t.Fatalf("%v, %d workers: %d messages, %v", c.framing, workers, n, err)
			}
			ds, err := trevni.OpenReaderAt(t.Context(), bytes.NewReader(buf.Bytes()), int64(buf.Len()), "x.trv", nil)
			if err != nil {
				t.Fatal(err)
			}
			r, err := ds.NewProtoReader(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range msgs {
				got, err := r.Read()
				if err != nil {
					t.Fatalf("message %d: %v", i, err)
				}
				gb, err := proto.MarshalOptions{Deterministic: true}.Marshal(got)
				if err != nil {
					t.Fatal(err)
				}
				wb, _ := proto.MarshalOptions{Deterministic: true}.Marshal(want)
				if !bytes.Equal(gb, wb) {
					t.Fatalf("%v, %d workers: message %d is %v, want %v", c.framing, workers, i, got, want)
				}
			}
			r.Close()
			ds.Close()
		}
	}
}

// protowireLen is the varint of n.
func protowireLen(n int) []byte {
	var b []byte
	for n >= 0x80 {
		b = append(b, byte(n)|0x80)
		n >>= 7
	}
	return append(b, byte(n))
}

// WriteOptions.Meta is written in its order after the codec and checksum,
// before avro.schema; a key the writer sets itself is an error naming it
// and the option.
func TestWriteOptionsMeta(t *testing.T) {
	const schema = `{"type":"record","name":"R","fields":[{"name":"a","type":"long"}]}`
	var buf bytes.Buffer
	w, err := trevni.NewWriter(&buf, schema, &trevni.WriteOptions{Meta: []trevni.MetaEntry{{Key: "z", Value: []byte("1")}, {Key: "a", Value: []byte("two")}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(map[string]any{"a": int64(5)}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := rd.Meta()
	var keys []string
	for i := range m.Len() {
		keys = append(keys, m.Key(i)+"="+string(m.Value(i)))
	}
	if got, want := strings.Join(keys, " "), "trevni.codec=deflate trevni.checksum=crc32 z=1 a=two avro.schema="+schema; got != want {
		t.Errorf("metadata %q, want %q", got, want)
	}
	for _, k := range []string{"avro.schema", "trevni.codec"} {
		_, err := trevni.NewWriter(&buf, schema, &trevni.WriteOptions{Meta: []trevni.MetaEntry{{Key: k}}})
		if err == nil || !strings.Contains(err.Error(), "WriteOptions.Meta sets "+k) {
			t.Errorf("Meta setting %s: %v, want an error naming it", k, err)
		}
	}
}
