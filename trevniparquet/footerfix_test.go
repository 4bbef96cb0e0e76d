package trevniparquet_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/internal/testing/ducktest"
	"github.com/trevni-go/trevni/internal/testing/longtest"
	"github.com/trevni-go/trevni/schema"

	"github.com/trevni-go/trevni/trevniparquet"
)

// A logical type arrow-go does not know (unknown-logical-type.parquet's
// second column) reads as its physical type, bytes, as DuckDB reads it
// (BLOB), beside a known one (a string).
func TestParquetUnknownLogicalType(t *testing.T) {
	sch, got, err := fromParquetSuite(t, "testdata/realwriters/parquet-testing/unknown-logical-type.parquet", nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]schema.Kind{}
	for _, f := range sch.Fields {
		kinds[f.Name] = f.Type.Branches[1].Kind
	}
	if kinds["column_with_known_type"] != schema.String || kinds["column_with_unknown_type"] != schema.Bytes {
		t.Fatalf("read as %s", sch)
	}
	v := got[0].(map[string]any)["column_with_unknown_type"].(map[string]any)["bytes"]
	if !bytes.Equal(v.([]byte), []byte("unknown string 1")) {
		t.Fatalf("row 0: %v", got[0])
	}
}

// Footers damaged anywhere are refused or read, never a panic or a
// hang, and the refusal has no Go runtime text: the footer rewriting
// walks only what is there. 60 flips a file (200 with TREVNI_LONG_TESTS=1,
// the same first 60 among them).
func TestParquetFooterFixDamaged(t *testing.T) {
	t.Parallel()
	flips := longtest.Rounds(60, 200)
	for i, base := range []string{"unknown-logical-type.parquet", "incorrect_map_schema.parquet", "nullable.impala.parquet"} {
		r := rand.New(rand.NewPCG(38, uint64(i)))
		data, err := os.ReadFile("testdata/realwriters/parquet-testing/" + base)
		if err != nil {
			t.Fatal(err)
		}
		n := int(uint32(data[len(data)-8]) | uint32(data[len(data)-7])<<8 | uint32(data[len(data)-6])<<16 | uint32(data[len(data)-5])<<24)
		for range flips {
			d := bytes.Clone(data)
			at := len(d) - 8 - n + r.IntN(n)
			d[at] ^= byte(1 + r.IntN(255))
			name := filepath.Join(t.TempDir(), base)
			if err := os.WriteFile(name, d, 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := fromParquetSuite(t, name, nil)
			for _, leak := range []string{"runtime error", "goroutine", "panic"} {
				if err != nil && strings.Contains(err.Error(), leak) {
					t.Errorf("%s, byte %d flipped: %v", base, at, err)
				}
			}
		}
	}
}

// ARROW-17100.parquet (pyarrow 2: version 2 data pages flagged
// uncompressed whose values are compressed) reads as Arrow C++ reads it:
// its records are what DuckDB reads from a copy with those flags set
// (DuckDB, like arrow-go, believes the flags and refuses the original);
// a file of another writer has no flag read otherwise.
func TestParquetMislabelledV2Pages(t *testing.T) {
	orig := "testdata/realwriters/arrow-testing/ARROW-17100.parquet"
	data, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	flips, err := trevniparquet.MislabelledV2Flags(bytes.NewReader(data))
	if err != nil || len(flips) == 0 {
		t.Fatalf("%d flags found: %v", len(flips), err)
	}
	fixed := bytes.Clone(data)
	for _, at := range flips {
		if fixed[at]&0x0f != 2 {
			t.Fatalf("byte %d is %#x, not a false boolean field's header", at, fixed[at])
		}
		fixed[at] = fixed[at]&^0x0f | 1
	}
	copyName := filepath.Join(t.TempDir(), "ARROW-17100-flagged.parquet")
	if err := os.WriteFile(copyName, fixed, 0o644); err != nil {
		t.Fatal(err)
	}
	sch, got, err := fromParquetSuite(t, orig, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Fatalf("%d rows, want 5", len(got))
	}
	reads := ducktest.ReadParquetEach(t, orig, copyName)
	if reads[orig].Error == "" {
		t.Logf("DuckDB now reads %s", orig)
	}
	if reads[copyName].Error != "" {
		t.Fatalf("DuckDB refuses the flagged copy: %s", reads[copyName].Error)
	}
	if err := ducktest.Diff(sch, got, reads[copyName]); err != nil {
		t.Fatal(err)
	}
	// Another writer's version 2 pages (parquet-mr's) are not flagged.
	other, err := os.ReadFile("testdata/realwriters/parquet-testing/datapage_v2.snappy.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if flips, err := trevniparquet.MislabelledV2Flags(bytes.NewReader(other)); err != nil || len(flips) != 0 {
		t.Fatalf("datapage_v2.snappy.parquet: %d flags, %v", len(flips), err)
	}
}
