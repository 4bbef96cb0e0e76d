package trevniparquet_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/internal/testing/ducktest"
	"github.com/trevni-go/trevni/internal/testing/predrand"
	"github.com/trevni-go/trevni/predicate"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/trevniarrow"

	"github.com/trevni-go/trevni/trevniparquet"
)

// selected returns the records of recs (goavro's values, as written) that
// the read options select: the rows from Offset on (Rows of them, if set),
// those the filter p matches, at most Limit, each with only the top-level
// fields fields names (all if none).
func selected(t *testing.T, recs []any, o trevni.ReadOptions, p *predicate.Predicate, fields []string) []any {
	t.Helper()
	end := int64(len(recs))
	if o.Rows > 0 {
		end = min(end, o.Offset+o.Rows)
	}
	var out []any
	for i := o.Offset; i < end; i++ {
		if o.Limit > 0 && int64(len(out)) == o.Limit {
			break
		}
		if p != nil {
			ok, err := p.Match(recs[i])
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				continue
			}
		}
		rec := recs[i]
		if len(fields) > 0 {
			m := map[string]any{}
			for _, f := range fields {
				m[f] = recs[i].(map[string]any)[f]
			}
			rec = m
		}
		out = append(out, rec)
	}
	return out
}

// Write writes a selection of fields, a filter, an offset, a limit
// and a range of rows straight from the Trevni columns (the direct path),
// on one goroutine or several: the file is the one the Arrow path writes
// (schema, metadata, row groups, statistics, values), its records are the
// records written that the options select, as goavro values filtered and
// cut here, and DuckDB reads every one of them.
func TestParquetDirectSelections(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	type job struct {
		label string
		s     *schema.Schema
		want  []any
	}
	jobs := map[string]job{}
	var files []string
	filtered := 0
	for seed := range uint64(48) {
		n := 20 + int(seed%5)*10
		name, text, recs := writeDirectRandomWith(t, 3000+seed, n, inDuckDomain)
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		lay, err := layout.New(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(seed, 11))
		var o trevni.ReadOptions
		if r.IntN(2) == 0 {
			o.Offset = int64(r.IntN(n))
		}
		if r.IntN(3) == 0 {
			o.Limit = int64(1 + r.IntN(n))
		}
		if r.IntN(4) == 0 {
			o.Rows = int64(1 + r.IntN(n))
		}
		var p *predicate.Predicate
		if seed%4 != 3 {
			g := predrand.New(r, s, recs)
			g.Check = func(e string) error { _, err := predicate.Compile(e, s, lay); return err }
			o.Where = g.Expr(2)
			if o.Where != "" {
				if p, err = predicate.Compile(o.Where, s, lay); err != nil {
					t.Fatalf("seed %d: %q: %v", seed, o.Where, err)
				}
			}
		}
		var fields []string
		if r.IntN(2) == 0 {
			for _, f := range s.Fields {
				if r.IntN(2) == 0 {
					fields = append(fields, f.Name)
				}
			}
		}
		o.Fields = fields
		o.Workers = 1 + r.IntN(3)
		opts := &trevniparquet.WriteOptions{Read: trevniarrow.ReadOptions{ReadOptions: o}, RowGroupRows: 1 + r.IntN(9), Codec: []string{"snappy", "zstd", "none"}[seed%3]}
		label := fmt.Sprintf("seed %d, offset %d, limit %d, rows %d, where %q, fields %v", 3000+seed, o.Offset, o.Limit, o.Rows, o.Where, fields)
		ds, err := trevni.Open(ctx, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !trevniparquet.DirectApplies(ds, opts) {
			t.Fatalf("%s: the direct path does not apply to\n%s", label, text)
		}
		var direct, viaArrow bytes.Buffer
		got, err := trevniparquet.Write(ctx, &direct, ds, opts)
		if err != nil {
			t.Fatalf("%s: %v\n%s", label, err, text)
		}
		if _, err := trevniparquet.WriteArrow(ctx, &viaArrow, ds, opts); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		ds.Close()
		want := selected(t, recs, o, p, fields)
		if got != int64(len(want)) {
			t.Fatalf("%s: %d records written, want %d", label, got, len(want))
		}
		if p != nil && len(want) > 0 && len(want) < n {
			filtered++
		}
		sameParquet(t, label, direct.Bytes(), viaArrow.Bytes())
		back := parquetRecords(t, direct.Bytes())
		for i := range want {
			if !avrorand.EqualNative(back[i], want[i]) {
				t.Fatalf("%s: record %d\n got %v\nwant %v\n%s", label, i, back[i], want[i], text)
			}
		}
		ps := s
		if len(fields) > 0 {
			if ps, err = assemble.ProjectSchema(s, fields); err != nil {
				t.Fatal(err)
			}
		}
		out := filepath.Join(dir, fmt.Sprintf("%d.parquet", len(files)))
		if err := os.WriteFile(out, direct.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		jobs[out] = job{label, ps, want}
		files = append(files, out)
	}
	if filtered < 10 {
		t.Errorf("only %d of the filters kept some records and left others", filtered)
	}
	reads := ducktest.ReadParquet(t, files...)
	for _, f := range files {
		j := jobs[f]
		ducktest.Check(t, j.label, j.s, j.want, reads[f])
	}
}
