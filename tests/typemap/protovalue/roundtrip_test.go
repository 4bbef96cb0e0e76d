package protovalue_test

import (
	"bytes"
	"math"
	"sync"
	"testing"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/internal/testing/longtest"
	"github.com/trevni-go/trevni/internal/testing/protorand"
	"github.com/trevni-go/trevni/internal/testing/prototest"
	"github.com/trevni-go/trevni/schema/protoload"
	"github.com/trevni-go/trevni/schema/protoschema"
	"github.com/trevni-go/trevni/typemap/protovalue"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/apipb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/typepb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

var codecs sync.Map // schema → *goavro.Codec

func codecFor(t testing.TB, schema string) *goavro.Codec {
	t.Helper()
	if c, ok := codecs.Load(schema); ok {
		return c.(*goavro.Codec)
	}
	c, err := goavro.NewCodec(schema)
	if err != nil {
		t.Fatalf("goavro.NewCodec: %v\n%s", err, schema)
	}
	codecs.Store(schema, c)
	return c
}

var deterministic = proto.MarshalOptions{Deterministic: true, AllowPartial: true}

// roundTrip converts m to Avro, through goavro's binary encoding, and back,
// and checks that the result equals m, by proto.Equal and by deterministic
// wire bytes (which also tell -0 from 0 and keep unknown-field order).
func roundTrip(t *testing.T, m proto.Message, o *protovalue.Options) {
	t.Helper()
	md := m.ProtoReflect().Descriptor()
	c := converter(t, md, o)
	codec := codecFor(t, c.Mapping().Schema.String())
	v, err := c.ToAvro(m.ProtoReflect())
	if err != nil {
		t.Fatalf("ToAvro: %v", err)
	}
	bin, err := codec.BinaryFromNative(nil, v)
	if err != nil {
		t.Fatalf("BinaryFromNative: %v", err)
	}
	native, rest, err := codec.NativeFromBinary(bin)
	if err != nil || len(rest) != 0 {
		t.Fatalf("NativeFromBinary: %v (%d bytes left)", err, len(rest))
	}
	got := m.ProtoReflect().New()
	if err := c.FromAvro(native.(map[string]any), got); err != nil {
		t.Fatalf("FromAvro: %v", err)
	}
	if !proto.Equal(m, got.Interface()) {
		t.Fatalf("%s: round trip differs\nwant %v\nhave %v", md.FullName(), m, got.Interface())
	}
	want, err := deterministic.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	have, err := deterministic.Marshal(got.Interface())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, have) {
		t.Fatalf("%s: wire bytes differ after the round trip\nwant %v\nhave %v", md.FullName(), m, got.Interface())
	}
}

func TestOTLP(t *testing.T) {
	for _, m := range []proto.Message{&tracepb.TracesData{}, &metricspb.MetricsData{}, &logspb.LogsData{}} {
		t.Run(string(m.ProtoReflect().Descriptor().Name()), func(t *testing.T) {
			for seed := range uint64(20) {
				f := protorand.New(seed)
				f.MaxDepth = 8
				f.MaxLen = 2
				msg := m.ProtoReflect().New()
				f.Fill(msg)
				roundTrip(t, msg.Interface(), nil)
				roundTrip(t, msg.Interface(), &protovalue.Options{Mapping: &protoschema.Options{RecursionLimit: 2}})
			}
		})
	}
}

// TestOTLPRealistic converts spans as an SDK would make them, with nested
// attribute values that cross the recursion cut.
func TestOTLPRealistic(t *testing.T) {
	roundTrip(t, sampleTraces(50), nil)
}

func sampleTraces(spans int) *tracepb.TracesData {
	str := func(s string) *commonpb.AnyValue {
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: s}}
	}
	ss := &tracepb.ScopeSpans{Scope: &commonpb.InstrumentationScope{Name: "bench", Version: "1.0"}}
	for i := range spans {
		ss.Spans = append(ss.Spans, &tracepb.Span{
			TraceId:           bytes.Repeat([]byte{byte(i), 1}, 8),
			SpanId:            bytes.Repeat([]byte{byte(i), 2}, 4),
			ParentSpanId:      bytes.Repeat([]byte{3}, 8),
			Name:              "GET /api/v1/items",
			Kind:              tracepb.Span_SPAN_KIND_SERVER,
			StartTimeUnixNano: 1700000000000000000 + uint64(i)*1000,
			EndTimeUnixNano:   1700000000000500000 + uint64(i)*1000,
			Attributes: []*commonpb.KeyValue{
				{Key: "http.method", Value: str("GET")},
				{Key: "http.status_code", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: 200}}},
				{Key: "http.url", Value: str("https://example.com/api/v1/items?id=42")},
				{Key: "net.peer.ip", Value: str("10.1.2.3")},
				{Key: "tags", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{
					Values: []*commonpb.AnyValue{str("a"), str("b")},
				}}}},
			},
			Events: []*tracepb.Span_Event{{TimeUnixNano: 1700000000000100000, Name: "cache miss"}},
			Status: &tracepb.Status{Code: tracepb.Status_STATUS_CODE_OK},
			Flags:  0x100,
		})
	}
	return &tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{
			{Key: "service.name", Value: str("checkout")},
			{Key: "host.name", Value: str("node-17")},
		}},
		ScopeSpans: []*tracepb.ScopeSpans{
			ss,
		},
		SchemaUrl: "https://opentelemetry.io/schemas/1.21.0",
	}}}
}

