package trevniparquet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/internal/ocfsource"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/trevniarrow"
)

// Importing this package registers the Parquet format on the front door
// (its own registry, in internal/frontdoor; nothing another library sees):
// trevni.Open and the reading commands then read Parquet files as parts of
// a data set. A program that reads Parquet imports it, as one that reads
// a store imports the store's driver; the core links no Parquet reader.
func init() {
	frontdoor.RegisterFormat(&frontdoor.FormatDriver{Name: "Parquet", Magic: "PAR1", Open: openSource})
}

// sliceBytes is about the uncompressed bytes (by the footer's row group
// sizes) of the rows a block of the source holds: a row group of more is
// cut into slices of rows, so that no column's block of a slice comes near
// format.MaxWriterBlockSize.
var sliceBytes int64 = 4 << 20

// maxSliceRows bounds the rows of a slice.
const maxSliceRows = 1 << 20

// slice is one block of the source: rows [first, first+rows) of row group g.
type slice struct {
	g           int
	first, rows int64
	firstRow    int64 // in the file
}

// source is a Parquet file as a format.Source: each slice of a row group
// read (as Open's File reads it: shapes, INT96, checksums), its Arrow
// batches written through trevniarrow into an in-memory Trevni file of one
// block per column as a column asks for it; the other columns take their
// block from it. The row group's batches are read on in order from slice
// to slice; a slice asked for out of order reads its row group again from
// its start.
type source struct {
	pf      *File
	meta    format.MetaData
	colMeta []format.MetaData
	names   []string
	slices  []slice
	rows    int64
	size    int64

	mu    sync.Mutex
	cache [2]*sliceCols
	tick  uint64
	// The cursor in the row groups' batches.
	curG    int
	pos     int64 // rows of row group curG consumed
	next    func() (arrow.RecordBatch, error, bool)
	stop    func()
	pending arrow.RecordBatch // the rest of a batch cut by a slice's end
}

type sliceCols struct {
	b    int
	cols [][]byte
	used uint64
}

// openSource opens the Parquet file of size bytes that ra reads.
func openSource(ctx context.Context, ra io.ReaderAt, size int64, o *frontdoor.FormatOptions) (frontdoor.FormatSource, error) {
	ro := &ReadOptions{}
	var lo *layout.Options
	if o != nil {
		lo = o.Layout
		if o.Reader != nil && o.Reader.BlockMemory > 0 {
			ro.MaxMemory = o.Reader.BlockMemory
		}
		if o.Reader != nil {
			ro.SkipChecksums = o.Reader.SkipChecksums
		}
	}
	pf, err := Open(io.NewSectionReader(ra, 0, size), ro)
	if err != nil {
		return nil, err
	}
	s := &source{pf: pf, size: size, curG: -1}
	text := pf.AvroSchema()
	// The columns: those of an empty Trevni file of the schema.
	var empty bytes.Buffer
	w, err := trevni.NewWriter(&empty, text, emptyOptions(lo))
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("its schema: %w", err)
	}
	rd, err := format.NewReader(bytes.NewReader(empty.Bytes()), int64(empty.Len()), nil)
	if err != nil {
		pf.Close()
		return nil, err
	}
	s.colMeta = make([]format.MetaData, rd.NumColumns())
	s.names = make([]string, rd.NumColumns())
	for i := range s.colMeta {
		s.colMeta[i] = rd.RawColumnMeta(i).Clone()
		c, err := rd.Column(i)
		if err != nil {
			pf.Close()
			return nil, err
		}
		s.names[i] = c.Name
	}
	s.meta.SetString(layout.MetaAvroSchema, text)
	md := pf.pf.MetaData()
	for g := range pf.pf.NumRowGroups() {
		rg := md.RowGroup(g)
		n := rg.NumRows()
		per := int64(maxSliceRows)
		if b := rg.TotalByteSize(); b > 0 && n > 0 {
			per = max(1, min(per, n*sliceBytes/b))
		}
		for first := int64(0); first < n; first += per {
			k := min(per, n-first)
			s.slices = append(s.slices, slice{g: g, first: first, rows: k, firstRow: s.rows})
			s.rows += k
		}
	}
	// The rows are the row groups': a footer's file row count that
	// disagrees (0 in parquet-testing's repeated_no_annotation.parquet)
	// is not trusted, as fromparquet and DuckDB read the row groups.
	return s, nil
}

// emptyOptions are the options of the in-memory Trevni files: no codec,
// checksum or statistics, one block per column, never spilled, map
// entries in the file's order (as fromparquet writes them, and DuckDB
// reads them).
func emptyOptions(lo *layout.Options) *trevni.WriteOptions {
	o := &trevni.WriteOptions{Codec: trevni.NoCodec, Checksum: trevni.NoChecksum, NoStats: true,
		BlockSize: format.MaxWriterBlockSize, Memory: -1, Workers: 1}
	frontdoor.KeepMapOrder(o)
	if lo != nil {
		o.MaxColumns, o.MaxDepth = lo.MaxColumns, lo.MaxDepth
	}
	return o
}

func (s *source) RowCount() int64                      { return s.rows }
func (s *source) Size() int64                          { return s.size }
func (s *source) Meta() *format.MetaData               { return &s.meta }
func (s *source) NumColumns() int                      { return len(s.colMeta) }
func (s *source) RawColumnMeta(i int) *format.MetaData { return &s.colMeta[i] }

