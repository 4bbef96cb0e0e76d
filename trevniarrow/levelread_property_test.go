package trevniarrow_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/internal/testing/longtest"
	"github.com/trevni-go/trevni/internal/testing/predrand"
	"github.com/trevni-go/trevni/predicate"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/trevniarrow"
)

// The property of the columnar path: over random schemas and records in
// parts of small blocks, read with random field selections, filters,
// offsets, row counts and limits, on 1 and 3 workers, with unions as
// dense unions and as structs, the batches built from the columns,
// written back through Arrow, are the records the row interpreter
// (assemble) reads with the same options, and where it fails so do they.
// A plain go test runs a quarter of the schemas, each with fewer reads.
func TestColumnarAgainstRecords(t *testing.T) {
	ctx := context.Background()
	var runs, filtered, projected int
	seeds, reads := longtest.Rounds(10, 40), longtest.Rounds(2, 4)
	for seed := range uint64(seeds) {
		ds, s, recs := writeRandomParts(t, 1000+seed, 900, 400)
		l, err := layout.New(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(seed, 31))
		exprs := predrand.New(r, s, recs)
		exprs.Check = func(e string) error {
			_, err := predicate.Compile(e, s, l)
			return err
		}
		rows := ds.RowCount()
		for k := range reads {
			var o trevniarrow.ReadOptions
			o.BatchRows = 1 + r.IntN(300)
			o.Schema.UnionsAsStructs = (k+int(seed))%2 == 1
			if r.IntN(2) == 0 {
				o.Where = exprs.Expr(2)
				filtered++
			}
			if r.IntN(3) == 0 {
				o.Offset = r.Int64N(rows)
			}
			if r.IntN(3) == 0 {
				o.Rows = 1 + r.Int64N(rows)
			}
			if r.IntN(3) == 0 {
				o.Limit = 1 + r.Int64N(rows)
			}
			if len(s.Fields) > 0 && r.IntN(3) == 0 {
				f := s.Fields[r.IntN(len(s.Fields))]
				o.Fields = []string{f.Name}
				projected++
			}
			o.Workers = 1 + 2*((k+int(seed)/2)%2)
			got := readArrow(t, ctx, ds, o)
			checkRecords(t, ctx, ds, o, got)
			for _, b := range got.batches {
				b.Release()
			}
			runs++
		}
	}
	if filtered == 0 || projected == 0 {
		t.Fatalf("%d runs, %d filtered, %d projected", runs, filtered, projected)
	}
}

// checkRecords checks the batches of a run, written back through Arrow,
// against the records ds.All reads with the same options (the row
// interpreter's): both fail, or neither does and they hold the same.
func checkRecords(t *testing.T, ctx context.Context, ds *trevni.Dataset, o trevniarrow.ReadOptions, run arrowRun) {
	t.Helper()
	var want []any
	var rerr error
	for v, err := range ds.All(ctx, &o.ReadOptions) {
		if err != nil {
			rerr = err
			break
		}
		want = append(want, v)
	}
	if (rerr == nil) != (run.err == nil) {
		t.Fatalf("%+v: the records read with %v, the batches with %v", o.ReadOptions, rerr, run.err)
	}
	if rerr != nil {
		return
	}
	if int64(len(want)) != run.rows {
		t.Fatalf("%+v: %d rows in batches, %d records", o.ReadOptions, run.rows, len(want))
	}
	if len(run.batches) == 0 {
		return
	}
	sc := run.batches[0].Schema()
	text, err := trevniarrow.AvroSchema(sc)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "back.trv")
	w, err := trevni.Create(ctx, out, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	tw, err := trevniarrow.NewWriter(w, sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range run.batches {
		if err := validate(b); err != nil {
			t.Fatalf("%+v: %v", o.ReadOptions, err)
		}
		if err := tw.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := readAll(t, out)
	for i := range want {
		if !avrorand.EqualNative(got[i], want[i]) {
			t.Fatalf("%+v: record %d\n got %v\nwant %v", o.ReadOptions, i, got[i], want[i])
		}
	}
}
