package assemble_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/longtest"
	"github.com/trevni-go/trevni/internal/testing/protorand"
	"github.com/trevni-go/trevni/schema/protoload"
	"github.com/trevni-go/trevni/schema/protoload/protosrc"
	"github.com/trevni-go/trevni/schema/protoschema"
	"github.com/trevni-go/trevni/shred"
	"github.com/trevni-go/trevni/typemap/protovalue"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/apipb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// wireMarshal is the reference encoding: proto's deterministic marshal of
// what Read returns.
var wireMarshal = proto.MarshalOptions{Deterministic: true, AllowPartial: true}

// wireFile writes msgs with a ProtoWriter, raw holding wire messages
// written with WriteWire, and returns the file.
func wireFile(t testing.TB, md protoreflect.MessageDescriptor, opts *shred.ProtoOptions, msgs []proto.Message, raw [][]byte) []byte {
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
	for _, b := range raw {
		pw.WriteWire(b) // messages that do not parse are left out
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func wireOpen(t testing.TB, data []byte) *format.Reader {
	t.Helper()
	rd, err := format.NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

// wireReadCompare reads the file with ReadWire and with Read and proto's
// marshal, and checks that both give the same bytes and fail at the same
// message. It returns the messages read.
func wireReadCompare(t *testing.T, data []byte, opts *assemble.ProtoOptions) int {
	t.Helper()
	rd := wireOpen(t, data)
	fast, err := assemble.NewProtoReader(rd, opts)
	if err != nil {
		t.Fatal(err)
	}
	slow, err := assemble.NewProtoReader(rd, opts)
	if err != nil {
		t.Fatal(err)
	}
	m := slow.MessageType().New().Interface()
	var got []byte
	for i := 0; ; i++ {
		var ferr error
		got, ferr = fast.ReadWire(got[:0])
		serr := slow.ReadInto(m)
		var want []byte
		if serr == nil {
			want, serr = wireMarshal.Marshal(m)
		}
		if errors.Is(ferr, io.EOF) && errors.Is(serr, io.EOF) {
			return i
		}
		if (ferr == nil) != (serr == nil) {
			t.Fatalf("message %d:\nReadWire: %v\nRead: %v", i, ferr, serr)
		}
		if ferr != nil {
			return i // the readers cannot go on
		}
		if !bytes.Equal(got, want) {
			have := m.ProtoReflect().New().Interface()
			uerr := proto.UnmarshalOptions{AllowPartial: true, Resolver: new(protoregistry.Types)}.Unmarshal(got, have)
			t.Fatalf("message %d: the encodings differ\nwant %x\nhave %x\nhave parses (%v) as %v\nwant %v",
				i, want, got, uerr, have, m)
		}
	}
}

func wireRandom(md protoreflect.MessageDescriptor, seeds uint64, depth, maxLen int, exts []protoreflect.ExtensionType) []proto.Message {
	var msgs []proto.Message
	for seed := range seeds {
		f := protorand.New(seed)
		f.MaxDepth, f.MaxLen, f.Extensions = depth, maxLen, exts
		m := dynamicpb.NewMessage(md)
		f.Fill(m)
		msgs = append(msgs, m)
	}
	return msgs
}

// wireDamaged returns each message marshalled, then with a byte changed
// and cut short: what WriteWire keeps of them has unknown fields of every
// shape and fields that only parse at all.
func wireDamaged(t testing.TB, seed uint64, msgs []proto.Message) [][]byte {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 3))
	var out [][]byte
	for _, m := range msgs {
		b, err := proto.MarshalOptions{AllowPartial: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
		if len(b) > 0 {
			c := append([]byte(nil), b...)
			c[r.IntN(len(c))] ^= byte(1 << r.IntN(8))
			out = append(out, c, b[:r.IntN(len(b))])
		}
	}
	return out
}

func TestReadWireOTLP(t *testing.T) {
	for _, m := range []proto.Message{&tracepb.TracesData{}, &metricspb.MetricsData{}, &logspb.LogsData{}} {
		md := m.ProtoReflect().Descriptor()
		t.Run(string(md.Name()), func(t *testing.T) {
			msgs := wireRandom(md, 40, 7, 3, nil)
			for _, o := range []shred.ProtoOptions{
				{File: shred.Options{WriterOptions: format.WriterOptions{BlockSize: 2048}}},
				{Mapping: &protoschema.Options{RecursionLimit: 2}, File: shred.Options{WriterOptions: format.WriterOptions{Codec: "zstd"}}},
				{Mapping: &protoschema.Options{DropUnknown: true}},
			} {
				data := wireFile(t, md, &o, msgs, wireDamaged(t, 1, msgs))
				if n := wireReadCompare(t, data, nil); n < len(msgs) {
					t.Fatalf("%d messages read", n)
				}
			}
		})
	}
}

func TestReadWireDescriptorSets(t *testing.T) {
	set := &descriptorpb.FileDescriptorSet{}
	for _, fd := range []protoreflect.FileDescriptor{
		descriptorpb.File_google_protobuf_descriptor_proto, tracepb.File_opentelemetry_proto_trace_v1_trace_proto,
		structpb.File_google_protobuf_struct_proto, apipb.File_google_protobuf_api_proto,
	} {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	wireTestProtos(t).RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
		return true
	})
	md := set.ProtoReflect().Descriptor()
	msgs := append([]proto.Message{set}, wireRandom(md, 15, 6, 2, nil)...)
	for _, limit := range []int{0, 1, 3} {
		o := &shred.ProtoOptions{Mapping: &protoschema.Options{RecursionLimit: limit}}
		wireReadCompare(t, wireFile(t, md, o, msgs, wireDamaged(t, uint64(limit), msgs)), nil)
	}
}

func TestReadWireWellKnownTypes(t *testing.T) {
	st, err := structpb.NewStruct(map[string]any{
		"n": 1.5, "s": "x", "b": true, "null": nil,
		"list": []any{1.0, "two", []any{3.0}, map[string]any{"four": 4.0}},
	})
	if err != nil {
		t.Fatal(err)
	}
	anyTS, err := anypb.New(timestamppb.New(timestamppb.Now().AsTime()))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []proto.Message{st, structpb.NewStructValue(st), anyTS, wrapperspb.Double(math.Copysign(0, -1)), wrapperspb.Float(float32(math.Copysign(0, -1))), wrapperspb.UInt32(math.MaxUint32)} {
		md := m.ProtoReflect().Descriptor()
		msgs := append([]proto.Message{m}, wireRandom(md, 10, 6, 3, nil)...)
		for _, limit := range []int{0, 2} {
			o := &shred.ProtoOptions{Mapping: &protoschema.Options{RecursionLimit: limit}}
			wireReadCompare(t, wireFile(t, md, o, msgs, wireDamaged(t, 2, msgs)), nil)
		}
	}
}

func wireTestProtos(t testing.TB) *protoregistry.Files {
	t.Helper()
	files, err := protosrc.CompileProto(context.Background(), []string{"../../testdata/proto"},
		"trevni/test/proto2.proto", "trevni/test/proto3.proto", "trevni/test/editions.proto", "trevni/test/mixed.proto")
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestReadWireTestProtos covers proto2 (groups, closed enums, extensions
// that Read turns back into extension fields), proto3 (maps of every key
// type, whose deterministic order is not the file's) and editions.
func TestReadWireTestProtos(t *testing.T) {
	t.Parallel()
	files := wireTestProtos(t)
	types := dynamicpb.NewTypes(files)
	fd, err := files.FindFileByPath("trevni/test/proto2.proto")
	if err != nil {
		t.Fatal(err)
	}
	var exts []protoreflect.ExtensionType
	for i := range fd.Extensions().Len() {
		exts = append(exts, dynamicpb.NewExtensionType(fd.Extensions().Get(i)))
	}
	// The recursive messages grow to megabytes at depth 5: the default
	// form takes the first 10 of their 40 seeds (see LongRounds).
	deep := uint64(longtest.Rounds(10, 40))
	for _, tc := range []struct {
		name  string
		seeds uint64
	}{
		{"trevni.test.p2.Scalars", deep}, {"trevni.test.p2.Clash", 40}, {"trevni.test.p3.Everything", deep},
		{"trevni.test.p3.Tree", deep}, {"trevni.test.ed.Item", 40}, {"trevni.test.mixed.Holder", 40},
	} {
		md, err := protoload.FindMessage(files, tc.name)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(tc.name, func(t *testing.T) {
			msgs := wireRandom(md, tc.seeds, 5, 4, exts)
			for _, limit := range []int{0, 1} {
				o := &shred.ProtoOptions{Resolver: types, Mapping: &protoschema.Options{RecursionLimit: limit}}
				data := wireFile(t, md, o, msgs, wireDamaged(t, uint64(limit), msgs))
				wireReadCompare(t, data, nil)
				// Extensions the resolver does not know stay unknown.
				wireReadCompare(t, data, &assemble.ProtoOptions{Resolver: new(protoregistry.Types)})
			}
		})
	}
}

// TestReadWireFallback checks ReadWire where it reads with Read: a field
// selection, and a generated message type.
func TestReadWireFallback(t *testing.T) {
	md := (&tracepb.TracesData{}).ProtoReflect().Descriptor()
	msgs := wireRandom(md, 20, 6, 3, nil)
	data := wireFile(t, md, nil, msgs, nil)
	wireReadCompare(t, data, &assemble.ProtoOptions{Fields: []string{"resource_spans.scope_spans.spans.name"}})
	wireReadCompare(t, data, &assemble.ProtoOptions{MessageType: (&tracepb.TracesData{}).ProtoReflect().Type()})
}

// TestReadWireBadValues writes files whose values a ProtoWriter never
// writes and checks that ReadWire rejects what Read rejects.
func TestReadWireBadValues(t *testing.T) {
	files := wireTestProtos(t)
	md, err := protoload.FindMessage(files, "trevni.test.p3.Everything")
	if err != nil {
		t.Fatal(err)
	}
	set, err := protoload.DescriptorSetFor(md)
	if err != nil {
		t.Fatal(err)
	}
	base := wireRandom(md, 1, 3, 3, nil)[0]
	for _, tc := range []struct {
		name string
		edit func(rec map[string]any)
		ok   bool
	}{
		{"unchanged", func(map[string]any) {}, true},
		{"uint32 out of range", func(rec map[string]any) { rec["u32"] = int64(1 << 40) }, false},
		{"uint32 negative", func(rec map[string]any) { rec["f32"] = int64(-1) }, false},
		{"invalid utf8", func(rec map[string]any) { rec["s"] = "\xff" }, false},
		{"two oneof members", func(rec map[string]any) {
			rec["v_string"] = map[string]any{"string": "a"}
			rec["v_int"] = map[string]any{"long": int64(1)}
		}, false},
		{"map key not canonical", func(rec map[string]any) { rec["m_i32"] = map[string]any{"01": "x"} }, false},
		{"map key out of range", func(rec map[string]any) { rec["m_i32"] = map[string]any{"2147483648": "x"} }, false},
		{"map keys to sort", func(rec map[string]any) {
			rec["m_i32"] = map[string]any{"10": "a", "9": "b", "-1": "c", "-10": "d", "0": "e"}
			rec["m_u64"] = map[string]any{"18446744073709551615": emptyInner(), "2": emptyInner()}
			rec["m_bool"] = map[string]any{"true": "t", "false": "f"}
		}, true},
		{"bool key not canonical", func(rec map[string]any) { rec["m_bool"] = map[string]any{"True": "t"} }, false},
		{"signalling NaN", func(rec map[string]any) {
			rec["fl"] = math.Float32frombits(0x7f800001)
			rec["rep_fl"] = []any{math.Float32frombits(0xff800002), float32(1)}
		}, true},
		{"unknown fields that do not parse", func(rec map[string]any) { rec["_unknown"] = []byte{0xff} }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conv, err := protovalue.NewConverter(md, nil)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := conv.ToAvro(base.ProtoReflect())
			if err != nil {
				t.Fatal(err)
			}
			tc.edit(rec)
			var buf bytes.Buffer
			var fo shred.Options
			fo.Meta.Set(protoload.MetaDescriptorSet, set)
			fo.Meta.SetString(protoload.MetaMessage, string(md.FullName()))
			fo.Meta.SetString(protoschema.MetaOptions, protoschema.Options{}.String())
			aw, err := shred.NewAvroWriter(&buf, conv.Mapping().Schema.String(), &fo)
			if err != nil {
				t.Fatal(err)
			}
			if err := aw.Write(rec); err != nil {
				if !tc.ok {
					return // refused when written (invalid UTF-8): no file to read
				}
				t.Fatal(err)
			}
			if err := aw.Close(); err != nil {
				t.Fatal(err)
			}
			if n := wireReadCompare(t, buf.Bytes(), nil); (n == 1) != tc.ok {
				t.Errorf("read %d messages", n)
			}
			// Validate refuses what Read refuses, by the fast path and
			// by Read alike (with MessageType).
			for _, o := range []*assemble.ProtoOptions{nil, {MessageType: dynamicpb.NewMessageType(md)}} {
				pr, err := assemble.NewProtoReader(wireOpen(t, buf.Bytes()), o)
				if err != nil {
					t.Fatal(err)
				}
				if err := pr.Validate(t.Context()); (err == nil) != tc.ok {
					t.Errorf("Validate (%+v): %v", o, err)
				}
			}
		})
	}
}

func emptyInner() map[string]any {
	return map[string]any{"name": "", "values": []any{}, "deep": nil, "_unknown": []byte{}}
}

// TestReadWireDamagedFiles reads files with a byte changed: ReadWire fails
// where Read fails, and never panics.
func TestReadWireDamagedFiles(t *testing.T) {
	t.Parallel()
	files := wireTestProtos(t)
	everything, err := protoload.FindMessage(files, "trevni.test.p3.Everything")
	if err != nil {
		t.Fatal(err)
	}
	for k, md := range []protoreflect.MessageDescriptor{(&tracepb.TracesData{}).ProtoReflect().Descriptor(), everything} {
		r := rand.New(rand.NewPCG(11, 11+uint64(k)))
		data := wireFile(t, md, nil, wireRandom(md, 20, 4, 3, nil), nil)
		// The default form makes 20 of the 60 damaged copies (see LongRounds).
		for range longtest.Rounds(20, 60) {
			d := append([]byte(nil), data...)
			i := len(d)/3 + r.IntN(len(d)-len(d)/3) // past most of the header
			d[i] ^= byte(1 << r.IntN(8))
			rd, err := format.NewReader(bytes.NewReader(d), int64(len(d)), nil)
			if err != nil {
				continue
			}
			if _, err := assemble.NewProtoReader(rd, nil); err != nil {
				continue
			}
			wireReadCompare(t, d, nil)
		}
	}
}

func TestToProtoStreamWire(t *testing.T) {
	md := (&tracepb.TracesData{}).ProtoReflect().Descriptor()
	msgs := wireRandom(md, 30, 6, 3, nil)
	rd := wireOpen(t, wireFile(t, md, nil, msgs, nil))
	pr, err := assemble.NewProtoReader(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	n, err := assemble.ToProtoStream(context.Background(), &out, pr, protoschema.Delimited, nil)
	if err != nil || n != int64(len(msgs)) {
		t.Fatalf("ToProtoStream: %d messages, %v", n, err)
	}
	var want bytes.Buffer
	for _, m := range msgs {
		if _, err := (protodelim.MarshalOptions{MarshalOptions: wireMarshal}).MarshalTo(&want, m); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(out.Bytes(), want.Bytes()) {
		t.Fatal("ToProtoStream's stream differs from the messages marshalled")
	}
}

func TestReadWireAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	md := (&tracepb.TracesData{}).ProtoReflect().Descriptor()
	msgs := make([]proto.Message, 400)
	for i := range msgs {
		msgs[i] = wireBenchTraces(20)
	}
	pr, err := assemble.NewProtoReader(wireOpen(t, wireFile(t, md, nil, msgs, nil)), nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf []byte
	for range 100 {
		if buf, err = pr.ReadWire(buf[:0]); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(200, func() {
		if buf, err = pr.ReadWire(buf[:0]); err != nil {
			t.Fatal(err)
		}
	})
	if allocs >= 1 {
		t.Errorf("%v allocations per message", allocs)
	}
}

// wireBenchTraces returns a batch of server spans with the attributes,
// events and links an HTTP instrumentation records.
func wireBenchTraces(spans int) *tracepb.TracesData {
	attr := func(k string, v any) *commonpb.KeyValue {
		kv := &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{}}
		switch x := v.(type) {
		case string:
			kv.Value.Value = &commonpb.AnyValue_StringValue{StringValue: x}
		case int:
			kv.Value.Value = &commonpb.AnyValue_IntValue{IntValue: int64(x)}
		case bool:
			kv.Value.Value = &commonpb.AnyValue_BoolValue{BoolValue: x}
		}
		return kv
	}
	id := func(n, seed int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(seed*37 + i*11)
		}
		return b
	}
	ss := &tracepb.ScopeSpans{Scope: &commonpb.InstrumentationScope{Name: "net/http", Version: "0.46.1"}}
	for i := range spans {
		start := uint64(1_700_000_000_000_000_000 + i*997_000)
		sp := &tracepb.Span{
			TraceId: id(16, i/8), SpanId: id(8, i), ParentSpanId: id(8, i+500),
			Name: fmt.Sprintf("GET /api/v1/items/%d", i%17), Kind: tracepb.Span_SPAN_KIND_SERVER,
			StartTimeUnixNano: start, EndTimeUnixNano: start + uint64(90_000+i%11*7_000),
			Attributes: []*commonpb.KeyValue{
				attr("http.request.method", "GET"),
				attr("http.response.status_code", 200+i%4*100),
				attr("url.path", fmt.Sprintf("/api/v1/items/%d", i%17)),
				attr("server.address", "api.example.net"),
				attr("client.address", fmt.Sprintf("192.168.%d.%d", i%8, i%200)),
				attr("user_agent.original", "curl/8.4.0"),
				attr("http.request.body.size", 512+i%64),
			},
			Status: &tracepb.Status{Code: tracepb.Status_STATUS_CODE_OK},
		}
		if i%4 == 0 {
			sp.Events = []*tracepb.Span_Event{{TimeUnixNano: start + 20_000, Name: "db.query", Attributes: []*commonpb.KeyValue{attr("db.rows", i%30), attr("db.cached", i%8 == 0)}}}
		}
		if i%6 == 0 {
			sp.Links = []*tracepb.Span_Link{{TraceId: id(16, i+77), SpanId: id(8, i+77)}}
		}
		ss.Spans = append(ss.Spans, sp)
	}
	return &tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{
			attr("service.name", "inventory"), attr("service.version", "1.8.0"), attr("host.name", "worker-3"),
		}},
		ScopeSpans: []*tracepb.ScopeSpans{ss},
		SchemaUrl:  "https://opentelemetry.io/schemas/1.24.0",
	}}}
}

