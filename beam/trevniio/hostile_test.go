package trevniio

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"

	"github.com/trevni-go/trevni/format"
)

// A small file claiming 2^62 rows is not split into 2^42 restrictions: a
// count its blocks do not hold makes the one restriction that reports it,
// and a count no column contradicts is split into at most
// MaxInitialSplits restrictions.
func TestHostileRowCount(t *testing.T) {
	dir := t.TempDir()
	build := func(name string, cols []format.ColumnMeta, rows int) string {
		var buf bytes.Buffer
		w, err := format.NewWriter(&buf, cols, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < rows; i++ {
			if err := w.WriteRow(int64(i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		b := buf.Bytes()
		binary.LittleEndian.PutUint64(b[4:12], 1<<62)
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	fn := &readFn{SplitRows: DefaultSplitRows}

	lying := build("lying.trv", []format.ColumnMeta{{Name: "id", Type: format.Long}}, 3)
	if _, err := rowCount(lying); err == nil {
		t.Error("rowCount: no error for 2^62 rows in a file of 3")
	}
	rest := fn.CreateInitialRestriction(lying)
	if rest.Size() != 1 {
		t.Errorf("initial restriction %v, want one row, for ProcessElement to report the error", rest)
	}

	// No column to contradict the count: the splits are bounded.
	empty := build("empty.trv", nil, 0)
	rest = fn.CreateInitialRestriction(empty)
	if rest.End != 1<<62 {
		t.Fatalf("initial restriction %v", rest)
	}
	splits := fn.SplitRestriction(empty, rest)
	if len(splits) > MaxInitialSplits {
		t.Errorf("%d splits, more than %d", len(splits), MaxInitialSplits)
	}
	var next int64
	for _, s := range splits {
		if s.Start != next || s.End <= s.Start {
			t.Fatalf("splits do not tile the rows: %v after %d", s, next)
		}
		next = s.End
	}
	if next != 1<<62 {
		t.Errorf("splits end at %d", next)
	}
	// Ordinary files split as before.
	if got := len(fn.SplitRestriction(empty, offsetrange.Restriction{Start: 0, End: 10 * DefaultSplitRows})); got != 10 {
		t.Errorf("%d splits of ten SplitRows, want 10", got)
	}
}