func TestDescriptorSets(t *testing.T) {
	var set descriptorpb.FileDescriptorSet
	for _, m := range []proto.Message{
		&descriptorpb.FileDescriptorSet{}, &tracepb.TracesData{}, &metricspb.MetricsData{}, &logspb.LogsData{},
		&structpb.Struct{}, &apipb.Api{},
	} {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(m.ProtoReflect().Descriptor().ParentFile()))
	}
	files := prototest.Compile(t)
	files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
		return true
	})
	for _, limit := range []int{0, 1, 3} {
		roundTrip(t, &set, &protovalue.Options{Mapping: &protoschema.Options{RecursionLimit: limit}})
	}
	for seed := range uint64(10) {
		f := protorand.New(seed)
		f.MaxDepth = 6
		f.MaxLen = 2
		var m descriptorpb.FileDescriptorSet
		f.Fill(m.ProtoReflect())
		roundTrip(t, &m, nil)
	}
}

func TestWellKnownTypes(t *testing.T) {
	st, err := structpb.NewStruct(map[string]any{
		"null": nil, "n": 1.5, "s": "x", "b": true,
		"list":   []any{1.0, "two", []any{3.0}, map[string]any{"four": 4.0}},
		"nested": map[string]any{"deeper": map[string]any{"deepest": []any{}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	anyTS, err := anypb.New(timestamppb.Now())
	if err != nil {
		t.Fatal(err)
	}
	fixed := []proto.Message{
		st, structpb.NewStructValue(st), structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewNullValue()}}),
		anyTS, &timestamppb.Timestamp{Seconds: -62135596800, Nanos: 999999999}, &durationpb.Duration{Seconds: -315576000000, Nanos: -999999999},
		&fieldmaskpb.FieldMask{Paths: []string{"a.b", "c"}}, &emptypb.Empty{},
		wrapperspb.Double(math.Copysign(0, -1)), wrapperspb.Float(float32(math.Copysign(0, -1))), wrapperspb.Float(3), wrapperspb.Int64(-1), wrapperspb.UInt64(1<<63 + 5),
		wrapperspb.Int32(-7), wrapperspb.UInt32(1<<32 - 1), wrapperspb.Bool(true), wrapperspb.String("é"), wrapperspb.Bytes([]byte{0}),
	}
	for _, m := range fixed {
		roundTrip(t, m, nil)
	}
	types := []proto.Message{
		&anypb.Any{}, &durationpb.Duration{}, &emptypb.Empty{}, &fieldmaskpb.FieldMask{}, &structpb.Struct{},
		&structpb.Value{}, &structpb.ListValue{}, &timestamppb.Timestamp{}, &wrapperspb.DoubleValue{},
		&wrapperspb.FloatValue{}, &wrapperspb.Int64Value{}, &wrapperspb.UInt64Value{}, &wrapperspb.Int32Value{},
		&wrapperspb.UInt32Value{}, &wrapperspb.BoolValue{}, &wrapperspb.StringValue{}, &wrapperspb.BytesValue{},
		&typepb.Type{}, &apipb.Api{},
	}
	for _, m := range types {
		for seed := range uint64(20) {
			msg := m.ProtoReflect().New()
			f := protorand.New(seed)
			f.MaxDepth = 6
			f.Fill(msg)
			for _, limit := range []int{0, 2} {
				roundTrip(t, msg.Interface(), &protovalue.Options{Mapping: &protoschema.Options{RecursionLimit: limit}})
			}
		}
	}
}

func TestTestProtos(t *testing.T) {
	files := prototest.Compile(t)
	types := dynamicpb.NewTypes(files)
	var exts []protoreflect.ExtensionType
	fd, err := files.FindFileByPath("trevni/test/proto2.proto")
	if err != nil {
		t.Fatal(err)
	}
	for i := range fd.Extensions().Len() {
		exts = append(exts, dynamicpb.NewExtensionType(fd.Extensions().Get(i)))
	}
	// The recursive messages grow to megabytes at depth 5: the default
	// form takes the first 10 of their 40 seeds (see longRounds).
	deep := uint64(longtest.Rounds(10, 40))
	for _, tc := range []struct {
		name  string
		seeds uint64
	}{
		{"trevni.test.p2.Scalars", deep}, {"trevni.test.p2.Clash", 40}, {"trevni.test.p3.Everything", deep},
		{"trevni.test.p3.Inner", 40}, {"trevni.test.p3.Tree", deep}, {"trevni.test.ed.Item", 40},
	} {
		md, err := protoload.FindMessage(files, tc.name)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(tc.name, func(t *testing.T) {
			for seed := range tc.seeds {
				f := protorand.New(seed)
				f.MaxDepth = 5
				f.Extensions = exts
				m := dynamicpb.NewMessage(md)
				f.Fill(m)
				for _, limit := range []int{0, 1} {
					roundTrip(t, m, &protovalue.Options{Resolver: types, Mapping: &protoschema.Options{RecursionLimit: limit}})
				}
			}
		})
	}
}
