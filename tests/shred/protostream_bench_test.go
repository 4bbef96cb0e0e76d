package shred_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/trevni-go/trevni/schema/protoschema"
	"github.com/trevni-go/trevni/shred"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protodelim"
)

// BenchmarkFromProtoStream converts a delimited stream of 2,000 OTLP
// TracesData messages of 10 spans each (snappy, crc32, a 16 MiB
// budget: ranges of 1 MiB on 2 workers) on 1 and 2
// workers; MB/s of the stream.
func BenchmarkFromProtoStream(b *testing.B) {
	md := (&tracepb.TracesData{}).ProtoReflect().Descriptor()
	var in bytes.Buffer
	m := benchTraces(10)
	for range 2000 {
		if _, err := protodelim.MarshalTo(&in, m); err != nil {
			b.Fatal(err)
		}
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			o := &shred.ProtoOptions{File: shred.Options{Workers: workers}}
			o.File.Codec, o.File.Checksum, o.File.MemoryBudget = "snappy", "crc32", 16<<20 // ranges of 1 MiB on 2 workers
			b.SetBytes(int64(in.Len()))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := shred.FromProtoStream(context.Background(), io.Discard, bytes.NewReader(in.Bytes()), protoschema.Delimited, md, o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
