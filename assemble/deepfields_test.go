package assemble

import (
	"strings"
	"testing"
	"time"
)

// A deep field path is refused quickly: selections are rendered in linear
// time, and paths deeper than any projection may reach are refused at
// once.
func TestDeepFieldPath(t *testing.T) {
	rd := idFile(t, 10)
	for _, f := range []string{
		strings.Repeat("id.", maxSelectionDepth-2) + "id",
		strings.Repeat("x.", 30000) + "x",
		"id," + strings.Repeat("id.", 30000) + "id",
		strings.Repeat("a.", 1_000_000) + "a",
	} {
		start := time.Now()
		_, err := NewAvroReader(rd, &Options{Fields: []string{f}})
		if err == nil {
			t.Errorf("a path of %d parts: no error", strings.Count(f, ".")+1)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("a path of %d parts took %v", strings.Count(f, ".")+1, d)
		}
	}
	// key is linear in depth: a 30,000-deep selection renders at once.
	sel := selection{}
	for i, s := 0, sel; i < 30000; i++ {
		s["a"] = selection{}
		s = s["a"]
	}
	start := time.Now()
	if k := sel.key(); len(k) != 30000*4 {
		t.Errorf("key of %d bytes", len(k))
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("key of a 30,000-deep selection took %v", d)
	}
}
