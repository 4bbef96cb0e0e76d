package trevni_test

// Two of the three programs a Go service writes with the front door alone
// (the third, which writes to S3 too, is in the stores module:
// stores/objstore/frontdoor_program_test.go), as tests:
// each is the short program (between the "program" comments) and a check
// of what it made against an independent reading.

import (
	// The span sink writes protobuf: its program links the descriptor
	// packages by importing schema/protoload, as docs/library.md says.
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/trevni-go/trevni"
	_ "github.com/trevni-go/trevni/schema/protoload"
	"github.com/trevni-go/trevni/trevniarrow"

	"github.com/trevni-go/trevni/trevniparquet"
)

// An OTLP span sink: spans written with CreateProto as they come, read
// back as the generated type, equal to those written.
func TestProgramOTLPSpanSink(t *testing.T) {
	var spans []*tracepb.Span
	for i := range 2000 {
		spans = append(spans, &tracepb.Span{
			TraceId: bytes.Repeat([]byte{byte(i)}, 16), SpanId: bytes.Repeat([]byte{byte(i >> 3)}, 8),
			Name: fmt.Sprintf("GET /items/%d", i%17), Kind: tracepb.Span_SPAN_KIND_SERVER,
			StartTimeUnixNano: uint64(1e18) + uint64(i)*1000, EndTimeUnixNano: uint64(1e18) + uint64(i)*1000 + 750,
			Attributes: []*commonpb.KeyValue{{Key: "http.status", Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: int64(200 + i%3)}}}},
		})
	}
	name := filepath.Join(t.TempDir(), "spans.trv")
	// program
	ctx := context.Background()
	w, err := trevni.CreateProto(ctx, name, (&tracepb.Span{}).ProtoReflect().Descriptor(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, s := range spans { // as a receiver's Export hands them on
		if err := w.Write(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ds, err := trevni.Open(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	var got []*tracepb.Span
	for m, err := range ds.Messages(ctx, &trevni.ProtoOptions{MessageType: (&tracepb.Span{}).ProtoReflect().Type()}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, m.(*tracepb.Span))
	}
	// program
	if len(got) != len(spans) {
		t.Fatalf("%d spans read, %d written", len(got), len(spans))
	}
	for i := range spans {
		if !proto.Equal(got[i], spans[i]) {
			t.Fatalf("span %d: %v, want %v", i, got[i], spans[i])
		}
	}
}

// Trevni to Arrow to Parquet: a filtered data set's batches, and its
// Parquet file read back by arrow-go's own Parquet reader, hold the rows
// the structs do.
func TestProgramTrevniArrowParquet(t *testing.T) {
	src := "../../testdata/interop/medium/medium.deflate.crc32.trv"
	out := filepath.Join(t.TempDir(), "high.parquet")
	// program
	ctx := context.Background()
	ds, err := trevni.Open(ctx, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	opts := trevni.ReadOptions{Fields: []string{"id", "score"}, Where: "score > 0.5"}
	rr, err := trevniarrow.NewRecordReader(ctx, ds, &trevniarrow.ReadOptions{ReadOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	var rows int64
	for rr.Next() {
		rows += rr.RecordBatch().NumRows()
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	rr.Release()
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := trevniparquet.Write(ctx, f, ds, &trevniparquet.WriteOptions{Read: trevniarrow.ReadOptions{ReadOptions: opts}}); err != nil {
		t.Fatal(err)
	}
	// program
	n, err := ds.Count(ctx, &opts)
	if err != nil || n != rows || n == 0 {
		t.Fatalf("%d rows in batches, Count %d (%v)", rows, n, err)
	}
	pf, err := file.OpenParquetFile(out, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	if tbl.NumRows() != n || tbl.NumCols() != 2 {
		t.Fatalf("the Parquet file has %d rows of %d columns, want %d of 2", tbl.NumRows(), tbl.NumCols(), n)
	}
}
