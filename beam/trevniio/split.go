package trevniio

import (
	"context"
	"errors"
	"math"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/remote"
)

// How Read sizes the restrictions of a Trevni 2 file (SplitRows 0).
//
// Every restriction fetches, besides the blocks of its rows, the file's
// header and the block tables of its columns, and the block each column
// has at its first row, which the restriction before it fetches too: its
// fixed cost, which the file's layout gives. A restriction of
// splitFactor times its fixed cost fetches at most 1/splitFactor more
// than its rows' bytes, and a runner's split is refused where its residual
// would be smaller, so initial and dynamic splits together fetch at most
// 2/splitFactor (10%) more than the file.
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

// fileLayout is where a Trevni 2 file's columns' blocks lie: what Read
// sizes its restrictions and places its splits by.
type fileLayout struct {
	rows  int64
	cols  []colLayout // the columns holding blocks
	big   int         // the column of the most bytes: splits fall on its blocks' starts
	fixed int64       // the bytes a restriction fetches besides its rows' blocks
}

// layoutOf returns the layout of the file rd reads (a Trevni 2 file),
// reading the block tables of all its columns.
func layoutOf(rd *format.Reader) (*fileLayout, error) {
	l := &fileLayout{rows: rd.RowCount()}
	header := rd.Size()
	var most int64 = -1
	for i := range rd.NumColumns() {
		header = min(header, rd.ColumnStart(i))
		blocks, err := rd.Blocks(i)
		if err != nil {
			return nil, err
		}
		_, n := rd.ColumnRange(i)
		l.fixed += 2 * min(tableWindow, n)
		if len(blocks) == 0 {
			continue
		}
		c := colLayout{first: make([]int64, len(blocks)), offset: make([]int64, len(blocks))}
		for k, b := range blocks {
			c.first[k], c.offset[k] = b.FirstRow, b.Offset
			c.max = max(c.max, int64(b.CompressedSize)+4)
		}
		last := blocks[len(blocks)-1]
		c.end = last.Offset + int64(last.CompressedSize) + 4
		if bytes := c.end - c.offset[0]; bytes > most {
			most, l.big = bytes, len(l.cols)
		}
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
	if want > 0 {
		return want
	}
	return max(MinSplitBytes, splitFactor*l.fixed)
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
// in every column, starts past what the reader may have fetched already.
// Over a store or HTTP the reader fetches ahead within its hinted blocks
// (remote.Coalescer, its budget shared between the columns read: at most
// half a share past the block being read, and the next block, which is
// read ahead), so a residual starting sooner would fetch again what the
// primary fetched and no longer reads.
func (l *fileLayout) fetchedBefore(row int64) int64 {
	if len(l.cols) == 0 {
		return row
	}
	ahead := remote.DefaultBudget / int64(2*len(l.cols))
	least := row
	for i := range l.cols {
		c := &l.cols[i]
		k := c.block(row)
		if k < 0 || k >= len(c.offset) {
			continue
		}
		reach := c.offset[k] + 2*c.max + ahead
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
// opened the file; then a local file's restriction splits anywhere, and a
// remote Trevni 2 file's only where the reader has fetched nothing yet,
// at the start of a block of the file's largest column, leaving residuals
// no smaller than minResid bytes (splits it cannot so place it refuses).
type rowTracker struct {
	rest     offsetrange.Restriction
	claimed  int64
	stopped  bool
	err      error
	placed   bool        // ProcessElement has opened the file
	layout   *fileLayout // of a remote Trevni 2 file: splits are placed by it
	minResid int64       // bytes
}

func newRowTracker(rest offsetrange.Restriction) *rowTracker {
	return &rowTracker{rest: rest, claimed: rest.Start - 1}
}

// place lets the tracker split, following the file's layout (nil: split
// anywhere, as for a local file), with residuals of at least minResid
// bytes.
func (t *rowTracker) place(l *fileLayout, minResid int64) {
	t.layout, t.minResid, t.placed = l, minResid, true
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
		at = max(at, t.layout.fetchedBefore(t.claimed+1))
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
// layout, or nil when it is not a Trevni 2 file.
func openLayout(ctx context.Context, ds *trevni.Dataset) (*fileLayout, error) {
	p := ds.Parts()[0]
	if p.Format() != trevni.Trevni2 {
		return nil, nil
	}
	f, err := p.Open(ctx)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return layoutOf(f.Trevni())
}
