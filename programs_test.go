package trevni_test

// Three programs a Go service writes with the front door alone, as tests:
// each is the short program (between the "program" comments) and a check
// of what it made against an independent reading.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/linkedin/goavro/v2"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/s3server"
	"github.com/trevni-go/trevni/trevniarrow"
)

// large is a struct of Java's medium vector (vec.Large).
type large struct {
	ID    int64    `avro:"id"`
	Score float64  `avro:"score"`
	Name  string   `avro:"name"`
	Tags  []string `avro:"tags"`
	Opt   *int32   `avro:"opt"`
}

// Avro to Trevni, filtered into a file of its own, locally and on S3, and
// read back as structs: what goavro's reading of the Avro file, filtered
// in Go, gives.
func TestProgramAvroFilterTrevniStructs(t *testing.T) {
	s3server.Start(t, "bkt")
	src := "testdata/interop/medium/input.avro"
	want := mediumFiltered(t, src, func(rec map[string]any) bool { return rec["score"].(float64) > 0.5 })
	for _, dir := range []string{t.TempDir(), "s3://bkt/events"} {
		// program
		ctx := context.Background()
		all, some := dir+"/all.trv", dir+"/high.trv"
		if _, err := trevni.ConvertAvro(ctx, all, src, nil); err != nil {
			t.Fatal(err)
		}
		ds, err := trevni.Open(ctx, all, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ds.Close()
		w, err := trevni.Create(ctx, some, ds.SchemaText(), &trevni.WriteOptions{Codec: trevni.Zstd})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		for rec, err := range ds.Records(ctx, &trevni.ReadOptions{Where: "score > 0.5"}) {
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		high, err := trevni.Open(ctx, some, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer high.Close()
		var got []*large
		for e, err := range trevni.ReadStructs[large](ctx, high, nil) {
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, e)
		}
		// program
		if len(got) != len(want) || len(got) == 0 {
			t.Fatalf("%s: %d records, want %d", dir, len(got), len(want))
		}
		for i, e := range got {
			w := want[i]
			if e.ID != w.ID || e.Score != w.Score || e.Name != w.Name || fmt.Sprint(e.Tags) != fmt.Sprint(w.Tags) ||
				(e.Opt != nil) != w.hasOpt || (e.Opt != nil && *e.Opt != w.opt) {
				t.Fatalf("%s: record %d: %+v, want %+v (opt %d)", dir, i, *e, w.large, w.opt)
			}
		}
	}
}

// mediumRecord is a record of the medium vector as goavro reads it.
type mediumRecord struct {
	large
	opt    int32
	hasOpt bool
}

// mediumFiltered reads the Avro file src with goavro and returns the
// records keep keeps.
func mediumFiltered(t *testing.T, src string, keep func(map[string]any) bool) []mediumRecord {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	r, err := goavro.NewOCFReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out []mediumRecord
	for r.Scan() {
		v, err := r.Read()
		if err != nil {
			t.Fatal(err)
		}
		m := v.(map[string]any)
		if !keep(m) {
			continue
		}
		rec := mediumRecord{large: large{ID: m["id"].(int64), Score: m["score"].(float64), Name: m["name"].(string)}}
		for _, tag := range m["tags"].([]any) {
			rec.Tags = append(rec.Tags, tag.(string))
		}
		if u, ok := m["opt"].(map[string]any); ok {
			rec.opt, rec.hasOpt = u["int"].(int32), true
			rec.Opt = &rec.opt
		}
		out = append(out, rec)
	}
	return out
}

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
	src := "testdata/interop/medium/medium.deflate.crc32.trv"
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
	if _, err := trevniarrow.WriteParquet(ctx, f, ds, &trevniarrow.ParquetOptions{Read: trevniarrow.ReadOptions{ReadOptions: opts}}); err != nil {
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
