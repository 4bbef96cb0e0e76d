package layout

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/schema"
)

// doubling returns a schema of depth records, each with two fields of the
// record before it: 2^depth uses of the innermost record. leaf is the
// innermost record's fields.
func doubling(depth int, leaf string) string {
	var b strings.Builder
	b.WriteString(`{"type":"record","name":"R0","fields":[` + leaf + `]}`)
	text := b.String()
	for i := 1; i <= depth; i++ {
		text = fmt.Sprintf(`{"type":"record","name":"R%d","fields":[{"name":"a","type":%s},{"name":"b","type":"R%d"}]}`, i, text, i-1)
	}
	return text
}

// heapAfter runs f and returns how many bytes it allocated.
func heapAfter(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestExponentialLayout: a 2 KB schema claiming 2^26 columns (or 2^26
// positions with no column at all) is refused after counting to the
// limit, having allocated little.
func TestExponentialLayout(t *testing.T) {
	for _, leaf := range []string{`{"name":"x","type":"int"}`, ``} {
		s := schema.MustParse(doubling(26, leaf))
		var err error
		alloc := heapAfter(func() { _, err = New(s, nil) })
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("leaf %q: error %v, want ErrTooLarge", leaf, err)
		}
		// What the limit admits (65,536 columns, four times as many
		// nodes) takes some 65 MiB; the 2^26 claimed would take 64 GiB.
		if alloc > 128<<20 {
			t.Errorf("leaf %q: allocated %d MiB before refusing", leaf, alloc>>20)
		}
	}
	// Within a raised limit the same shape lays out, with the columns
	// counted exactly.
	l, err := New(schema.MustParse(doubling(10, `{"name":"x","type":"int"}`)), &Options{MaxColumns: 1 << 12})
	if err != nil || len(l.Columns) != 1<<10 {
		t.Fatalf("depth 10: %v columns, %v", len(l.Columns), err)
	}
	if _, err := New(schema.MustParse(doubling(10, `{"name":"x","type":"int"}`)), &Options{MaxColumns: 1000}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("1024 columns over a limit of 1000: %v", err)
	}
}

// TestDeepLayout: complex types nested past MaxDepth are refused with the
// path where the limit was reached.
func TestDeepLayout(t *testing.T) {
	text := `"int"`
	for i := 0; i < 60; i++ {
		text = `{"type":"array","items":` + text + `}`
	}
	s := schema.MustParse(text)
	if _, err := New(s, &Options{MaxDepth: 50}); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "[]") {
		t.Fatalf("60 arrays deep with a limit of 50: %v", err)
	}
	l, err := New(s, &Options{MaxDepth: 60})
	if err != nil || len(l.Columns) != 60 {
		t.Fatalf("60 arrays deep with a limit of 60: %d columns, %v", len(l.Columns), err)
	}
}
