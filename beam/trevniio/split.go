package trevniio

import (
	"context"
	"errors"
	"math"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/frontdoor"
)

// How Read sizes the restrictions of a file (SplitRows 0).
//
// Every restriction fetches, besides the blocks of its rows, the file's
// header and the block tables of its columns, and the block each column
// has at its first row, which the restriction before it fetches too: its
// fixed cost, which the file's layout gives. A restriction of
// splitFactor times its fixed cost fetches at most 1/splitFactor more
// than its rows' bytes, and a runner's split is refused where its residual
// would be smaller, so initial and dynamic splits together fetch at most
// 2/splitFactor (10%) more than the file.
//
// Trevni 2 and Trevni 1 files are cut so, at the starts of blocks of their
// largest column, where their block tables place them. A CLMN file's
// columns are each one zlib stream, which a reader of rows from the middle
// decompresses from its start: its blocks are those its reader cuts the
// streams into (their stored bytes shared by rows), and each restriction
// costs the streams up to its end, so a CLMN file is cut into at most
// maxStreamSplits restrictions (a local file; one read by URL is one
// restriction, which is never split while it runs).
const (
	splitFactor = 20
	// MinSplitBytes is the least bytes of file an initial restriction
	// covers when ReadOptions.SplitBytes is 0.
	MinSplitBytes = 1 << 20
	// tableWindow is what a read of a block table fetches over a store
	// or HTTP (the front door's window outside the hinted blocks), and
	// a restriction reads each table twice: for its layout, and for its
	// reader.
	tableWindow = 16 << 10
	// maxStreamSplits bounds the restrictions of a local CLMN file: each
	// decompresses its columns from their start, so k of them decompress
	// (k+1)/2 times the file.
	maxStreamSplits = 4
)

// colLayout is where one column's blocks lie.
type colLayout struct {
	first  []int64 // the first row of each block
	offset []int64 // the offset of each block's stored bytes
	end    int64   // the end of the column's last block
	max    int64   // the largest block's stored bytes, with its checksum
}

// block returns the index of the block that holds row, or len(blocks) at
// or past the end.
func (c *colLayout) block(row int64) int {
	return sort.Search(len(c.first), func(i int) bool { return c.first[i] > row }) - 1
}

// offsetOf returns the offset of the block holding row, or the end of the
// column at or past its last row.
func (c *colLayout) offsetOf(row, rows int64) int64 {
	if row >= rows {
		return c.end
	}
	return c.offset[max(c.block(row), 0)]
}

// fileLayout is where a file's columns' blocks lie: what Read sizes its
// restrictions and places its splits by.
type fileLayout struct {
	rows   int64
	cols   []colLayout // the columns holding blocks
	big    int         // the column of the most bytes: splits fall on its blocks' starts
	fixed  int64       // the bytes a restriction fetches besides its rows' blocks
	stream bool        // a CLMN file: a restriction reads each column from its start
	total  int64       // the bytes of all the columns' blocks
}

// layoutOf returns the layout of the file rd reads, a Trevni 2 file or
// (f, a Trevni 1 or CLMN file) the Trevni 2 view of its columns, reading
// the block tables of all its columns.
func layoutOf(rd *format.Reader, f trevni.Format) (*fileLayout, error) {
	l := &fileLayout{rows: rd.RowCount(), stream: f == trevni.CLMN}
	// What a block takes past its stored bytes: Trevni 2's checksum.
	var sum int64
	if f == trevni.Trevni2 {
		sum = 4
	}
	header := rd.Size()
	var most int64 = -1
	for i := range rd.NumColumns() {
		blocks, err := rd.Blocks(i)
		if err != nil {
			return nil, err
		}
		if f == trevni.Trevni2 {
			header = min(header, rd.ColumnStart(i))
			_, n := rd.ColumnRange(i)
			l.fixed += 2 * min(tableWindow, n)
		}
		if len(blocks) == 0 {
			continue
		}
		c := colLayout{first: make([]int64, len(blocks)), offset: make([]int64, len(blocks))}
		at := blocks[0].Offset
		for k, b := range blocks {
			c.first[k], c.offset[k] = b.FirstRow, b.Offset
			if l.stream {
				// One stream: the blocks lie one after the other in it,
				// their stored bytes its share of the stream.
				c.offset[k] = at
				at += int64(b.CompressedSize)
			}
			c.max = max(c.max, int64(b.CompressedSize)+sum)
			if f != trevni.Trevni2 {
				header = min(header, c.offset[k])
			}
		}
		last := blocks[len(blocks)-1]
		c.end = c.offset[len(blocks)-1] + int64(last.CompressedSize) + sum
		if bytes := c.end - c.offset[0]; bytes > most {
			most, l.big = bytes, len(l.cols)
		}
		l.total += c.end - c.offset[0]
		l.fixed += c.max
		l.cols = append(l.cols, c)
	}
	l.fixed += header
	return l, nil
}

