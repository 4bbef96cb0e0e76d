package assemble_test

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

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/protorand"
	"github.com/trevni-go/trevni/schema/protoload"
	"github.com/trevni-go/trevni/schema/protoload/protosrc"
	"github.com/trevni-go/trevni/schema/protoschema"
	"github.com/trevni-go/trevni/shred"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

var wire = proto.MarshalOptions{Deterministic: true, AllowPartial: true}

// shredMessages writes msgs to a Trevni file and opens it.
func shredMessages(t *testing.T, md protoreflect.MessageDescriptor, msgs []proto.Message, opts *shred.ProtoOptions) *format.Reader {
	t.Helper()
	var buf bytes.Buffer
	pw, err := shred.NewProtoWriter(&buf, md, opts)
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
	rd, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

// checkRoundTrip reads the file back, into generated (when mt is set) and
// dynamic messages, and compares with the originals by proto.Equal and by
// deterministic wire bytes.
func checkRoundTrip(t *testing.T, rd *format.Reader, mt protoreflect.MessageType, msgs []proto.Message) {
	t.Helper()
	for _, typ := range []protoreflect.MessageType{mt, nil} {
		if typ == nil && mt == nil {
			continue
		}
		pr, err := assemble.NewProtoReader(rd, &assemble.ProtoOptions{MessageType: typ})
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range msgs {
			got, err := pr.Read()
			if err != nil {
				t.Fatalf("message %d: %v", i, err)
			}
			if typ != nil && !proto.Equal(got, want) {
				t.Fatalf("message %d differs:\nwant %v\n got %v", i, want, got)
			}
			a, _ := wire.Marshal(want)
			b, _ := wire.Marshal(got)
			if !bytes.Equal(a, b) {
				t.Fatalf("message %d (dynamic=%v): wire bytes differ", i, typ == nil)
			}
		}
		if _, err := pr.Read(); err != io.EOF {
			t.Fatalf("after the last message: %v", err)
		}
	}
}

// TestProtoOTLP round-trips randomly filled OpenTelemetry traces, metrics
// and logs through Trevni files.
func TestProtoOTLP(t *testing.T) {
	for _, typ := range []protoreflect.MessageType{
		(&tracepb.TracesData{}).ProtoReflect().Type(),
		(&metricspb.MetricsData{}).ProtoReflect().Type(),
		(&logspb.LogsData{}).ProtoReflect().Type(),
	} {
		var msgs []proto.Message
		for seed := uint64(0); seed < 40; seed++ {
			m := typ.New()
			f := protorand.New(seed)
			f.MaxDepth, f.Unknown = 6, seed%3 == 0
			f.Fill(m)
			msgs = append(msgs, m.Interface())
		}
		for _, codec := range []string{"null", "zstd"} {
			rd := shredMessages(t, typ.Descriptor(), msgs, &shred.ProtoOptions{File: shred.Options{WriterOptions: format.WriterOptions{Codec: codec, Checksum: "crc32", BlockSize: 1024}}})
			checkRoundTrip(t, rd, typ, msgs)
		}
	}
}

// TestProtoRecursive round-trips recursive types: FileDescriptorSets of
// real files, and Struct values.
func TestProtoRecursive(t *testing.T) {
	set := &descriptorpb.FileDescriptorSet{}
	for _, fd := range []protoreflect.FileDescriptor{
		descriptorpb.File_google_protobuf_descriptor_proto,
		tracepb.File_opentelemetry_proto_trace_v1_trace_proto,
		structpb.File_google_protobuf_struct_proto,
	} {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	st, err := structpb.NewStruct(map[string]any{"a": 1.5, "b": []any{"x", true, nil, map[string]any{"deep": []any{1.0}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		msgs []proto.Message
	}{
		{[]proto.Message{set, &descriptorpb.FileDescriptorSet{}}},
		{[]proto.Message{st, &structpb.Struct{}}},
		{[]proto.Message{timestamppb.New(timestamppb.Now().AsTime())}},
	} {
		md := tc.msgs[0].ProtoReflect().Descriptor()
		for _, limit := range []int{0, 2} {
			rd := shredMessages(t, md, tc.msgs, &shred.ProtoOptions{Mapping: &protoschema.Options{RecursionLimit: limit}})
			checkRoundTrip(t, rd, tc.msgs[0].ProtoReflect().Type(), tc.msgs)
		}
	}
}

// TestProtoTestFiles round-trips random messages of the proto2, proto3 and
// editions test files, through dynamic messages only (no generated code).
func TestProtoTestFiles(t *testing.T) {
	t.Parallel()
	files, err := protosrc.CompileProto(context.Background(), []string{"../../testdata/proto"},
		"trevni/test/proto2.proto", "trevni/test/proto3.proto", "trevni/test/editions.proto")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"trevni.test.p2.Scalars", "trevni.test.p3.Everything", "trevni.test.p3.Tree", "trevni.test.ed.Item"} {
		md, err := protoload.FindMessage(files, name)
		if err != nil {
			t.Fatal(err)
		}
		var msgs []proto.Message
		for seed := uint64(0); seed < 30; seed++ {
			m := dynamicpb.NewMessage(md)
			f := protorand.New(seed)
			f.MaxDepth, f.Unknown = 5, true
			f.Fill(m)
			msgs = append(msgs, m)
		}
		checkRoundTrip(t, shredMessages(t, md, msgs, nil), nil, msgs)
	}
}

// TestProtoStreams converts delimited and JSON-lines streams to Trevni and
// back.
func TestProtoStreams(t *testing.T) {
	md := (&tracepb.TracesData{}).ProtoReflect().Descriptor()
	var delimited, want bytes.Buffer
	var msgs []proto.Message
	for seed := uint64(0); seed < 20; seed++ {
		m := &tracepb.TracesData{}
		f := protorand.New(seed)
		f.Unknown = false // protojson cannot carry unknown fields
		f.Fill(m.ProtoReflect())
		msgs = append(msgs, m)
		b, _ := wire.Marshal(m)
		delimited.Write(binary.AppendUvarint(nil, uint64(len(b))))
		delimited.Write(b)
	}
	want.Write(delimited.Bytes())
	var trv bytes.Buffer
	n, err := shred.FromProtoStream(context.Background(), &trv, &delimited, protoschema.Delimited, md, nil)
	if err != nil || n != 20 {
		t.Fatalf("%d messages, %v", n, err)
	}
	rd, err := format.NewReader(bytes.NewReader(trv.Bytes()), int64(trv.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := assemble.NewProtoReader(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	var back bytes.Buffer
	if _, err := assemble.ToProtoStream(context.Background(), &back, pr, protoschema.Delimited, nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Bytes(), want.Bytes()) {
		t.Fatal("delimited stream differs after the round trip")
	}
	// JSON lines, and back through JSON lines.
	pr, _ = assemble.NewProtoReader(rd, nil)
	var jsonl bytes.Buffer
	if _, err := assemble.ToProtoStream(context.Background(), &jsonl, pr, protoschema.JSONLines, nil); err != nil {
		t.Fatal(err)
	}
	trv.Reset()
	if _, err := shred.FromProtoStream(context.Background(), &trv, bytes.NewReader(jsonl.Bytes()), protoschema.JSONLines, md, nil); err != nil {
		t.Fatal(err)
	}
	rd2, _ := format.NewReader(bytes.NewReader(trv.Bytes()), int64(trv.Len()), nil)
	checkRoundTrip(t, rd2, (&tracepb.TracesData{}).ProtoReflect().Type(), msgs)
	// A truncated stream is an error that says which message.
	_, err = shred.FromProtoStream(context.Background(), io.Discard, bytes.NewReader(want.Bytes()[:want.Len()-3]), protoschema.Delimited, md, nil)
	if err == nil || !strings.Contains(err.Error(), "message 19") {
		t.Fatalf("truncated stream: %v", err)
	}
}

// TestProtoFieldSelection reads only span names: fewer columns, and
// messages that hold just those fields.
func TestProtoFieldSelection(t *testing.T) {
	var msgs []proto.Message
	for seed := uint64(0); seed < 20; seed++ {
		m := &tracepb.TracesData{}
		protorand.New(seed).Fill(m.ProtoReflect())
		msgs = append(msgs, m)
	}
	md := (&tracepb.TracesData{}).ProtoReflect().Descriptor()
	rd := shredMessages(t, md, msgs, nil)
	pr, err := assemble.NewProtoReader(rd, &assemble.ProtoOptions{
		MessageType: (&tracepb.TracesData{}).ProtoReflect().Type(),
		Fields:      []string{"resource_spans.scope_spans.spans.name"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range msgs {
		got, err := pr.Read()
		if err != nil {
			t.Fatal(err)
		}
		// The expected message: the same structure with only span names.
		want := &tracepb.TracesData{}
		for _, rs := range m.(*tracepb.TracesData).ResourceSpans {
			wrs := &tracepb.ResourceSpans{}
			for _, ss := range rs.ScopeSpans {
				wss := &tracepb.ScopeSpans{}
				for _, sp := range ss.Spans {
					wss.Spans = append(wss.Spans, &tracepb.Span{Name: sp.Name})
				}
				wrs.ScopeSpans = append(wrs.ScopeSpans, wss)
			}
			want.ResourceSpans = append(want.ResourceSpans, wrs)
		}
		if !proto.Equal(got, want) {
			t.Fatalf("message %d:\nwant %v\n got %v", i, want, got)
		}
	}
	_, err = assemble.NewProtoReader(rd, &assemble.ProtoOptions{Fields: []string{"resource_spans.nope"}})
	if !errors.Is(err, assemble.ErrIncompatible) || !strings.Contains(err.Error(), "resource_spans[].nope") {
		t.Fatalf("unknown field path: %v", err)
	}
}

// TestProtoFileReadsAsAvro reads a protobuf-made file through the ordinary
// Avro path, as Avro JSON.
func TestProtoFileReadsAsAvro(t *testing.T) {
	m := &tracepb.TracesData{}
	protorand.New(7).Fill(m.ProtoReflect())
	rd := shredMessages(t, m.ProtoReflect().Descriptor(), []proto.Message{m}, nil)
	ar, err := assemble.NewAvroReader(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if n, err := assemble.ToJSON(context.Background(), &out, ar, nil); err != nil || n != 1 {
		t.Fatalf("%d records, %v", n, err)
	}
	if !strings.HasPrefix(out.String(), `{"resource_spans":[`) {
		t.Fatalf("unexpected JSON: %.200s", out.String())
	}
}

// TestProtoEvolution reads a file written with one version of a message
// type through a newer version: fields added since (scalars, repeated,
// maps, messages, with and without presence) read as unset, a field
// removed since is not read, and a field renamed and widened (int32 to
// int64) keeps its value, as protobuf matches fields by number.
func TestProtoEvolution(t *testing.T) {
	dir := t.TempDir()
	v1 := `syntax = "proto3"; package ev; message M { string a = 1; int64 gone = 2; int32 old_name = 11; }`
	v2 := `syntax = "proto3"; package ev; message Inner { int32 x = 1; }
		message M { string a = 1; int32 n = 3; repeated string r = 4; map<string, int32> m = 5;
		optional double d = 6; Inner in = 7; bool b = 8; bytes by = 9; float f = 10; int64 new_name = 11; }`
	load := func(sub, text string) protoreflect.MessageDescriptor {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, sub, "m.proto"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		files, err := protosrc.CompileProto(context.Background(), []string{filepath.Join(dir, sub)}, "m.proto")
		if err != nil {
			t.Fatal(err)
		}
		md, err := protoload.FindMessage(files, "ev.M")
		if err != nil {
			t.Fatal(err)
		}
		return md
	}
	md1, md2 := load("v1", v1), load("v2", v2)
	m := dynamicpb.NewMessage(md1)
	m.Set(md1.Fields().ByName("a"), protoreflect.ValueOfString("x"))
	m.Set(md1.Fields().ByName("gone"), protoreflect.ValueOfInt64(7))
	m.Set(md1.Fields().ByName("old_name"), protoreflect.ValueOfInt32(42))
	rd := shredMessages(t, md1, []proto.Message{m}, nil)
	pr, err := assemble.NewProtoReader(rd, &assemble.ProtoOptions{MessageType: dynamicpb.NewMessageType(md2)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := pr.Read()
	if err != nil {
		t.Fatal(err)
	}
	want := dynamicpb.NewMessage(md2)
	want.Set(md2.Fields().ByName("a"), protoreflect.ValueOfString("x"))
	// Renamed and widened: protobuf matches fields by number.
	want.Set(md2.Fields().ByName("new_name"), protoreflect.ValueOfInt64(42))
	if !proto.Equal(got, want) {
		t.Fatalf("read %v, want %v", got, want)
	}
}
