package assemble

import (
	"runtime"
	"strings"
	"testing"
)

// allocated returns the bytes fn allocates, a measure of its work that the
// machine's load does not change.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A deep field path is refused with work linear in its length: selections
// are rendered in linear time, and paths deeper than any projection may
// reach are refused at once. Work is counted in bytes allocated, not
// time, so that a loaded machine cannot trip the test: a quadratic
// rendering of the 30,000-deep selection would allocate gigabytes.
func TestDeepFieldPath(t *testing.T) {
	rd := idFile(t, 10)
	for _, f := range []string{
		strings.Repeat("id.", maxSelectionDepth-2) + "id",
		strings.Repeat("x.", 30000) + "x",
		"id," + strings.Repeat("id.", 30000) + "id",
		strings.Repeat("a.", 1_000_000) + "a",
	} {
		var err error
		n := allocated(func() { _, err = NewAvroReader(rd, &Options{Fields: []string{f}}) })
		if err == nil {
			t.Errorf("a path of %d parts: no error", strings.Count(f, ".")+1)
		}
		if limit := 64*uint64(len(f)) + 4<<20; n > limit {
			t.Errorf("a path of %d parts (%d bytes) allocated %d bytes, over %d", strings.Count(f, ".")+1, len(f), n, limit)
		}
		t.Logf("a path of %d bytes: %d bytes allocated", len(f), n)
	}
	// key is linear in depth: a 30,000-deep selection renders at once.
	sel := selection{}
	for i, s := 0, sel; i < 30000; i++ {
		s["a"] = selection{}
		s = s["a"]
	}
	var k string
	n := allocated(func() { k = sel.key() })
	if len(k) != 30000*4 {
		t.Errorf("key of %d bytes", len(k))
	}
	if limit := 64 * uint64(len(k)); n > limit {
		t.Errorf("key of a 30,000-deep selection allocated %d bytes, over %d", n, limit)
	}
	t.Logf("key of %d bytes: %d bytes allocated", len(k), n)
}
