package schema

import (
	"errors"
	"runtime"
	"strings"
	"testing"
)

// allocated runs f and returns the bytes it allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// deepUnions nests n unions, each the items of an array in the next.
func deepUnions(n int) string {
	return strings.Repeat(`["null",{"type":"array","items":`, n) + `"int"` + strings.Repeat(`}]`, n)
}

// TestDeepSchemaRefused: unions nested 25,000 deep (a 50 KB schema) are
// refused at the depth limit with little memory, where copying the path at
// every level once took gigabytes; the error's path is capped.
func TestDeepSchemaRefused(t *testing.T) {
	text := deepUnions(25000)
	var err error
	alloc := allocated(func() { _, err = Parse(text) })
	var se *Error
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "MaxDepth") {
		t.Fatalf("error %v", err)
	}
	if alloc > 64<<20 {
		t.Errorf("allocated %d MiB to refuse a 50 KB schema", alloc>>20)
	}
	if len(err.Error()) > 2000 {
		t.Errorf("error message of %d bytes", len(err.Error()))
	}
	// Within the limit, the same shape parses, and a raised limit admits
	// deeper nesting.
	if _, err := Parse(deepUnions(300)); err != nil {
		t.Fatalf("300 deep: %v", err)
	}
	if _, err := ParseWith(deepUnions(1400), &ParseOptions{MaxDepth: 3000}); err != nil {
		t.Fatalf("1400 deep with MaxDepth 3000: %v", err)
	}
	if _, err := ParseWith(deepUnions(60), &ParseOptions{MaxDepth: 100}); err == nil {
		t.Fatal("60 unions deep (120 levels) passed a limit of 100")
	}
}

// TestDeepJSONRefused: an ignored property holding a 30-million-deep JSON
// array (60 MB) is refused without exhausting the stack.
func TestDeepJSONRefused(t *testing.T) {
	n := 30_000_000
	if testing.Short() {
		n = 1_000_000
	}
	text := `{"type":"int","x":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`
	_, err := Parse(text)
	if err == nil || !strings.Contains(err.Error(), "nests too deeply") {
		t.Fatalf("error %v", err)
	}
	// Ordinary nesting in a property is kept.
	s, err := Parse(`{"type":"int","x":[[[[{"a":[1]}]]]]}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Prop("x"); !ok {
		t.Fatal("property lost")
	}
}