// bytes returns about the bytes of the blocks that hold the rows [a, b):
// in each column, from the block holding a to the block holding b.
func (l *fileLayout) bytes(a, b int64) int64 {
	var n int64
	for i := range l.cols {
		c := &l.cols[i]
		n += c.offsetOf(b, l.rows) - c.offsetOf(a, l.rows)
	}
	return n
}

// splitBytes returns the bytes an initial restriction covers: want, or
// when 0, splitFactor times the fixed cost of a restriction and at least
// MinSplitBytes.
func (l *fileLayout) splitBytes(want int64) int64 {
	if want <= 0 {
		want = max(MinSplitBytes, splitFactor*l.fixed)
	}
	if l.stream {
		// At most maxStreamSplits restrictions, each read from the
		// streams' start.
		want = max(want, l.total/maxStreamSplits+1)
	}
	return want
}

// split cuts the rows [a, b) into restrictions of about size bytes each,
// cut where a block of the largest column starts (so that the largest
// column's blocks are fetched once); the last is at least half of size.
func (l *fileLayout) split(a, b, size int64) []offsetrange.Restriction {
	var out []offsetrange.Restriction
	if len(l.cols) == 0 || a >= b {
		return []offsetrange.Restriction{{Start: a, End: b}}
	}
	starts := l.cols[l.big].first
	from := a
	for _, x := range starts[sort.Search(len(starts), func(i int) bool { return starts[i] > a }):] {
		if x >= b {
			break
		}
		if l.bytes(from, x) >= size && l.bytes(x, b) >= size/2 {
			out = append(out, offsetrange.Restriction{Start: from, End: x})
			from = x
		}
	}
	return append(out, offsetrange.Restriction{Start: from, End: b})
}

// fetchedBefore returns the least row a split may give to a residual when
// the reader of a restriction has reached row: the first row whose block,
// in every column, starts where the reader has fetched nothing yet, as
// fetched (frontdoor.FetchedEnd of the reader) says for each column's bytes, and past
// the block being read and the next one, which the reader reads ahead. A
// residual starting sooner would fetch again what the primary fetched and
// no longer reads.
func (l *fileLayout) fetchedBefore(row int64, fetched func(off, end int64) int64) int64 {
	least := row
	for i := range l.cols {
		c := &l.cols[i]
		reach := fetched(c.offset[0], c.end)
		if k := c.block(row); k >= 0 && k < len(c.offset) {
			reach = max(reach, c.offset[k]+2*c.max)
		}
		j := sort.Search(len(c.offset), func(j int) bool { return c.offset[j] >= reach })
		if j == len(c.offset) {
			return l.rows
		}
		least = max(least, c.first[j])
	}
	return least
}

// alignUp returns the first row at or past row where a block of the
// largest column starts, or the file's end.
func (l *fileLayout) alignUp(row int64) int64 {
	if len(l.cols) == 0 {
		return row
	}
	starts := l.cols[l.big].first
	i := sort.Search(len(starts), func(i int) bool { return starts[i] >= row })
	if i == len(starts) {
		return l.rows
	}
	return starts[i]
}

