package trevniparquet_test

import (
	"strings"
	"testing"

	"github.com/trevni-go/trevni/internal/testing/ducktest"
)

// A Parquet VARIANT column (parquet-testing's shredded_variant, unshredded
// and shredded), which DuckDB reads and this reader does not yet, is
// refused when the file is opened, naming the column and what to do, not
// with an Arrow type's text when the first row group is read.
func TestParquetVariantRefused(t *testing.T) {
	t.Parallel()
	files := []string{"testdata/variant/case-001.parquet", "testdata/variant/case-045.parquet"}
	reads := ducktest.ReadParquetEach(t, files...)
	for _, f := range files {
		if reads[f].Error != "" || reads[f].Count == 0 {
			t.Errorf("%s: DuckDB: %d rows, %s", f, reads[f].Count, reads[f].Error)
		}
		_, _, err := fromParquetSuite(t, f, nil)
		if err == nil {
			t.Fatalf("%s: read", f)
		}
		for _, w := range []string{"Parquet column var is a VARIANT", "EXCLUDE (var)"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want %q in it", f, err, w)
			}
		}
		if strings.Contains(err.Error(), "extension<") {
			t.Errorf("%s: %v: an Arrow type's text", f, err)
		}
	}
}