// Blocks returns column i's blocks: one a slice of a row group, whose
// size is the row group's uncompressed bytes shared by its rows and
// columns.
func (s *source) Blocks(i int) ([]format.BlockInfo, error) {
	if i < 0 || i >= len(s.colMeta) {
		return nil, fmt.Errorf("%w: no column %d", format.ErrUsage, i)
	}
	md := s.pf.pf.MetaData()
	cols := int64(max(1, len(s.colMeta)))
	out := make([]format.BlockInfo, len(s.slices))
	for b, sl := range s.slices {
		rg := md.RowGroup(sl.g)
		est := int64(0)
		if n := rg.NumRows(); n > 0 {
			est = rg.TotalByteSize() / n * sl.rows / cols
		}
		out[b] = format.BlockInfo{Rows: sl.rows, FirstRow: sl.firstRow, UncompressedSize: int(min(max(est, 0), format.MaxWriterBlockSize))}
	}
	return out, nil
}

// OpenColumn returns a reader of column i's blocks.
func (s *source) OpenColumn(i int) (format.SourceColumn, error) {
	if i < 0 || i >= len(s.colMeta) {
		return nil, fmt.Errorf("%w: no column %d", format.ErrUsage, i)
	}
	return &sourceColumn{s: s, i: i}, nil
}

// Close releases the batches held and closes the file's reader.
func (s *source) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reset()
	s.cache = [2]*sliceCols{}
	return s.pf.Close()
}

type sourceColumn struct {
	s *source
	i int
}

func (c *sourceColumn) Block(b int, dst []byte) ([]byte, error) {
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	sc, err := s.slice(b)
	if err != nil {
		return dst, err
	}
	return append(dst, sc.cols[c.i]...), nil
}

func (c *sourceColumn) Close() {}

// slice returns slice b's columns, from the cache or made now. s.mu is
// held.
func (s *source) slice(b int) (*sliceCols, error) {
	if b < 0 || b >= len(s.slices) {
		return nil, fmt.Errorf("%w: no block %d", format.ErrUsage, b)
	}
	s.tick++
	for _, sc := range s.cache {
		if sc != nil && sc.b == b {
			sc.used = s.tick
			return sc, nil
		}
	}
	slot := 0
	if s.cache[0] != nil && (s.cache[1] == nil || s.cache[1].used < s.cache[0].used) {
		slot = 1
	}
	s.cache[slot] = nil
	sc, err := s.make(b)
	if err != nil {
		return nil, err
	}
	sc.used = s.tick
	s.cache[slot] = sc
	return sc, nil
}

// errStop ends a row group's reading early.
var errStop = errors.New("stopped")

// reset drops the cursor.
func (s *source) reset() {
	if s.stop != nil {
		s.stop()
	}
	if s.pending != nil {
		s.pending.Release()
	}
	s.next, s.stop, s.pending, s.curG, s.pos = nil, nil, nil, -1, 0
}

// batches returns row group g's batches as an iterator, each retained
// for the caller.
func (s *source) batches(g int) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		err := s.pf.rowGroupBatches(context.Background(), g, func(rec arrow.RecordBatch) error {
			rec.Retain()
			if !yield(rec, nil) {
				return errStop
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			yield(nil, err)
		}
	}
}

// take returns the next batch of the cursor's row group (the rest of a
// cut one first), retained for the caller.
func (s *source) take() (arrow.RecordBatch, error) {
	if p := s.pending; p != nil {
		s.pending = nil
		return p, nil
	}
	rec, err, ok := s.next()
	if !ok {
		return nil, fmt.Errorf("Parquet row group %d: %w: the row group ends after %d rows", s.curG, io.ErrUnexpectedEOF, s.pos)
	}
	return rec, err
}

// make reads slice b's rows into an in-memory Trevni file and returns
// its columns.
func (s *source) make(b int) (*sliceCols, error) {
	sl := s.slices[b]
	if s.curG != sl.g || s.pos > sl.first {
		s.reset()
		s.curG = sl.g
		s.next, s.stop = iter.Pull2(s.batches(sl.g))
	}
	// Rows before the slice (a slice asked for out of order) are passed.
	for s.pos < sl.first {
		rec, err := s.take()
		if err != nil {
			s.reset()
			return nil, err
		}
		n := rec.NumRows()
		if skip := sl.first - s.pos; n > skip {
			s.pending = rec.NewSlice(skip, n)
			n = skip
		}
		rec.Release()
		s.pos += n
	}
	var buf bytes.Buffer
	w, err := trevni.NewWriter(&buf, s.pf.AvroSchema(), emptyOptions(nil))
	if err != nil {
		return nil, err
	}
	defer w.Abort()
	tw, err := trevniarrow.NewWriter(w, s.pf.Schema())
	if err != nil {
		return nil, err
	}
	for left := sl.rows; left > 0; {
		rec, err := s.take()
		if err != nil {
			s.reset()
			return nil, err
		}
		n := rec.NumRows()
		if n > left {
			s.pending = rec.NewSlice(left, n)
			cut := rec.NewSlice(0, left)
			rec.Release()
			rec, n = cut, left
		}
		err = tw.Write(rec)
		rec.Release()
		if err != nil {
			s.reset()
			return nil, fmt.Errorf("Parquet row group %d, rows %d to %d: %w", sl.g, s.pos, s.pos+n-1, err)
		}
		left -= n
		s.pos += n
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	cols, err := ocfsource.Columns(buf.Bytes(), s.names)
	if err != nil {
		return nil, fmt.Errorf("Parquet row group %d, rows %d to %d: %w", sl.g, sl.first, sl.first+sl.rows-1, err)
	}
	return &sliceCols{b: b, cols: cols}, nil
}
