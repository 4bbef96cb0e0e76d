package format

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestDataEnd checks DataEnd against files whose end is known: every
// Java-written interop file ends exactly where its last column's data
// does, and bytes appended after it leave DataEnd where it was.
func TestDataEnd(t *testing.T) {
	for file := range interopFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, junk := range []string{"", "x", strings.Repeat("junk", 1000)} {
			b := append(bytes.Clone(data), junk...)
			rd, err := NewReader(bytes.NewReader(b), int64(len(b)), nil)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			end, err := rd.DataEnd()
			if err != nil || end != int64(len(data)) {
				t.Errorf("%s with %d bytes appended: DataEnd = %d, %v; want %d", file, len(junk), end, err, len(data))
			}
		}
	}
}

// TestDataEndNoColumns checks DataEnd of a file of no columns: the end of
// its header, which is the whole file as the writer writes it.
func TestDataEndNoColumns(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	n := int64(buf.Len())
	b := append(bytes.Clone(buf.Bytes()), "tail"...)
	rd, err := NewReader(bytes.NewReader(b), int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if end, err := rd.DataEnd(); err != nil || end != n {
		t.Errorf("DataEnd = %d, %v; want %d", end, err, n)
	}
}
