package predicate

import (
	"fmt"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/format/stats"
)

// FileStatsOptions tunes FileStats.
type FileStatsOptions struct {
	// SortedValueIndex lets columns without statistics but with Trevni's
	// value index (trevni.values: the first value of every block, as Java
	// writes it for sorted columns) be judged by it, assuming that such a
	// column is sorted (see stats.FromFirstValues).
	SortedValueIndex bool
}

// FileStats reads the statistics of column col of a Trevni file: the
// stats.blocks metadata checked against the column's block descriptors
// (format.Reader.BlockStats), or, as opts allow, the value index. It returns nil, meaning "no statistics, read everything",
// when there are none or they do not agree with the file, with an error
// that says why in the latter case (a reader may report it and go on).
// The result suits Ranges, as FileRanges uses it.
func FileStats(rd *format.Reader, col int, opts *FileStatsOptions) (*ColumnStats, error) {
	meta, err := rd.Column(col)
	if err != nil {
		return nil, fmt.Errorf("predicate: %w", err)
	}
	blocks, err := rd.Blocks(col)
	if err != nil {
		return nil, err
	}
	cs := &ColumnStats{FirstRows: make([]int64, len(blocks))}
	for i := range blocks {
		cs.FirstRows[i] = blocks[i].FirstRow
	}
	c, err := rd.BlockStats(col)
	if err != nil {
		return nil, err
	}
	if c == nil {
		if opts == nil || !opts.SortedValueIndex || !meta.Values || len(blocks) == 0 {
			return nil, nil
		}
		rows := make([]int64, len(blocks))
		firsts := make([]any, len(blocks))
		for i := range blocks {
			rows[i], firsts[i] = blocks[i].Rows, blocks[i].FirstValue
		}
		if cs.Blocks = stats.FromFirstValues(stats.Type(meta.Type), rows, firsts); cs.Blocks == nil {
			return nil, nil
		}
		cs.Assumed = true // sorted is assumed, not promised
		return cs, nil
	}
	cs.Blocks = c.Blocks
	return cs, nil
}

// FileRanges returns the runs of rd's rows that may hold a record
// satisfying p, judged by the block statistics FileStats reads (without
// the value index): a column whose statistics are missing or unusable
// lets every block match.
func (p *Predicate) FileRanges(rd *format.Reader) []Range {
	return p.Ranges(rd.RowCount(), p.fileStats(rd))
}

// FileRuns is FileRanges with the runs the statistics prove marked (see
// Runs): a column whose statistics are missing or unusable proves none.
func (p *Predicate) FileRuns(rd *format.Reader) []Run {
	return p.Runs(rd.RowCount(), p.fileStats(rd))
}

func (p *Predicate) fileStats(rd *format.Reader) func(col int) *ColumnStats {
	return func(col int) *ColumnStats {
		cs, _ := FileStats(rd, col, nil)
		return cs
	}
}
