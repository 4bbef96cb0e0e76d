package trevni_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/protorand"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/protoload"
	"github.com/trevni-go/trevni/shred"
)

// jsonValues decodes a stream of JSON values (numbers as json.Number).
func jsonValues(t *testing.T, b []byte) []any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out []any
	for d.More() {
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("%v in %s", err, b)
		}
		out = append(out, v)
	}
	return out
}

// protojsonLines marshals msgs with protojson.
func protojsonLines(t *testing.T, msgs ...proto.Message) []byte {
	t.Helper()
	var out []byte
	for _, m := range msgs {
		b, err := protojson.MarshalOptions{AllowPartial: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(out, b...), '\n')
	}
	return out
}

// refused reports whether protojson refuses one of msgs.
func refused(msgs ...proto.Message) bool {
	for _, m := range msgs {
		if _, err := (protojson.MarshalOptions{AllowPartial: true}).Marshal(m); err != nil {
			return true
		}
	}
	return false
}

// checkProtoJSON writes ds in plain JSON, one line per message and
// indented, and compares with protojson.Marshal of msgs as decoded JSON
// (protojson's spacing varies from build to build). Where protojson
// refuses a message, WriteJSON must fail.
func checkProtoJSON(t *testing.T, ds *trevni.Dataset, msgs []proto.Message) {
	t.Helper()
	var want bytes.Buffer
	for i, m := range msgs {
		b, err := protojson.MarshalOptions{AllowPartial: true}.Marshal(m)
		if err != nil {
			_, werr := ds.WriteJSON(context.Background(), io.Discard, nil, &trevni.JSONOptions{Plain: true})
			var se *schema.Error
			if !errors.As(werr, &se) || se.Record != int64(i) {
				t.Fatalf("protojson refuses message %d (%v); WriteJSON: %v", i, err, werr)
			}
			return
		}
		want.Write(b)
	}
	wantValues := jsonValues(t, want.Bytes())
	for _, pretty := range []bool{false, true} {
		var got bytes.Buffer
		n, err := ds.WriteJSON(context.Background(), &got, nil, &trevni.JSONOptions{Plain: true, Pretty: pretty})
		if err != nil {
			t.Fatal(err)
		}
		if n != int64(len(msgs)) {
			t.Fatalf("wrote %d messages, want %d", n, len(msgs))
		}
		if !pretty && bytes.Count(got.Bytes(), []byte("\n")) != len(msgs) {
			t.Fatalf("%d lines for %d messages", bytes.Count(got.Bytes(), []byte("\n")), len(msgs))
		}
		gotValues := jsonValues(t, got.Bytes())
		if len(gotValues) != len(wantValues) {
			t.Fatalf("pretty %v: %d values, want %d", pretty, len(gotValues), len(wantValues))
		}
		for i := range gotValues {
			if !reflect.DeepEqual(gotValues[i], wantValues[i]) {
				g, _ := json.Marshal(gotValues[i])
				w, _ := json.Marshal(wantValues[i])
				t.Fatalf("pretty %v message %d:\n got %s\nwant %s", pretty, i, g, w)
			}
		}
	}
}

