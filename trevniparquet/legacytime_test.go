package trevniparquet_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/trevni-go/trevni/internal/testing/ducktest"
	"github.com/trevni-go/trevni/trevniarrow"
)

// A TIME adjusted to UTC (a logical type, DuckDB's TIME WITH TIME ZONE)
// comes back adjusted, and one of the legacy TIME_MILLIS converted type
// alone (older parquet-mr and Hive, DuckDB's TIME) comes back a plain
// TIME, though arrow-go reads both as adjusted: the way back gives DuckDB
// the types of the originals.
func TestParquetLegacyTimeComesBack(t *testing.T) {
	mem := memory.NewGoAllocator()
	utc := trevniarrow.NewParquetType(arrow.FixedWidthTypes.Time32ms, pqschema.NewTimeLogicalType(true, pqschema.TimeUnitMillis))
	as := arrow.NewSchema([]arrow.Field{{Name: "a", Type: utc}, {Name: "b", Type: utc, Nullable: true}}, nil)
	b := array.NewTime32Builder(mem, &arrow.Time32Type{Unit: arrow.Millisecond})
	for _, v := range []arrow.Time32{0, 1, 43200000, 86399999} {
		b.Append(v)
	}
	col := array.NewExtensionArrayWithStorage(utc, b.NewArray())
	adjusted := writeClaim(t, as, []arrow.Array{col, col}, "note", "no Avro schema")
	data, err := os.ReadFile(adjusted)
	if err != nil {
		t.Fatal(err)
	}
	legacy := filepath.Join(t.TempDir(), "legacy.parquet")
	if err := os.WriteFile(legacy, withoutLogicalType(t, data, "a"), 0o644); err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, f := range []string{adjusted, legacy} {
		_, trv, err := fromParquetSuiteFile(t, f, nil)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f, toParquetSuite(t, trv))
	}
	reads := ducktest.ReadParquet(t, files...)
	want := map[string]string{
		adjusted: "a TIME WITH TIME ZONE, b TIME WITH TIME ZONE",
		legacy:   "a TIME, b TIME WITH TIME ZONE",
	}
	for i := 0; i < len(files); i += 2 {
		o, r := reads[files[i]], reads[files[i+1]]
		if got := strings.Join(o.Columns, ", "); got != want[files[i]] {
			t.Fatalf("%s: DuckDB reads %s, want %s (the file is not what the test means)", files[i], got, want[files[i]])
		}
		if strings.Join(r.Columns, ", ") != strings.Join(o.Columns, ", ") || strings.Join(r.Rows, "\n") != strings.Join(o.Rows, "\n") {
			t.Errorf("%s: comes back as %v %v, want %v %v", files[i], r.Columns, r.Rows, o.Columns, o.Rows)
		}
	}
}

// withoutLogicalType returns a Parquet file with the logical type of the
// column name removed from its footer's schema (its converted type kept),
// as a writer of before logical types wrote it.
func withoutLogicalType(t *testing.T, data []byte, name string) []byte {
	t.Helper()
	return editFooter(t, data, func(md *metadata.FileMetaData) {
		found := false
		for _, e := range md.FileMetaData.Schema {
			if e.Name == name && e.IsSetConvertedType() {
				e.LogicalType, found = nil, true
			}
		}
		if !found {
			t.Fatalf("no column %s of a converted type", name)
		}
	})
}
