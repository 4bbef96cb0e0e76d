// Package rowtasks sizes the ranges of rows (tasks) that the parallel
// readers of Trevni files hand to their workers: the front door's
// writing methods and ReadStructs/ReadBatches (package trevni) and
// csvtable's CSV writer cut tasks the same way. A task ends where a
// block of the largest column read begins, so that few blocks are read
// by two workers, and holds at least MinBlocks blocks of each column and
// MinRows rows.
package rowtasks

import "github.com/trevni-go/trevni/format"

const (
	// MinBlocks is the fewest blocks of each column read a task holds
	// (the blocks where two tasks meet are read by both).
	MinBlocks = 4
	// MinRows is the fewest rows a task holds.
	MinRows = 1024
	// MaxDeepOutput is the most output a task larger than twice its
	// share of the default memory may hold waiting (DeepAhead): however
	// large the blocks, the memory stays bounded.
	MaxDeepOutput = 8 << 20
)

// Shape is what the tasks over some columns of a file are cut from.
type Shape struct {
	// Cuts are the first rows of the blocks of the column whose blocks
	// hold the most bytes: where tasks end. Nil for no columns.
	Cuts []int64
	// InPerRow is the uncompressed bytes of a row in the columns, at
	// least 1.
	InPerRow int64
	// MinRows is the fewest rows a task holds: MinBlocks blocks of each
	// column, and at least the package's MinRows.
	MinRows int64
}

// Measure returns the shape of the columns cols of rd, from their block
// descriptors.
func Measure(rd *format.Reader, cols []int) (Shape, error) {
	var (
		s                 Shape
		most              int64 = -1
		bytes, blockWidth int64
	)
	for _, i := range cols {
		bs, err := rd.Blocks(i)
		if err != nil {
			return Shape{}, err
		}
		var n int64
		for k := range bs {
			n += int64(bs[k].UncompressedSize)
		}
		bytes += n
		if len(bs) > 0 {
			blockWidth += n / int64(len(bs))
		}
		if n > most {
			most, s.Cuts = n, s.Cuts[:0]
			for k := range bs {
				s.Cuts = append(s.Cuts, bs[k].FirstRow)
			}
		}
	}
	s.InPerRow = max(bytes/max(rd.RowCount(), 1), 1)
	s.MinRows = max(MinBlocks*blockWidth/s.InPerRow, MinRows)
	return s, nil
}

// DeepAhead returns how many chunks of chunk bytes, beyond its share, a
// task of rows rows whose output is about perRow bytes a row may hold
// waiting: half its output, at most MaxDeepOutput (so that the next
// worker need not wait for it to be written).
func DeepAhead(rows, perRow, chunk int64) int {
	half := min(rows*perRow/2, MaxDeepOutput)
	return int(min((half+chunk-1)/chunk-1, 1<<20))
}
