package assemble

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"testing"
	"time"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/internal/avrojson"
	"github.com/trevni-go/trevni/internal/testing/avrorand"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/schema/protoschema"
	"github.com/trevni-go/trevni/shred"
	"google.golang.org/protobuf/types/known/structpb"
)

// shredPatched writes records of schema text with shred (codec null, no
// checksum) and then replaces each old string of the file's bytes with
// its new one of the same length: a way to damage values the writer would
// refuse. The file has no statistics, which would hold the strings too.
func shredPatched(t *testing.T, text string, recs []any, patch ...string) []byte {
	t.Helper()
	var file bytes.Buffer
	aw, err := shred.NewAvroWriter(&file, text, &shred.Options{WriterOptions: format.WriterOptions{DisableStats: true}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := aw.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	b := file.Bytes()
	for i := 0; i < len(patch); i += 2 {
		if bytes.Count(b, []byte(patch[i])) != 1 || len(patch[i]) != len(patch[i+1]) {
			t.Fatalf("cannot patch %q in the file", patch[i])
		}
		b = bytes.Replace(b, []byte(patch[i]), []byte(patch[i+1]), 1)
	}
	return b
}

// rawFile writes a file of schema text's layout column by column, so that
// it can hold what no Avro value shreds to.
func rawFile(t *testing.T, text string, rows int, write func(w *format.Writer)) []byte {
	t.Helper()
	s, err := schema.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	lay, err := layout.New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	var meta format.MetaData
	meta.SetString(layout.MetaAvroSchema, text)
	var file bytes.Buffer
	w, err := format.NewWriter(&file, lay.Metas(), &format.WriterOptions{Meta: meta})
	if err != nil {
		t.Fatal(err)
	}
	for range rows {
		if err := w.StartRow(); err != nil {
			t.Fatal(err)
		}
		write(w)
		if err := w.EndRow(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return file.Bytes()
}

// readPaths reads one record of a file through each read path.
var readPaths = []struct {
	name string
	read func(ar *AvroReader) error
}{
	{"Read", func(ar *AvroReader) error { _, err := ar.Read(); return err }},
	{"ReadBinary", func(ar *AvroReader) error { _, err := ar.ReadBinary(nil); return err }},
	{"ReadJSON", func(ar *AvroReader) error { _, err := ar.ReadJSON(nil); return err }},
	{"ReadPlainJSON", func(ar *AvroReader) error { _, err := ar.ReadPlainJSON(nil); return err }},
}

// TestDamagedValues reads files whose data is bad for the schema through
// every read path: each must refuse the record with a *schema.Error giving
// the record and the field, wrapping a format error that gives the column,
// block and row.
func TestDamagedValues(t *testing.T) {
	const rec = `{"type":"record","name":"R","fields":[
		{"name":"id","type":"long"},
		{"name":"m","type":{"type":"map","values":"int"}},
		{"name":"s","type":"string"},
		{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},
		{"name":"f","type":{"type":"fixed","name":"F","size":2}},
		{"name":"u","type":["int","string"]}]}`
	good := func(id int64, key, s string) any {
		return map[string]any{"id": id, "m": map[string]any{key: int32(1)}, "s": s, "e": "B", "f": []byte("xy"),
			"u": map[string]any{"int": int32(3)}}
	}
	twoRecs := []any{good(0, "k", "fine"), good(1, "KEYMARK", "STRMARK")}
	cases := []struct {
		name   string
		file   []byte
		path   string
		column string
	}{
		{"map key not UTF-8", shredPatched(t, rec, twoRecs, "KEYMARK", "K\xffYMARK"), `m[0]`, "m>key"},
		{"string not UTF-8", shredPatched(t, rec, twoRecs, "STRMARK", "S\xc0RMARK"), `s`, "s"},
		{"enum ordinal", rawFile(t, `{"type":"enum","name":"E","symbols":["A","B"]}`, 2, func(w *format.Writer) {
			w.WriteInt(0, int32(w.RowCount()*7))
		}), "", "E"},
		{"fixed size", rawFile(t, `{"type":"fixed","name":"F","size":2}`, 2, func(w *format.Writer) {
			w.WriteBytes(0, make([]byte, 2+w.RowCount()))
		}), "", "F"},
		{"two union branches", rawFile(t, `["int","string"]`, 2, func(w *format.Writer) {
			n := 1 + int(w.RowCount())
			w.WriteLength(0, n)
			for range n {
				w.WriteInt(0, 1)
			}
			w.WriteLength(1, 0)
		}), "", "int"},
	}
	for _, c := range cases {
		for _, rp := range readPaths {
			t.Run(c.name+"/"+rp.name, func(t *testing.T) {
				rd, err := format.NewReader(bytes.NewReader(c.file), int64(len(c.file)), nil)
				if err != nil {
					t.Fatal(err)
				}
				ar, err := NewAvroReader(rd, nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := rp.read(ar); err != nil {
					t.Fatalf("record 0: %v", err)
				}
				err = rp.read(ar)
				var se *schema.Error
				if !errors.As(err, &se) || se.Record != 1 || se.Path != c.path {
					t.Fatalf("got %v (%#v), want a *schema.Error of record 1, field %q", err, se, c.path)
				}
				var fe *format.Error
				if !errors.As(err, &fe) || fe.Column != c.column || fe.Row != 1 || fe.Block != 0 || !errors.Is(err, format.ErrFormat) {
					t.Fatalf("got %v, want a format error in column %q, block 0, row 1", err, c.column)
				}
			})
		}
	}
}

// TestRecordNumbersAbsolute checks that errors count records from the
// start of the file, also after SeekRow.
func TestRecordNumbersAbsolute(t *testing.T) {
	recs := make([]any, 10)
	for i := range recs {
		recs[i] = map[string]any{"s": "ok"}
	}
	recs[7] = map[string]any{"s": "BADMARK"}
	b := shredPatched(t, `{"type":"record","name":"R","fields":[{"name":"s","type":"string"}]}`, recs, "BADMARK", "BAD\xffARK")
	for _, rp := range readPaths {
		rd := openBytes(t, b)
		ar, err := NewAvroReader(rd, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := ar.SeekRow(5); err != nil {
			t.Fatal(err)
		}
		for i := 5; ; i++ {
			err := rp.read(ar)
			if err == nil {
				continue
			}
			var se *schema.Error
			if !errors.As(err, &se) || se.Record != 7 || se.Path != "s" || i != 7 || errors.Is(err, io.EOF) {
				t.Fatalf("%s: record %d: %v, want record 7, field s", rp.name, i, err)
			}
			break
		}
	}
}

// TestValidateFindsDamage checks that Validate reports what the read
// paths report, for the same record and field.
func TestValidateFindsDamage(t *testing.T) {
	recs := make([]any, 10)
	for i := range recs {
		recs[i] = map[string]any{"a": []any{"ok", "fine"}}
	}
	recs[6] = map[string]any{"a": []any{"ok", "BADMARK"}}
	text := `{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"array","items":"string"}}]}`
	b := shredPatched(t, text, recs, "BADMARK", "BAD\xffARK")
	rd := openBytes(t, b)
	ar, err := NewAvroReader(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = ar.Validate(context.Background())
	var se *schema.Error
	if !errors.As(err, &se) || se.Record != 6 || se.Path != "a[1]" || !errors.Is(err, format.ErrFormat) {
		t.Fatalf("Validate: %v, want record 6, field a[1]", err)
	}
	good := shredPatched(t, text, recs[:6])
	rd = openBytes(t, good)
	if ar, err = NewAvroReader(rd, nil); err != nil {
		t.Fatal(err)
	}
	if err := ar.Validate(context.Background()); err != nil {
		t.Fatalf("Validate of a good file: %v", err)
	}
	if _, err := ar.Read(); err != io.EOF {
		t.Fatalf("Read after Validate: %v, want EOF", err)
	}
}

// TestValidateLinear checks that Validate's time follows the bytes stored,
// not the records or elements they claim.
func TestValidateLinear(t *testing.T) {
	// 2^62 empty records: the schema has no column, so the file is a header.
	empty := rawFile(t, `{"type":"record","name":"E","fields":[]}`, 1, func(*format.Writer) {})
	binary.LittleEndian.PutUint64(empty[4:12], 1<<62)
	// One array of 2^31-1 nulls: one length in one column.
	nulls := rawFile(t, `{"type":"array","items":"null"}`, 1, func(w *format.Writer) {
		w.WriteLength(0, math.MaxInt32)
	})
	// 2^31-1 arrays of empty records, as a run in the file.
	records := rawFile(t, `{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"array","items":{"type":"record","name":"E","fields":[]}}}]}`, 3, func(w *format.Writer) {
		w.WriteLength(0, math.MaxInt32-int(w.RowCount()))
	})
	for name, file := range map[string][]byte{"empty records": empty, "nulls": nulls, "empty record items": records} {
		if len(file) > 300 {
			t.Errorf("%s: the file has %d bytes", name, len(file))
		}
		rd := openBytes(t, file)
		ar, err := NewAvroReader(rd, nil)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := ar.Validate(context.Background()); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("%s: Validate took %v", name, d)
		}
	}
}

// TestColumnlessItems checks the read paths on arrays whose items read no
// column (they are counted, not read one by one) against goavro and the
// JSON encoding of the values.
func TestColumnlessItems(t *testing.T) {
	writer := `{"type":"record","name":"R","fields":[
		{"name":"n","type":{"type":"array","items":"null"}},
		{"name":"e","type":{"type":"array","items":{"type":"record","name":"E","fields":[]}}},
		{"name":"u","type":{"type":"array","items":["null"]}},
		{"name":"m","type":{"type":"map","values":"null"}}]}`
	reader := `{"type":"record","name":"R","fields":[
		{"name":"n","type":{"type":"array","items":["int","null"]}},
		{"name":"e","type":{"type":"array","items":{"type":"record","name":"E","fields":[
			{"name":"d","type":{"type":"map","values":"string"},"default":{"k":"v"}}]}}},
		{"name":"u","type":{"type":"array","items":"null"}},
		{"name":"m","type":{"type":"map","values":["string","null"]}}]}`
	nulls := func(n int) []any { return make([]any, n) }
	empties := func(n int) []any {
		l := make([]any, n)
		for i := range l {
			l[i] = map[string]any{}
		}
		return l
	}
	var recs []any
	for _, n := range []int{0, 1, 2, 5} {
		recs = append(recs, map[string]any{"n": nulls(n), "e": empties(n), "u": nulls(n), "m": map[string]any{"a": nil, "b": nil}})
	}
	file := shredPatched(t, writer, recs)
	for _, text := range []string{writer, reader} {
		codec, err := goavro.NewCodec(text)
		if err != nil {
			t.Fatal(err)
		}
		s := schema.MustParse(text)
		open := func() *AvroReader {
			rd := openBytes(t, file)
			ar, err := NewAvroReader(rd, &Options{ReaderSchema: text})
			if err != nil {
				t.Fatal(err)
			}
			return ar
		}
		values, bin, js := open(), open(), open()
		for i := range recs {
			v, err := values.Read()
			if err != nil {
				t.Fatal(err)
			}
			b, err := bin.ReadBinary(nil)
			if err != nil {
				t.Fatal(err)
			}
			got, rest, err := codec.NativeFromBinary(b)
			if err != nil || len(rest) > 0 || !avrorand.EqualNative(got, v) {
				t.Fatalf("record %d: ReadBinary gives %v (%v), Read %v", i, got, err, v)
			}
			j, err := js.ReadJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := avrojson.Append(nil, s, v)
			if err != nil || !bytes.Equal(j, want) {
				t.Fatalf("record %d: ReadJSON gives %s, want %s (%v)", i, j, want, err)
			}
			if l := v.(map[string]any)["e"].([]any); len(l) > 1 && text == reader {
				// Each item is a value of its own.
				l[0].(map[string]any)["d"].(map[string]any)["k"] = "changed"
				if l[1].(map[string]any)["d"].(map[string]any)["k"] != "v" {
					t.Fatalf("record %d: items share their default", i)
				}
			}
		}
	}
}

// TestValidateRuns checks that Validate checks records that read only
// lengths from runs as runs: it walks few of them, and still finds bad
// data after them.
func TestValidateRuns(t *testing.T) {
	const rows = 200_000
	text := `{"type":"record","name":"R","fields":[
		{"name":"u","type":["null",{"type":"record","name":"E","fields":[]}]},
		{"name":"a","type":{"type":"array","items":{"type":"enum","name":"C","symbols":["X","Y"]}}},
		{"name":"e","type":{"type":"array","items":"E"}}]}`
	for _, bad := range []bool{false, true} {
		file := rawFile(t, text, rows, func(w *format.Writer) {
			w.WriteLength(0, 1) // u: E
			if bad && w.RowCount() == rows-3 {
				w.WriteLength(1, 1) // a: [7], no symbol of C
				w.WriteInt(1, 7)
			} else {
				w.WriteLength(1, 0) // a: []
			}
			w.WriteLength(2, 1) // e: [{}]
		})
		rd := openBytes(t, file)
		ar, err := NewAvroReader(rd, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = ar.Validate(context.Background())
		var se *schema.Error
		switch {
		case !bad && err != nil:
			t.Fatalf("Validate: %v", err)
		case bad && (!errors.As(err, &se) || se.Record != rows-3 || se.Path != "a[0]"):
			t.Fatalf("Validate: %v, want an error in record %d", err, rows-3)
		}
		if ar.checked > 100 {
			t.Errorf("Validate walked %d of %d records", ar.checked, rows)
		}
		t.Logf("bad: %v: %d bytes, %d records walked", bad, len(file), ar.checked)
	}
}

// TestProtoValidateRuns checks that ProtoReader.Validate, reading the
// file's own type, checks messages that read only lengths from runs as
// AvroReader.Validate does: few are converted; by Read (MessageType set),
// each is.
func TestProtoValidateRuns(t *testing.T) {
	const rows = 100_000
	md := (&structpb.ListValue{}).ProtoReflect().Descriptor()
	var file bytes.Buffer
	pw, err := shred.NewProtoWriter(&file, md, &shred.ProtoOptions{Mapping: &protoschema.Options{DropUnknown: true}})
	if err != nil {
		t.Fatal(err)
	}
	empty := &structpb.ListValue{}
	for range rows {
		if err := pw.Write(empty); err != nil {
			t.Fatal(err)
		}
	}
	if err := pw.Write(&structpb.ListValue{Values: []*structpb.Value{structpb.NewStringValue("last")}}); err != nil {
		t.Fatal(err)
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	for _, o := range []*ProtoOptions{nil, {MessageType: empty.ProtoReflect().Type()}} {
		pr, err := NewProtoReader(openBytes(t, file.Bytes()), o)
		if err != nil {
			t.Fatal(err)
		}
		if err := pr.Validate(t.Context()); err != nil {
			t.Fatalf("Validate: %v", err)
		}
		if pr.Row() != rows+1 {
			t.Fatalf("after Validate: row %d, want %d", pr.Row(), rows+1)
		}
		walked := pr.ar.checked + pr.ar.returned
		if o == nil && walked > 100 || o != nil && walked != rows+1 {
			t.Errorf("MessageType %v: Validate walked %d of %d messages", o != nil, walked, rows+1)
		}
	}
}
