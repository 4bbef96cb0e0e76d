package trevni_test

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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

// AppendCSV's records are the CSV's, read here with encoding/csv and
// strconv: testdata/clmn/sample.csv, its columns in another order than
// the schema's fields, on one goroutine and on three.
func TestAppendCSV(t *testing.T) {
	const schema = `{"type":"record","name":"Row","fields":[{"name":"city","type":"string"},{"name":"id","type":"int"},{"name":"salary","type":"double"},{"name":"name","type":"string"},{"name":"age","type":"int"},{"name":"email","type":"string"}]}`
	data, err := os.ReadFile(filepath.Join("testdata", "clmn", "sample.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, workers := range []int{1, 3} {
		var buf bytes.Buffer
		var progressed, progressRows int64
		w, err := trevni.NewWriter(&buf, schema, &trevni.WriteOptions{Workers: workers, BlockSize: 2000, Progress: func(r, b int64) { progressRows, progressed = r, b }})
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			dropped, err := w.AppendCSV(t.Context(), bytes.NewReader(data), nil)
			if err != nil || dropped != 0 {
				t.Fatalf("AppendCSV: %d dropped, %v", dropped, err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		ds, err := trevni.OpenReaderAt(t.Context(), bytes.NewReader(buf.Bytes()), int64(buf.Len()), "x.trv", nil)
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		for rec, err := range ds.All(t.Context(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			row := rows[1+i%(len(rows)-1)]
			m := rec.(map[string]any)
			id, _ := strconv.ParseInt(row[col["id"]], 10, 32)
			age, _ := strconv.ParseInt(row[col["age"]], 10, 32)
			salary, _ := strconv.ParseFloat(row[col["salary"]], 64)
			if m["id"] != int32(id) || m["age"] != int32(age) || m["salary"] != salary ||
				m["name"] != row[col["name"]] || m["email"] != row[col["email"]] || m["city"] != row[col["city"]] {
				t.Fatalf("workers %d: record %d is %v, the CSV's row %v", workers, i, m, row)
			}
			i++
		}
		ds.Close()
		if i != 3*(len(rows)-1) {
			t.Errorf("workers %d: %d records, want %d", workers, i, 3*(len(rows)-1))
		}
		if progressRows != int64(i) || progressed != int64(len(data)) {
			t.Errorf("workers %d: Progress last told %d records and %d bytes, want %d and %d", workers, progressRows, progressed, i, len(data))
		}
	}
}

// A record of the wrong width is an error wrapping ErrRagged, padded with
// nulls with RaggedPad, dropped and counted with RaggedDrop; NoHeader
// takes the fields in order and Comma the separator.
func TestAppendCSVRagged(t *testing.T) {
	const schema = `{"type":"record","name":"Row","fields":[{"name":"a","type":"long"},{"name":"b","type":["null","string"]}]}`
	const in = "a;b\n1;x\n2\n3;z\n"
	for _, c := range []struct {
		opts    trevni.CSVOptions
		dropped int64
		want    string // the records as JSON lines, or "" for ErrRagged
	}{
		{trevni.CSVOptions{Comma: ';'}, 0, ""},
		{trevni.CSVOptions{Comma: ';', Ragged: trevni.RaggedPad}, 0, `{"a":1,"b":{"string":"x"}}` + "\n" + `{"a":2,"b":null}` + "\n" + `{"a":3,"b":{"string":"z"}}` + "\n"},
		{trevni.CSVOptions{Comma: ';', Ragged: trevni.RaggedDrop}, 1, `{"a":1,"b":{"string":"x"}}` + "\n" + `{"a":3,"b":{"string":"z"}}` + "\n"},
	} {
		var buf bytes.Buffer
		w, err := trevni.NewWriter(&buf, schema, nil)
		if err != nil {
			t.Fatal(err)
		}
		dropped, err := w.AppendCSV(t.Context(), strings.NewReader(in), &c.opts)
		if c.want == "" {
			if !errors.Is(err, trevni.ErrRagged) || !strings.Contains(err.Error(), "line 3") {
				t.Errorf("%+v: %v, want ErrRagged at line 3", c.opts, err)
			}
			w.Abort()
			continue
		}
		if err != nil || dropped != c.dropped {
			t.Fatalf("%+v: %d dropped, %v", c.opts, dropped, err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got := readJSON(t, buf.Bytes()); got != c.want {
			t.Errorf("%+v: records\n%s, want\n%s", c.opts, got, c.want)
		}
	}
	var buf bytes.Buffer
	w, err := trevni.NewWriter(&buf, schema, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AppendCSV(t.Context(), strings.NewReader("7\tq\n"), &trevni.CSVOptions{Comma: '\t', NoHeader: true}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := readJSON(t, buf.Bytes()), `{"a":7,"b":{"string":"q"}}`+"\n"; got != want {
		t.Errorf("NoHeader: %q, want %q", got, want)
	}
}

// The errors of the writers name the options a program of the root sets
// (WriteOptions', ProtoWriteOptions'), not those of the packages beneath,
// and still wrap their causes.
func TestStreamWriteErrorsNameTheRootsOptions(t *testing.T) {
	const schema = `{"type":"record","name":"R","fields":[{"name":"s","type":"string"}]}`
	noneBeneath := func(t *testing.T, err error, option string) {
		t.Helper()
		if err == nil {
			t.Fatalf("no error naming %s", option)
		}
		msg := err.Error()
		if !strings.Contains(msg, option) || strings.Contains(msg, "WriterOptions") || strings.Contains(msg, "ProtoOptions") || strings.Contains(msg, "layout.Options") {
			t.Errorf("the error does not name %s alone: %v", option, err)
		}
	}
	var buf bytes.Buffer
	_, err := trevni.NewWriter(&buf, schema, &trevni.WriteOptions{BlockSize: 1 << 30})
	noneBeneath(t, err, "WriteOptions.BlockSize")

	w, err := trevni.NewWriter(&buf, schema, &trevni.WriteOptions{MaxBlockSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Write(map[string]any{"s": strings.Repeat("x", 2<<20)})
	noneBeneath(t, err, "WriteOptions.MaxBlockSize")
	if !errors.Is(err, trevni.ErrLimit) {
		t.Errorf("not ErrLimit: %v", err)
	}
	w.Abort()

	md := (&structpb.Struct{}).ProtoReflect().Descriptor()
	line := `{"k": "` + strings.Repeat("y", 300) + `"}` + "\n"
	_, err = trevni.ConvertProtoStream(t.Context(), &buf, strings.NewReader(line), trevni.JSONLines, md, &trevni.ProtoWriteOptions{MaxJSONMessage: 100})
	noneBeneath(t, err, "ProtoWriteOptions.MaxJSONMessage")
}