// BenchmarkProtoAssemble reads batches of 100 OTLP spans, one TracesData
// per row, into their wire encoding.
func BenchmarkProtoAssemble(b *testing.B) {
	md := (&tracepb.TracesData{}).ProtoReflect().Descriptor()
	msg := wireBenchTraces(100)
	size := proto.Size(msg)
	msgs := make([]proto.Message, 256)
	for i := range msgs {
		msgs[i] = msg
	}
	data := wireFile(b, md, nil, msgs, nil)
	run := func(b *testing.B, read func(pr *assemble.ProtoReader, dst []byte) ([]byte, error)) {
		var pr *assemble.ProtoReader
		open := func() {
			var err error
			if pr, err = assemble.NewProtoReader(wireOpen(b, data), nil); err != nil {
				b.Fatal(err)
			}
		}
		open()
		var buf []byte
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			var err error
			buf, err = read(pr, buf[:0])
			if err == io.EOF {
				b.StopTimer()
				open()
				b.StartTimer()
				buf, err = read(pr, buf[:0])
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		b.ReportMetric(float64(b.N*100)/b.Elapsed().Seconds(), "spans/s")
	}
	b.Run("fast", func(b *testing.B) {
		run(b, func(pr *assemble.ProtoReader, dst []byte) ([]byte, error) { return pr.ReadWire(dst) })
	})
	b.Run("reflective", func(b *testing.B) {
		var m proto.Message
		run(b, func(pr *assemble.ProtoReader, dst []byte) ([]byte, error) {
			if m == nil || m.ProtoReflect().Descriptor() != pr.MessageType().Descriptor() {
				m = pr.MessageType().New().Interface()
			}
			if err := pr.ReadInto(m); err != nil {
				return dst, err
			}
			return proto.MarshalOptions{Deterministic: true}.MarshalAppend(dst, m)
		})
	})
}