// rowTracker is the restriction tracker of Read: an offset range of rows
// (as offsetrange.Tracker). It refuses splits until ProcessElement has
// opened the file; then a local file's restriction splits anywhere, a
// remote Trevni 2 or Trevni 1 file's only where the reader has fetched
// nothing yet (frontdoor.FetchedEnd), at the start of a block of the file's
// largest column, leaving residuals no smaller than minResid bytes
// (splits it cannot so place it refuses), and a remote CLMN file's
// nowhere.
type rowTracker struct {
	rest     offsetrange.Restriction
	claimed  int64
	stopped  bool
	err      error
	placed   bool        // ProcessElement has opened the file
	layout   *fileLayout // of a remote file: splits are placed by it
	fetched  func(off, end int64) int64
	minResid int64 // bytes
}

func newRowTracker(rest offsetrange.Restriction) *rowTracker {
	return &rowTracker{rest: rest, claimed: rest.Start - 1}
}

// place lets the tracker split, following the file's layout and what its
// reader has fetched (nil: split anywhere, as for a local file), with
// residuals of at least minResid bytes.
func (t *rowTracker) place(l *fileLayout, fetched func(off, end int64) int64, minResid int64) {
	t.layout, t.fetched, t.minResid, t.placed = l, fetched, minResid, true
}

// TryClaim claims the row pos (an int64), as offsetrange.Tracker does.
func (t *rowTracker) TryClaim(p any) bool {
	if t.stopped {
		t.err = errors.New("trevniio: a row claimed after the restriction's tracker returned false")
		return false
	}
	pos := p.(int64)
	if pos < t.rest.Start || pos <= t.claimed {
		t.stopped = true
		t.err = errors.New("trevniio: a row claimed out of order or outside the restriction")
		return false
	}
	t.claimed = pos
	if pos >= t.rest.End {
		t.stopped = true
		return false
	}
	return true
}

// GetError returns the error of a claim out of order.
func (t *rowTracker) GetError() error { return t.err }

// TrySplit splits off the rows past a fraction of those left, moved to
// where the reader has fetched nothing once the file's layout is known
// (see rowTracker); it returns no residual when no such split is left.
func (t *rowTracker) TrySplit(fraction float64) (primary, residual any, err error) {
	if t.stopped || t.IsDone() {
		return t.rest, nil, nil
	}
	fraction = min(max(fraction, 0), 1)
	at := t.claimed + int64(math.Max(math.Ceil(fraction*float64(t.rest.End-t.claimed)), 1))
	if !t.placed {
		// The file is being opened: where its reader will fetch is not
		// known yet.
		return t.rest, nil, nil
	}
	if t.layout != nil {
		if t.layout.stream {
			// A CLMN file's residual would fetch its streams again
			// from their start.
			return t.rest, nil, nil
		}
		at = max(at, t.layout.fetchedBefore(t.claimed+1, t.fetched))
		at = t.layout.alignUp(at)
		if at < t.rest.End && t.layout.bytes(at, t.rest.End) < t.minResid {
			return t.rest, nil, nil
		}
	}
	if at >= t.rest.End {
		return t.rest, nil, nil
	}
	residual = offsetrange.Restriction{Start: at, End: t.rest.End}
	t.rest.End = at
	return t.rest, residual, nil
}

// GetProgress returns the rows claimed and the rows left.
func (t *rowTracker) GetProgress() (done, remaining float64) {
	return float64(t.claimed + 1 - t.rest.Start), float64(t.rest.End - (t.claimed + 1))
}

// IsDone reports whether every row of the restriction was claimed.
func (t *rowTracker) IsDone() bool {
	return t.err == nil && (t.claimed+1 >= t.rest.End || t.rest.Start >= t.rest.End)
}

// GetRestriction returns the restriction, as split so far.
func (t *rowTracker) GetRestriction() any { return t.rest }

// IsBounded reports that a restriction of rows is bounded.
func (t *rowTracker) IsBounded() bool { return true }

// openLayout opens the part of ds (a data set of one file) and returns its
// layout.
func openLayout(ctx context.Context, ds *trevni.Dataset) (*fileLayout, error) {
	p := ds.Parts()[0]
	f, err := p.Open(ctx)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rd, err := frontdoor.AsTrevni(ctx, f)
	if err != nil {
		return nil, err
	}
	return layoutOf(rd, p.Format())
}
