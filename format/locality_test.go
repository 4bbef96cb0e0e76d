package format

import (
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// spanReader records the byte ranges read through it.
type spanReader struct {
	ra    io.ReaderAt
	mu    sync.Mutex
	spans [][2]int64
}

func (s *spanReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := s.ra.ReadAt(p, off)
	s.mu.Lock()
	s.spans = append(s.spans, [2]int64{off, off + int64(n)})
	s.mu.Unlock()
	return n, err
}

func (s *spanReader) take() [][2]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.spans
	s.spans = nil
	return out
}

// TestReadLocality checks that opening a file reads its header (and at most
// one read-ahead chunk more), and that reading one column touches only that
// column's bytes.
func TestReadLocality(t *testing.T) {
	f, err := os.Open(filepath.Join(interopDir, "raw_core", "raw_core.trv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	sr := &spanReader{ra: f}
	rd, err := NewReader(sr, fi.Size(), nil)
	if err != nil {
		t.Fatal(err)
	}
	header := rd.ColumnStart(0)
	for _, sp := range sr.take() {
		if sp[1] > header+headerChunk {
			t.Errorf("opening read bytes %d to %d; the header ends at %d", sp[0], sp[1], header)
		}
	}
	for i := 0; i < rd.NumColumns(); i++ {
		rows, err := rd.Values(i)
		if err != nil {
			t.Fatal(err)
		}
		for rows.StartRow() == nil {
		}
		start, end := rd.ColumnStart(i), rd.columnEnd(i)
		spans := sr.take()
		if len(spans) == 0 {
			t.Fatalf("column %d: nothing read", i)
		}
		for _, sp := range spans {
			if sp[0] < start || sp[1] > end {
				t.Errorf("column %d (%d to %d): read bytes %d to %d", i, start, end, sp[0], sp[1])
			}
		}
	}
}
