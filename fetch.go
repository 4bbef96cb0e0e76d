package trevni

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/predicate"
	"github.com/trevni-go/trevni/remote"
)

// Over HTTP a part read for records fetches its header through a
// remote.HeaderReader (windows that grow from a few KiB as the header goes
// on), then only the blocks a reader needs: the blocks, in each column it
// reads, that hold the rows of its range which the filter's statistics
// leave, told to a remote.Coalescer before the first record is read, so
// that they come in a few large range requests. What is read outside them
// (a column's block table) comes in windows of rangeWindow bytes.

// rangeWindow is what a read outside the hinted ranges fetches.
const rangeWindow = 16 << 10

// fullWindow is what a read fetches from a part opened with Part.Open over
// HTTP, where nothing is hinted.
const fullWindow = 64 << 10

// switchReader reads through header until the header is read, then
// through rest.
type switchReader struct {
	header     *remote.HeaderReader
	rest       *remote.Coalescer
	pastHeader atomic.Bool
}

func (r *switchReader) ReadAt(p []byte, off int64) (int, error) {
	if r.pastHeader.Load() {
		return r.rest.ReadAt(p, off)
	}
	return r.header.ReadAt(p, off)
}

// candidates returns the runs of rows from first to end-1 that may hold a
// record satisfying p, by the file's block statistics; all of them without
// a filter.
func candidates(rd *format.Reader, p *predicate.Predicate, first, end int64) []predicate.Range {
	if first >= end {
		return nil
	}
	if p == nil {
		return []predicate.Range{{First: first, Rows: end - first}}
	}
	var out []predicate.Range
	for _, r := range p.FileRanges(rd) {
		a, b := max(r.First, first), min(r.First+r.Rows, end)
		if a < b {
			out = append(out, predicate.Range{First: a, Rows: b - a})
		}
	}
	return out
}

// hintRows tells c the byte ranges of the blocks of each of the columns
// that hold the rows of ranges (in order, not overlapping).
func hintRows(rd *format.Reader, c *remote.Coalescer, cols []int, ranges []predicate.Range) error {
	cols = slices.Clone(cols)
	slices.Sort(cols)
	for _, i := range slices.Compact(cols) {
		blocks, err := rd.Blocks(i)
		if err != nil {
			return err
		}
		// The runs of blocks that hold rows of the ranges, joined where
		// they touch.
		var runs [][2]int
		for _, r := range ranges {
			a := sort.Search(len(blocks), func(k int) bool { return blocks[k].FirstRow+blocks[k].Rows > r.First })
			b := sort.Search(len(blocks), func(k int) bool { return blocks[k].FirstRow >= r.First+r.Rows })
			if a >= b {
				continue
			}
			if n := len(runs); n > 0 && runs[n-1][1] >= a {
				runs[n-1][1] = max(runs[n-1][1], b)
				continue
			}
			runs = append(runs, [2]int{a, b})
		}
		for _, run := range runs {
			first, last := &blocks[run[0]], &blocks[run[1]-1]
			const checksum = 4 // at most, after each block's stored bytes
			c.Prefetch(first.Offset, last.Offset+int64(last.CompressedSize)+checksum-first.Offset)
		}
	}
	return nil
}

// hint tells c what a reader of the columns cols, with the filter pred
// (nil for none), will read of the rows [from, to) when it returns at most
// limit records (negative for no limit): without a filter, the blocks of
// the first limit rows; with one and no limit, the blocks the statistics
// leave in every column read; with both, only the filter's columns' blocks
// are hinted, since where the matches lie is not known, and the blocks of
// the records returned are fetched as they are reached.
func hint(rd *format.Reader, c *remote.Coalescer, cols []int, pred *predicate.Predicate, from, to, limit int64) error {
	switch {
	case pred == nil:
		if limit >= 0 {
			to = min(to, from+limit)
		}
	case limit >= 0:
		cols = pred.Columns()
	default:
		cols = append(slices.Clone(cols), pred.Columns()...)
	}
	return hintRows(rd, c, cols, candidates(rd, pred, from, to))
}

// candidateRows returns the runs of the part's rows that may hold a
// record satisfying the filter where (see frontdoor.CandidateRows).
func (p *Part) candidateRows(ctx context.Context, where string) ([]frontdoor.RowRange, error) {
	all := []frontdoor.RowRange{{First: 0, Rows: p.rows}}
	if where == "" || p.format != Trevni2 || p.rows == 0 {
		return all, nil
	}
	f, err := p.openFor(ctx, openHeaderOnly)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pred, err := p.ds.compileFilter(f.trevni, where)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name(), err)
	}
	var out []frontdoor.RowRange
	for _, r := range candidates(f.trevni, pred, 0, p.rows) {
		out = append(out, frontdoor.RowRange(r))
	}
	return out, nil
}

// compileFilter compiles the filter where for the part rd as its records
// are read: against the reader schema when the data set has one (see
// assemble.Options.Filter), else against the schema rd stores.
func (ds *Dataset) compileFilter(rd *format.Reader, where string) (*predicate.Predicate, error) {
	return assemble.CompileFilter(rd, where, &assemble.Options{ReaderSchema: ds.opts.ReaderSchema, Layout: ds.opts.layout()})
}
