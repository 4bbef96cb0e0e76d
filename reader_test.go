package trevni_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/schema/protoschema"
	"github.com/trevni-go/trevni/trevni1"
)

// What the command line needs of the front door beyond reading records:
// counting with the scan reports kept, messages that do not change from
// run to run, and files whose records cannot be read still opened for
// their own readers.

// primitivesParts returns a data set of n copies of the primitives vector
// in a directory.
func primitivesParts(t *testing.T, n int) *trevni.Dataset {
	t.Helper()
	b, err := os.ReadFile("testdata/interop/primitives/primitives.snappy.crc32.trv")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, "p"+string(rune('a'+i))+".trv"), b, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := trevni.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// TestReaderCount checks Reader.Count against the records a reader with
// the same options returns, one by one, and that its report holds one
// entry per part read with the rows it scanned and matched.
func TestReaderCount(t *testing.T) {
	ctx := context.Background()
	ds := primitivesParts(t, 3)
	defer ds.Close()
	per := ds.Parts()[0].RowCount()
	for _, o := range []trevni.ReadOptions{
		{Where: "i > 20"},
		{Where: "i > 20", Limit: 5},
		{Where: "i > 20", Offset: per + 3},
		{Where: "i > 20", Offset: per - 1, Limit: int64(per)},
		{Where: "i < 0 AND i > 0"},
		{Offset: 4},
		{Limit: 7},
	} {
		var want int64
		for _, err := range ds.All(ctx, &o) {
			if err != nil {
				t.Fatal(err)
			}
			want++
		}
		r, err := ds.NewReader(ctx, &o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.Count()
		if err != nil || got != want {
			t.Errorf("%+v: Count %d, %v; the reader returns %d", o, got, err, want)
		}
		if r.Records() != got {
			t.Errorf("%+v: Records %d after Count %d", o, r.Records(), got)
		}
		var matched int64
		for _, rep := range r.Report() {
			if rep.Part == "" || rep.Scan.RowsScanned > per {
				t.Errorf("%+v: report %+v", o, rep)
			}
			matched += rep.Scan.RowsMatched
		}
		if o.Where != "" && o.Limit == 0 && matched != want {
			t.Errorf("%+v: the reports match %d, Count %d", o, matched, want)
		}
		if _, err := r.Read(); err != io.EOF {
			t.Errorf("%+v: a read after Count: %v", o, err)
		}
		r.Close()
		if n, err := ds.Count(ctx, &o); err != nil || n != want {
			t.Errorf("%+v: Dataset.Count %d, %v, want %d", o, n, err, want)
		}
	}
	// Every part's report, for a filter over all of them.
	r, err := ds.NewReader(ctx, &trevni.ReadOptions{Where: "i > 20"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Count(); err != nil {
		t.Fatal(err)
	}
	if reps := r.Report(); len(reps) != 3 || reps[0].Part != ds.Parts()[0].Name() || reps[2].Part != ds.Parts()[2].Name() || reps[1].Scan.RowsScanned != per {
		t.Errorf("reports %+v", reps)
	}
}

// TestSelectionErrorStable: of several unknown fields, the error names the
// first in the order given, on every run.
func TestSelectionErrorStable(t *testing.T) {
	ds := primitivesParts(t, 1)
	defer ds.Close()
	for range 20 {
		_, err := ds.NewReader(context.Background(), &trevni.ReadOptions{Fields: []string{"i", "zz1", "zz2", "zz3", "zz4"}})
		if err == nil || !strings.Contains(err.Error(), "zz1") || strings.Contains(strings.ReplaceAll(err.Error(), "zz1", ""), "zz") {
			t.Fatalf("error %v; want zz1 named", err)
		}
	}
}

// TestOpenUnparsableSchema: a Trevni file whose avro.schema does not parse
// opens, and its part's own reader reads it; reading records reports the
// schema's error.
func TestOpenUnparsableSchema(t *testing.T) {
	b, err := os.ReadFile("testdata/interop/primitives/primitives.null.none.trv")
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(b, []byte(`"type":"record"`), []byte(`"type":"recorX"`), 1)
	if bytes.Equal(bad, b) {
		t.Fatal("the schema text was not found")
	}
	ctx := context.Background()
	ds, err := trevni.OpenReaderAt(ctx, bytes.NewReader(bad), int64(len(bad)), "bad.trv", nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer ds.Close()
	f, err := ds.Parts()[0].Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if frontdoor.TrevniReader(f) == nil || frontdoor.TrevniReader(f).NumColumns() == 0 || f.RowCount() != ds.RowCount() || ds.RowCount() == 0 {
		t.Errorf("the part's reader: %v rows", f.RowCount())
	}
	f.Close()
	if _, err := ds.NewReader(ctx, nil); err == nil || !strings.Contains(err.Error(), "bad.trv: schema") {
		t.Errorf("NewReader: %v", err)
	}
	if _, err := ds.Columns(); err == nil {
		t.Error("Columns: no error")
	}
	// A reader schema that does not parse is still an error at once.
	if _, err := trevni.OpenReaderAt(ctx, bytes.NewReader(b), int64(len(b)), "good.trv", &trevni.OpenOptions{ReaderSchema: `{"type":"recorX"}`}); err == nil {
		t.Error("a reader schema that does not parse was accepted")
	}
}

// TestOpenTrevni1WithoutRecords: a Trevni 1 file with no avro.schema whose
// columns no flat record reads (a name that is not an Avro name) opens,
// and its own reader reads it; reading records says it has no schema.
func TestOpenTrevni1WithoutRecords(t *testing.T) {
	var buf bytes.Buffer
	w, err := trevni1.NewWriter(&buf, []trevni1.ColumnSpec{{Name: "not a name", Type: trevni1.Int, MaxDef: 1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := w.WriteRow(int32(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	b := buf.Bytes()
	ds, err := trevni.OpenReaderAt(ctx, bytes.NewReader(b), int64(len(b)), "v1.trv", nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer ds.Close()
	if ds.SchemaText() != "" || ds.RowCount() != 3 {
		t.Errorf("schema %q, %d rows", ds.SchemaText(), ds.RowCount())
	}
	f, err := ds.Parts()[0].Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if frontdoor.Trevni1Reader(f) == nil || frontdoor.Trevni1Reader(f).Column(0).Name != "not a name" {
		t.Error("the part's own reader")
	}
	f.Close()
	_, err = ds.NewReader(ctx, nil)
	if err == nil || !strings.Contains(err.Error(), "avro.schema") {
		t.Errorf("NewReader: %v", err)
	}
	if errors.Is(err, trevni.ErrUnknownFormat) {
		t.Errorf("NewReader: %v", err)
	}
}

// TestWriteProtoProgress: WriteProto reports the messages written and the
// bytes read, across the parts, ending with the whole count.
func TestWriteProtoProgress(t *testing.T) {
	dir := t.TempDir()
	const per = 5000
	for _, name := range []string{"a.trv", "b.trv"} {
		w, err := trevni.CreateProto(context.Background(), filepath.Join(dir, name), (&timestamppb.Timestamp{}).ProtoReflect().Descriptor(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range per {
			if err := w.Write(&timestamppb.Timestamp{Seconds: int64(i), Nanos: int32(i % 1000)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	ds, err := trevni.Open(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	var calls [][2]int64
	var out bytes.Buffer
	n, err := ds.WriteProto(ctx, &out, protoschema.Delimited, &trevni.ProtoOptions{ReadOptions: trevni.ReadOptions{
		Offset: 10, Progress: func(records, bytes int64) { calls = append(calls, [2]int64{records, bytes}) }}})
	if err != nil || n != 2*per-10 {
		t.Fatalf("WriteProto: %d, %v", n, err)
	}
	if len(calls) < 3 || calls[len(calls)-1][0] != n {
		t.Fatalf("progress %v", calls)
	}
	for i := 1; i < len(calls); i++ {
		if calls[i][0] < calls[i-1][0] || calls[i][1] < calls[i-1][1] || calls[i][1] <= 0 {
			t.Fatalf("progress goes back: %v", calls)
		}
	}
	// The messages themselves: the last one written is the last one read.
	var last timestamppb.Timestamp
	rd := bufio.NewReader(&out)
	var k int64
	for ; ; k++ {
		if err := protodelim.UnmarshalFrom(rd, &last); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if k != n || last.Seconds != per-1 || last.Nanos != int32((per-1)%1000) {
		t.Fatalf("%d messages, the last %v", k, &last)
	}
}

// TestAsTrevni: (frontdoor.AsTrevni) a Trevni 1 file's Trevni 2 view holds its records, read
// in place: no temporary file is made.
func TestAsTrevni(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	ds, err := trevni.Open(ctx, "testdata/trevni1/impala_all_types.trv", &trevni.OpenOptions{TempDir: tmp})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	f, err := ds.Parts()[0].Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := frontdoor.AsTrevni(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	if rd.RowCount() != 3 || rd.Meta().GetString("avro.schema") != ds.SchemaText() || frontdoor.TrevniReader(f) != nil {
		t.Errorf("%d rows, schema %q", rd.RowCount(), rd.Meta().GetString("avro.schema"))
	}
	if again, err := frontdoor.AsTrevni(ctx, f); err != nil || again != rd {
		t.Errorf("a second call: %v", err)
	}
	ar, err := assemble.NewAvroReader(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for {
		if _, err := ar.ReadJSON(nil); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 3 {
		t.Errorf("%d records, want 3", n)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("temporary files: %v", ents)
	}
	f.Close()
	// A Trevni 2 file's view is its own reader.
	ds2, err := trevni.Open(ctx, "testdata/interop/primitives/primitives.null.none.trv", &trevni.OpenOptions{TempDir: tmp})
	if err != nil {
		t.Fatal(err)
	}
	f2, err := ds2.Parts()[0].Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	if rd, err := frontdoor.AsTrevni(ctx, f2); err != nil || rd != frontdoor.TrevniReader(f2) {
		t.Errorf("Trevni 2: %v", err)
	}
}