// TestPlainJSONLegacyProto: the legacy protobuf files in plain JSON are
// protojson's JSON of the messages of their .pb files.
func TestPlainJSONLegacyProto(t *testing.T) {
	files, _ := filepath.Glob("testdata/proto/legacy/*.trv")
	if len(files) == 0 {
		t.Fatal("no legacy files")
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			rc, err := format.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			meta := rc.Reader.Meta()
			set, _ := meta.Get(protoload.MetaDescriptorSet)
			md, err := protoload.MessageFromDescriptorSet(set, meta.GetString(protoload.MetaMessage))
			if err != nil {
				t.Fatal(err)
			}
			pb, err := os.ReadFile(strings.TrimSuffix(name, ".trv") + ".pb")
			if err != nil {
				t.Fatal(err)
			}
			var msgs []proto.Message
			r := bytes.NewReader(pb)
			for r.Len() > 0 {
				m := dynamicpb.NewMessage(md)
				if err := (protodelim.UnmarshalOptions{UnmarshalOptions: proto.UnmarshalOptions{AllowPartial: true}}).UnmarshalFrom(r, m); err != nil {
					t.Fatal(err)
				}
				msgs = append(msgs, m)
			}
			ds, err := trevni.Open(context.Background(), name, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ds.Close()
			checkProtoJSON(t, ds, msgs)
			// Two parts, from the last message of the first for two: the
			// last and the first message.
			two, err := trevni.OpenFiles(context.Background(), []string{name, name}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer two.Close()
			rows := int64(len(msgs))
			var got bytes.Buffer
			_, err = two.WriteJSON(context.Background(), &got, &trevni.ReadOptions{Offset: rows - 1, Limit: 2}, &trevni.JSONOptions{Plain: true})
			if refused(msgs[rows-1], msgs[0]) {
				if err == nil {
					t.Fatal("two parts: no error where protojson refuses")
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				want := jsonValues(t, protojsonLines(t, msgs[rows-1], msgs[0]))
				if g := jsonValues(t, got.Bytes()); !reflect.DeepEqual(g, want) {
					t.Fatalf("two parts, offset %d, limit 2:\n got %s\nwant %v", rows-1, got.Bytes(), want)
				}
			}
		})
	}
}

// TestPlainJSONRandomProto: random messages of a type with every kind of
// field (well-known types, wrappers, enums, maps, oneofs), unknown fields
// among them, written to a file and read back in plain JSON, are
// protojson's JSON of the messages written.
func TestPlainJSONRandomProto(t *testing.T) {
	files, err := protoload.CompileProto(context.Background(), []string{"testdata/proto"}, "trevni/test/proto3.proto")
	if err != nil {
		t.Fatal(err)
	}
	md, err := protoload.FindMessage(files, "trevni.test.p3.Everything")
	if err != nil {
		t.Fatal(err)
	}
	var msgs []proto.Message
	for seed := uint64(0); seed < 60; seed++ {
		m := dynamicpb.NewMessage(md)
		f := protorand.New(seed)
		f.Fill(m)
		tame(m)
		if _, err := protojson.Marshal(m); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		msgs = append(msgs, m)
	}
	var buf bytes.Buffer
	pw, err := shred.NewProtoWriter(&buf, md, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if err := pw.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	ds, err := trevni.OpenReaderAt(context.Background(), bytes.NewReader(buf.Bytes()), int64(buf.Len()), "random.trv", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	checkProtoJSON(t, ds, msgs)
}

// tame brings the random values protojson refuses into its range:
// Timestamps within years 1 to 9999, Durations within ±10000 years with
// nanos of the seconds' sign, Any without a type and FieldMask without
// paths, Value with a kind and a finite number.
func tame(m protoreflect.Message) {
	fields := m.Descriptor().Fields()
	switch m.Descriptor().FullName() {
	case "google.protobuf.Timestamp":
		secs, nanos := fields.ByName("seconds"), fields.ByName("nanos")
		const lo, span = -62135596800, 253402300799 + 62135596800 + 1
		s := m.Get(secs).Int() % span
		if s < 0 {
			s += span
		}
		m.Set(secs, protoreflect.ValueOfInt64(lo+s))
		m.Set(nanos, protoreflect.ValueOfInt32(int32(abs(m.Get(nanos).Int())%1e9)))
	case "google.protobuf.Duration":
		secs, nanos := fields.ByName("seconds"), fields.ByName("nanos")
		s := m.Get(secs).Int() % 315576000001
		n := abs(m.Get(nanos).Int()) % 1e9
		if s < 0 {
			n = -n
		}
		m.Set(secs, protoreflect.ValueOfInt64(s))
		m.Set(nanos, protoreflect.ValueOfInt32(int32(n)))
	case "google.protobuf.Value":
		kind := m.Descriptor().Oneofs().ByName("kind")
		num := fields.ByName("number_value")
		if which := m.WhichOneof(kind); which == nil {
			m.Set(fields.ByName("null_value"), protoreflect.ValueOfEnum(0))
		} else if which == num && (math.IsNaN(m.Get(num).Float()) || math.IsInf(m.Get(num).Float(), 0)) {
			m.Set(num, protoreflect.ValueOfFloat64(0))
		}
	case "google.protobuf.Any", "google.protobuf.FieldMask":
		for i := range fields.Len() {
			m.Clear(fields.Get(i))
		}
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, e protoreflect.Value) bool {
					tame(e.Message())
					return true
				})
			}
		case fd.IsList():
			if fd.Message() != nil {
				for i := range v.List().Len() {
					tame(v.List().Get(i).Message())
				}
			}
		case fd.Message() != nil:
			tame(v.Message())
		}
		return true
	})
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestPlainJSONAvroFrontDoor writes selected fields of Java's unions
// vector in plain JSON through the front door: each union is the value of
// its branch, as Java's Avro JSON says it.
func TestPlainJSONAvroFrontDoor(t *testing.T) {
	ctx := context.Background()
	ds, err := trevni.Open(ctx, "testdata/interop/unions/unions.deflate.crc32.trv", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	var got bytes.Buffer
	if _, err := ds.WriteJSON(ctx, &got, &trevni.ReadOptions{Fields: []string{"os", "nonnull"}}, &trevni.JSONOptions{Plain: true}); err != nil {
		t.Fatal(err)
	}
	java, err := os.ReadFile("testdata/interop/unions/expected.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	unwrap := func(v any) any {
		if m, ok := v.(map[string]any); ok {
			for _, inner := range m {
				return inner
			}
		}
		return v
	}
	var want []any
	for _, v := range jsonValues(t, java) {
		m := v.(map[string]any)
		want = append(want, map[string]any{"os": unwrap(m["os"]), "nonnull": unwrap(m["nonnull"])})
	}
	if gotValues := jsonValues(t, got.Bytes()); !reflect.DeepEqual(gotValues, want) || len(want) == 0 {
		t.Fatalf("got %s\nwant %v", got.Bytes(), want)
	}
}
