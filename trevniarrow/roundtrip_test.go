package trevniarrow_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/trevniarrow"
)

// writeRandom writes n random records of a random schema into a Trevni
// file and returns its name, the schema's text and the records.
func writeRandom(t *testing.T, seed uint64, n int) (string, string, []any) {
	return writeRandomWith(t, seed, n, nil)
}

// writeRandomWith is writeRandom with each value passed through fix.
func writeRandomWith(t *testing.T, seed uint64, n int, fix func(*schema.Schema, any) any) (string, string, []any) {
	t.Helper()
	g := avrorand.New(seed, avrorand.Options{})
	text := g.Schema()
	s, err := schema.Parse(text)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	name := filepath.Join(t.TempDir(), fmt.Sprintf("r%d.trv", seed))
	w, err := trevni.Create(context.Background(), name, text, nil)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	var want []any
	for range n {
		v := g.Value(s)
		if fix != nil {
			v = fix(s, v)
		}
		if err := w.Write(v); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		want = append(want, v)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	return name, text, want
}

// readAll reads every record of a Trevni file.
func readAll(t *testing.T, name string) []any {
	t.Helper()
	ds, err := trevni.Open(context.Background(), name, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	for v, err := range ds.All(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// Random schemas and values, Trevni to Arrow batches (of a few rows, so
// that records span batches) to Trevni: the same schema and every value
// equal, with unions as dense unions and as structs.
func TestRoundTripProperty(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(60) {
		name, text, want := writeRandom(t, seed, int(seed%9)+1)
		for _, asStructs := range []bool{false, true} {
			ds, err := trevni.Open(ctx, name, nil)
			if err != nil {
				t.Fatal(err)
			}
			rr, err := trevniarrow.NewRecordReader(ctx, ds, &trevniarrow.ReadOptions{BatchRows: 3, Schema: trevniarrow.SchemaOptions{UnionsAsStructs: asStructs}})
			if err != nil {
				t.Fatalf("seed %d: %v\n%s", seed, err, text)
			}
			back, err := trevniarrow.AvroSchema(rr.Schema())
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if back != frontdoor.Schema(ds).String() {
				t.Fatalf("seed %d: Avro schema\n%s\nback as\n%s", seed, frontdoor.Schema(ds).String(), back)
			}
			out := filepath.Join(t.TempDir(), "back.trv")
			w, err := trevni.Create(context.Background(), out, back, nil)
			if err != nil {
				t.Fatal(err)
			}
			batches := 0
			tw, err := trevniarrow.NewWriter(w, rr.Schema())
			if err != nil {
				t.Fatalf("seed %d structs %v: %v\n%s", seed, asStructs, err, text)
			}
			for rr.Next() {
				rec := rr.RecordBatch()
				if err := validate(rec); err != nil {
					t.Fatalf("seed %d structs %v: batch %d: %v\n%s", seed, asStructs, batches, err, text)
				}
				if err := tw.Write(rec); err != nil {
					t.Fatalf("seed %d structs %v: %v\n%s", seed, asStructs, err, text)
				}
				batches++
			}
			if err := rr.Err(); err != nil {
				t.Fatalf("seed %d structs %v: %v\n%s", seed, asStructs, err, text)
			}
			rr.Release()
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if wantBatches := (len(want) + 2) / 3; batches != wantBatches {
				t.Fatalf("seed %d: %d batches, want %d", seed, batches, wantBatches)
			}
			got := readAll(t, out)
			if len(got) != len(want) {
				t.Fatalf("seed %d: %d records back, want %d", seed, len(got), len(want))
			}
			for i := range want {
				if !avrorand.EqualNative(got[i], want[i]) {
					t.Fatalf("seed %d structs %v: record %d\n got %v\nwant %v\n%s", seed, asStructs, i, got[i], want[i], text)
				}
			}
		}
	}
}

// validate checks a batch's arrays as Arrow defines them.
func validate(rec arrow.RecordBatch) error { return array.ValidateRecordFull(rec) }

// Every format the front door opens reads as batches: Trevni 1 (Impala's),
// CLMN and files written from protobuf, from the start and from an offset, each value equal to the record the front door reads.
func TestOtherFormats(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{
		"../testdata/trevni1/impala_all_types.trv",
		"../testdata/trevni1/impala_several_blocks.trv",
		"../testdata/clmn/sample.clmn",
		"../testdata/clmn/last-empty.clmn",
		"../testdata/proto/legacy/trevni.test.p3.Everything.trv",
		"../testdata/proto/legacy/trevni.test.p3.Tree.trv",
		"../testdata/proto/legacy/trevni.test.ed.Item.trv",
	} {
		ds, err := trevni.Open(ctx, name, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, off := range []int64{0, 1} {
			want := []any{}
			for v, err := range ds.All(ctx, &trevni.ReadOptions{Offset: off}) {
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, v)
			}
			rr, err := trevniarrow.NewRecordReader(ctx, ds, &trevniarrow.ReadOptions{ReadOptions: trevni.ReadOptions{Offset: off}, BatchRows: 2})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out := filepath.Join(t.TempDir(), "back.trv")
			text, err := trevniarrow.AvroSchema(rr.Schema())
			if err != nil {
				t.Fatal(err)
			}
			w, err := trevni.Create(context.Background(), out, text, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := trevniarrow.WriteAll(ctx, w, rr); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			rr.Release()
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			got := readAll(t, out)
			if len(got) != len(want) || len(want) == 0 && off == 0 && ds.RowCount() > 0 {
				t.Fatalf("%s offset %d: %d records back, want %d", name, off, len(got), len(want))
			}
			for i := range want {
				if !avrorand.EqualNative(got[i], want[i]) {
					t.Fatalf("%s offset %d: record %d\n got %v\nwant %v", name, off, i, got[i], want[i])
				}
			}
		}
	}
}
