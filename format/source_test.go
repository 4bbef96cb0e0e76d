package format

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestSourceReaderReadsAsTheFile: a Reader of a Trevni 2 file's columns
// as a Source (NewSourceReader over the file's Reader) reads every row,
// in order and after seeks, as the file's own Reader does, over random
// layouts, codecs and block sizes.
func TestSourceReaderReadsAsTheFile(t *testing.T) {
	t.Parallel()
	iterations := 100
	if testing.Short() {
		iterations = 25
	}
	for it := 0; it < iterations; it++ {
		r := rand.New(rand.NewPCG(uint64(it), 7))
		cols := randomLayout(r)
		children, roots := layoutTree(cols)
		opts := &WriterOptions{
			Codec:     []string{"null", "deflate", "snappy", "zstd"}[r.IntN(4)],
			Checksum:  []string{"", "crc32"}[r.IntN(2)],
			BlockSize: []int{16, 200, 4096}[r.IntN(3)],
		}
		nrows := []int{0, 1, 10, 300}[r.IntN(4)]
		var buf bytes.Buffer
		w, err := NewWriter(&buf, cols, opts)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]string, nrows)
		for i := range want {
			row := randomRow(r, cols, children, roots)
			want[i] = string(row.AppendJSON(nil))
			if err := writeRow(w, cols, row); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		file, err := NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := NewSourceReader(file, &ReaderOptions{ReadAhead: it%2 == 0})
		if err != nil {
			t.Fatal(err)
		}
		if !rd.IsSource() || file.IsSource() {
			t.Fatal("IsSource wrong")
		}
		rr, err := rd.Rows()
		if err != nil {
			t.Fatal(err)
		}
		checkRows(t, rr, want, fmt.Sprintf("iteration %d (%+v)", it, opts))
		checkSeeks(t, rd, r, want, roots)
		if n := rd.Validate(func(err error) { t.Errorf("iteration %d: %v", it, err) }); n != 0 {
			t.Fatalf("iteration %d: %d problems", it, n)
		}
		if _, err := rd.Slice(0, 0); !errors.Is(err, ErrUsage) {
			t.Fatalf("Slice of a source reader: %v", err)
		}
	}
}

// badSource is a one-column source whose blocks are what the test says.
type badSource struct {
	rows   int64
	blocks []BlockInfo
	data   func(b int) ([]byte, error)
	meta   MetaData
}

func (s *badSource) RowCount() int64                      { return s.rows }
func (s *badSource) Meta() *MetaData                      { return nil }
func (s *badSource) NumColumns() int                      { return 1 }
func (s *badSource) RawColumnMeta(int) *MetaData          { return &s.meta }
func (s *badSource) Blocks(int) ([]BlockInfo, error)      { return s.blocks, nil }
func (s *badSource) OpenColumn(int) (SourceColumn, error) { return s, nil }
func (s *badSource) Block(b int, dst []byte) ([]byte, error) {
	d, err := s.data(b)
	return append(dst, d...), err
}
func (s *badSource) Close() {}

// TestSourceReaderChecks: descriptors that do not hold the rows, blocks
// larger than MaxBlockSize or the block memory, and a source's own error
// are errors naming the column and block, never a panic.
func TestSourceReaderChecks(t *testing.T) {
	longs := func() MetaData {
		var m MetaData
		m.SetString(KeyName, "n")
		m.SetString(KeyType, "long")
		return m
	}
	boom := errors.New("boom")
	for _, tc := range []struct {
		name   string
		src    *badSource
		opts   *ReaderOptions
		target error
	}{
		{"rows short", &badSource{rows: 3, blocks: []BlockInfo{{Rows: 2}}, data: func(int) ([]byte, error) { return []byte{2, 4}, nil }}, nil, ErrFormat},
		{"rows out of order", &badSource{rows: 2, blocks: []BlockInfo{{Rows: 1, FirstRow: 1}, {Rows: 1}}, data: func(int) ([]byte, error) { return []byte{2}, nil }}, nil, ErrFormat},
		{"block too large", &badSource{rows: 1, blocks: []BlockInfo{{Rows: 1}}, data: func(int) ([]byte, error) { return make([]byte, 100), nil }}, &ReaderOptions{MaxBlockSize: 50}, ErrLimit},
		{"descriptor too large", &badSource{rows: 1, blocks: []BlockInfo{{Rows: 1, UncompressedSize: 100}}, data: func(int) ([]byte, error) { return []byte{2}, nil }}, &ReaderOptions{MaxBlockSize: 50}, ErrLimit},
		{"past the memory", &badSource{rows: 1, blocks: []BlockInfo{{Rows: 1}}, data: func(int) ([]byte, error) { return make([]byte, 10000), nil }}, &ReaderOptions{BlockMemory: 5000}, ErrLimit},
		{"source error", &badSource{rows: 1, blocks: []BlockInfo{{Rows: 1}}, data: func(int) ([]byte, error) { return nil, boom }}, nil, boom},
		{"truncated", &badSource{rows: 2, blocks: []BlockInfo{{Rows: 2}}, data: func(int) ([]byte, error) { return []byte{2}, nil }}, nil, ErrFormat},
	} {
		tc.src.meta = longs()
		rd, err := NewSourceReader(tc.src, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		c, err := rd.Values(0)
		if err == nil {
			for err == nil {
				if err = c.StartRow(); err == nil {
					_, err = c.ReadLong()
				}
			}
		}
		var fe *Error
		if !errors.Is(err, tc.target) || !errors.As(err, &fe) || fe.Column != "n" {
			t.Errorf("%s: %v, want %v naming column n", tc.name, err, tc.target)
		}
	}
}
