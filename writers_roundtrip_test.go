package trevni_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"
	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/schema/protoschema"
)

// goavroRecords decodes an Avro container file with goavro.
func goavroRecords(t *testing.T, b []byte) []any {
	t.Helper()
	r, err := goavro.NewOCFReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	for r.Scan() {
		v, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	return out
}

// asAvro reads a Trevni file's records through the front door as an Avro
// container file, decoded by goavro.
func asAvro(t *testing.T, trv []byte) []any {
	t.Helper()
	ctx := context.Background()
	ds, err := trevni.OpenReaderAt(ctx, bytes.NewReader(trv), int64(len(trv)), "written.trv", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	var avro bytes.Buffer
	if _, err := ds.WriteAvro(ctx, &avro, nil, nil); err != nil {
		t.Fatal(err)
	}
	return goavroRecords(t, avro.Bytes())
}

// ownedStruct turns goavro's decoding of an ownedSchema record into the
// struct that holds it.
func ownedStruct(m map[string]any) owned {
	o := owned{ID: m["id"].(int64), Name: m["name"].(string), Raw: m["raw"].([]byte)}
	for _, s := range m["tags"].([]any) {
		o.Tags = append(o.Tags, s.(string))
	}
	o.Attrs = map[string]int64{}
	for k, v := range m["attrs"].(map[string]any) {
		o.Attrs[k] = v.(int64)
	}
	if u, ok := m["opt"].(map[string]any); ok {
		v := u["int"].(int32)
		o.Opt = &v
	}
	for _, p := range m["pts"].([]any) {
		pm := p.(map[string]any)
		pt := ownedPt{X: pm["x"].(float64)}
		for _, l := range pm["labels"].([]any) {
			pt.Labels = append(pt.Labels, l.(string))
		}
		o.Pts = append(o.Pts, pt)
	}
	return o
}

// NewStructWriter writes to an io.Writer the records of Go structs that
// goavro decodes back (through the front door's Avro output) equal to the
// records the structs were made of, in batches of any size; with a
// schema given and with the schema derived from the struct type (which
// gives the same records); and CreateStructs writes the same bytes to a
// file.
func TestNewStructWriterRoundTrip(t *testing.T) {
	_, want := ownedFile(t, 3000)
	rows := make([]owned, len(want))
	wantAny := make([]any, len(want))
	for i, m := range want {
		rows[i] = ownedStruct(m)
		wantAny[i] = m
	}
	write := func(schemaText string) []byte {
		var buf bytes.Buffer
		w, err := trevni.NewStructWriter[owned](&buf, schemaText, &trevni.WriteOptions{BlockSize: 4 << 10})
		if err != nil {
			t.Fatal(err)
		}
		for at, step := 0, 1; at < len(rows); at, step = at+step, step*2+1 {
			n, err := w.Write(rows[at:min(at+step, len(rows))])
			if err != nil || n != min(step, len(rows)-at) {
				t.Fatalf("Write: %d, %v", n, err)
			}
		}
		if w.Records() != int64(len(rows)) {
			t.Fatalf("Records: %d, want %d", w.Records(), len(rows))
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	given := write(ownedSchema)
	if got := asAvro(t, given); !reflect.DeepEqual(got, wantAny) {
		t.Fatalf("NewStructWriter: the records read back differ from goavro's (%d and %d records)", len(got), len(wantAny))
	}
	derived := write("")
	if got := asAvro(t, derived); len(got) != len(want) {
		t.Fatalf("derived schema: %d records, want %d", len(got), len(want))
	}
	// The derived schema's records, read into the struct, are the rows.
	ctx := context.Background()
	ds, err := trevni.OpenReaderAt(ctx, bytes.NewReader(derived), int64(len(derived)), "derived.trv", nil)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for o, err := range trevni.ReadStructs[owned](ctx, ds, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if err := sameOwned(o, want[i]); err != nil {
			t.Fatalf("derived schema, record %d: %v", i, err)
		}
		i++
	}
	if i != len(want) {
		t.Fatalf("derived schema: %d structs, want %d", i, len(want))
	}
	// CreateStructs writes the same file.
	name := filepath.Join(t.TempDir(), "s.trv")
	cw, err := trevni.CreateStructs[owned](ctx, name, ownedSchema, &trevni.WriteOptions{BlockSize: 4 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cw.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(name); err != nil || !bytes.Equal(b, given) {
		t.Fatalf("CreateStructs wrote other bytes than NewStructWriter (%v)", err)
	}
}

// NewProtoWriter writes to an io.Writer the messages of
// testdata/proto/legacy's .pb files, decoded by protobuf-go (Write) or
// given as wire bytes (WriteWire); read back through the front door, the
// delimited stream is the .pb file byte for byte (WriteWire: but for the
// messages missing a required field, which it refuses) and the messages
// are protobuf-go's decoding of it.
func TestNewProtoWriterRoundTrip(t *testing.T) {
	ctx := context.Background()
	files, _ := filepath.Glob("testdata/proto/legacy/*.trv")
	if len(files) == 0 {
		t.Fatal("no legacy files")
	}
	for _, name := range files {
		pb, err := os.ReadFile(strings.TrimSuffix(name, ".trv") + ".pb")
		if err != nil {
			t.Fatal(err)
		}
		// The message type: the one the file stores.
		ds, err := trevni.Open(ctx, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		var md protoreflect.MessageDescriptor
		for m, err := range ds.Messages(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			md = m.ProtoReflect().Descriptor()
			break
		}
		ds.Close()
		if md == nil {
			t.Fatalf("%s: no message", name)
		}
		// protobuf-go's decoding of the .pb file.
		var msgs []proto.Message
		for r := bytes.NewReader(pb); r.Len() > 0; {
			m := dynamicpb.NewMessage(md)
			if err := (protodelim.UnmarshalOptions{UnmarshalOptions: proto.UnmarshalOptions{AllowPartial: true}}).UnmarshalFrom(r, m); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			msgs = append(msgs, m)
		}
		wires := splitDelimited(t, pb)
		for _, how := range []string{"Write", "WriteWire"} {
			var buf bytes.Buffer
			w, err := trevni.NewProtoWriter(&buf, md, &trevni.ProtoWriteOptions{WriteOptions: trevni.WriteOptions{Codec: trevni.Snappy}})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			// A message whose required fields are unset is refused by
			// both, naming the field (WriteWire parses as proto.Unmarshal
			// does; Write hands such a message to it), and writing goes
			// on with the next.
			var kept []proto.Message
			var keptPB []byte
			for i, m := range msgs {
				if how == "Write" {
					err = w.Write(m)
				} else {
					_, k := uvarint(wires[i])
					err = w.WriteWire(wires[i][k:])
				}
				if proto.CheckInitialized(m) != nil {
					if err == nil || !strings.Contains(err.Error(), "required field") {
						t.Fatalf("%s: %s %d: a message missing a required field: %v", name, how, i, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %s %d: %v", name, how, i, err)
				}
				kept = append(kept, m)
				keptPB = append(keptPB, wires[i]...)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s (%s): %d of %d messages written", name, how, len(kept), len(msgs))
			back, err := trevni.OpenReaderAt(ctx, bytes.NewReader(buf.Bytes()), int64(buf.Len()), "written.trv", nil)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if _, err := back.WriteProto(ctx, &got, protoschema.Delimited, nil); err != nil {
				t.Fatalf("%s (%s): %v", name, how, err)
			}
			if !bytes.Equal(got.Bytes(), keptPB) {
				t.Fatalf("%s (%s): the messages read back differ from the .pb file's", name, how)
			}
			i := 0
			// Read into md's type, so that proto.Equal compares them.
			for m, err := range back.Messages(ctx, &trevni.ProtoOptions{MessageType: dynamicpb.NewMessageType(md)}) {
				if err != nil {
					t.Fatal(err)
				}
				if i >= len(kept) || !proto.Equal(m, kept[i]) {
					t.Fatalf("%s (%s): message %d differs from protobuf-go's decoding", name, how, i)
				}
				i++
			}
			if i != len(kept) {
				t.Fatalf("%s (%s): %d messages, want %d", name, how, i, len(kept))
			}
			back.Close()
		}
	}
}

// Concat joins files Java wrote with three codecs into one whose records,
// read back through the front door and decoded by goavro, are goavro's
// decoding of the Avro file Java wrote them from, three times; the file
// is Dataset.Concat's of the same parts byte for byte. A part of other
// columns or another format is refused, naming it, and leaves nothing; an
// existing output is kept unless Replace.
func TestConcat(t *testing.T) {
	ctx := context.Background()
	email := filepath.Join("testdata", "interop", "email")
	parts := []string{
		filepath.Join(email, "email.deflate.crc32.trv"),
		filepath.Join(email, "email.snappy.crc32.trv"),
		filepath.Join(email, "email.bzip2.crc32.trv"),
	}
	avro, err := os.ReadFile(filepath.Join(email, "input.avro"))
	if err != nil {
		t.Fatal(err)
	}
	one := goavroRecords(t, avro)
	want := append(append(append([]any{}, one...), one...), one...)
	dir := t.TempDir()
	out := filepath.Join(dir, "all.trv")
	n, err := trevni.Concat(ctx, out, parts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(len(want)) {
		t.Fatalf("Concat: %d rows, want %d", n, len(want))
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if recs := asAvro(t, got); !reflect.DeepEqual(recs, want) {
		t.Fatalf("Concat: the records differ from goavro's decoding of input.avro three times (%d, %d)", len(recs), len(want))
	}
	ds, err := trevni.OpenFiles(ctx, parts, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := ds.Concat(ctx, &buf, nil); err != nil {
		t.Fatal(err)
	}
	ds.Close()
	if !bytes.Equal(buf.Bytes(), got) {
		t.Fatal("Dataset.Concat and Concat wrote other bytes")
	}
	// Recompressed with another codec, the same records.
	zout := filepath.Join(dir, "z.trv")
	if _, err := trevni.Concat(ctx, zout, parts, &trevni.WriteOptions{Codec: trevni.Zstd, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	if z, err := os.ReadFile(zout); err != nil || !reflect.DeepEqual(asAvro(t, z), want) {
		t.Fatalf("Concat with Zstd: the records differ (%v)", err)
	}

	// An existing output is kept without Replace.
	_, err = trevni.Concat(ctx, out, parts[:1], nil)
	if !errors.Is(err, trevni.ErrExists) {
		t.Fatalf("Concat over an existing file: %v, want ErrExists", err)
	}
	if b, _ := os.ReadFile(out); !bytes.Equal(b, got) {
		t.Fatal("a refused Concat changed the output")
	}
	if _, err := trevni.Concat(ctx, out, parts[:1], &trevni.WriteOptions{Replace: true}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); reflect.DeepEqual(asAvro(t, b), want) || !reflect.DeepEqual(asAvro(t, b), one) {
		t.Fatal("Replace did not replace the output with one part's records")
	}

	// Refused: other columns, another format; nothing is left.
	other := filepath.Join("testdata", "interop", "primitives", "primitives.null.crc32.trv")
	v1 := filepath.Join("testdata", "trevni1", "impala_all_types.trv")
	for _, c := range []struct {
		parts []string
		msg   string
	}{
		{[]string{parts[0], other}, parts[0] + " and " + other + " cannot be joined: their schemas differ at column 0"},
		{[]string{parts[0], v1}, v1 + ": a Trevni 1 file: concat joins Trevni 2 files only"},
	} {
		dst := filepath.Join(dir, "refused.trv")
		if _, err := trevni.Concat(ctx, dst, c.parts, nil); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Concat %q: %v, want %q", c.parts, err, c.msg)
		}
		if _, err := os.Stat(dst); !os.IsNotExist(err) {
			t.Errorf("Concat %q failed and left %s", c.parts, dst)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("left in the directory: %v", ents)
	}
}
