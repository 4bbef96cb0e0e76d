package trevniparquet_test

// The helpers of the Parquet tests that trevniarrow's tests have too:
// random Trevni files, reading one back, and the Node packages the DuckDB
// checks drive (trevniarrow's TestNodePackagesAsCI holds the versions
// to .ci/run's). Copies until the DuckDB helpers move to a shared
// internal/testing package.

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/schema"
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
