package protovalue_test

import (
	"testing"

	"github.com/trevni-go/trevni/schema/protoload"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
)

// The benchmarks convert a TracesData of 100 spans, each with five
// attributes (one an array, stored serialized), an event and a status.
// Bytes per second are of the protobuf wire encoding.

func BenchmarkToAvro(b *testing.B) {
	m := sampleTraces(100)
	b.SetBytes(int64(proto.Size(m)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := toAvro(m.ProtoReflect()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFromAvro(b *testing.B) {
	m := sampleTraces(100)
	v, err := toAvro(m.ProtoReflect())
	if err != nil {
		b.Fatal(err)
	}
	var dst tracepb.TracesData
	b.SetBytes(int64(proto.Size(m)))
	b.ReportAllocs()
	for b.Loop() {
		if err := fromAvro(v, dst.ProtoReflect()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFromAvroDynamic fills a dynamicpb message, as a reader with only
// the stored descriptors does.
func BenchmarkFromAvroDynamic(b *testing.B) {
	m := sampleTraces(100)
	v, err := toAvro(m.ProtoReflect())
	if err != nil {
		b.Fatal(err)
	}
	set, err := protoload.DescriptorSetFor(m.ProtoReflect().Descriptor())
	if err != nil {
		b.Fatal(err)
	}
	md, err := protoload.MessageFromDescriptorSet(set, "opentelemetry.proto.trace.v1.TracesData")
	if err != nil {
		b.Fatal(err)
	}
	c := converter(b, md, nil)
	dst := dynamicpb.NewMessage(md)
	b.SetBytes(int64(proto.Size(m)))
	b.ReportAllocs()
	for b.Loop() {
		if err := c.FromAvro(v, dst); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProtoMarshal and BenchmarkProtoUnmarshal give a scale to the
// numbers above.
func BenchmarkProtoMarshal(b *testing.B) {
	m := sampleTraces(100)
	b.SetBytes(int64(proto.Size(m)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := proto.Marshal(m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkProtoUnmarshal(b *testing.B) {
	m := sampleTraces(100)
	buf, err := proto.Marshal(m)
	if err != nil {
		b.Fatal(err)
	}
	var dst tracepb.TracesData
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		if err := proto.Unmarshal(buf, &dst); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToAvroInto reuses the previous record, as a writer that encodes
// each record before converting the next can.
func BenchmarkToAvroInto(b *testing.B) {
	m := sampleTraces(100)
	b.SetBytes(int64(proto.Size(m)))
	b.ReportAllocs()
	c := converter(b, m.ProtoReflect().Descriptor(), nil)
	var v map[string]any
	for b.Loop() {
		var err error
		if v, err = c.ToAvroInto(m.ProtoReflect(), v); err != nil {
			b.Fatal(err)
		}
	}
}
