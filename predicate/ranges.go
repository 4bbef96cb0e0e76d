package predicate

import (
	"sort"

	"github.com/trevni-go/trevni/format/stats"
)

// Range is a run of rows: Rows rows starting at First.
type Range struct {
	First, Rows int64
}

// Run is a Range of rows that may satisfy a predicate, as Runs returns
// them. All reports that the statistics prove the predicate TRUE on every
// row of the run, so that a reader may take them without evaluating it
// (see Predicate.AllMatch).
type Run struct {
	Range
	All bool
}

// ColumnStats is one column's statistics as a reader finds them: the first
// row of each block (format.BlockInfo.FirstRow) and the block's statistics,
// in order. The blocks must cover the file's rows without gaps.
type ColumnStats struct {
	FirstRows []int64
	Blocks    []stats.Block
	// Assumed marks statistics that hold only under an assumption the
	// file does not promise (FileStats from a sorted value index): they
	// may leave blocks out, but never prove that a block's rows all
	// match.
	Assumed bool
}

// Ranges returns, in order and without overlap, the runs of rows among the
// first rows rows that may hold a record satisfying the predicate; every
// other row is proven not to. column gives the statistics of a column of
// Columns, or nil where there are none (every block of such a column may
// match). Adjacent runs are joined. It is Runs without telling which runs
// are proven.
func (p *Predicate) Ranges(rows int64, column func(col int) *ColumnStats) []Range {
	var out []Range
	for _, r := range p.Runs(rows, column) {
		if n := len(out); n > 0 && out[n-1].First+out[n-1].Rows == r.First {
			out[n-1].Rows += r.Rows
		} else {
			out = append(out, r.Range)
		}
	}
	return out
}

// Runs returns the runs of rows Ranges returns, each marked All where the
// statistics prove that every one of its rows satisfies the predicate
// (AllMatch); adjacent runs are joined when both or neither are.
//
// The rows are cut wherever a block of one of Columns starts, so that
// within a piece each column has one block, and each piece is tested with
// MayMatch and AllMatch.
func (p *Predicate) Runs(rows int64, column func(col int) *ColumnStats) []Run {
	if rows <= 0 {
		return nil
	}
	cs := make(map[int]*ColumnStats, len(p.cols))
	cuts := []int64{0, rows}
	assumed := false
	for _, c := range p.cols {
		s := column(c)
		if s == nil || len(s.FirstRows) != len(s.Blocks) || len(s.Blocks) == 0 {
			continue
		}
		cs[c] = s
		assumed = assumed || s.Assumed
		for _, f := range s.FirstRows {
			if f > 0 && f < rows {
				cuts = append(cuts, f)
			}
		}
	}
	sort.Slice(cuts, func(i, j int) bool { return cuts[i] < cuts[j] })
	var out []Run
	for i := 0; i+1 < len(cuts); i++ {
		a, b := cuts[i], cuts[i+1]
		if a == b {
			continue
		}
		get := func(trusted bool) StatsFunc {
			return func(col int) (*stats.Block, int64, bool) {
				s := cs[col]
				if s == nil || trusted && s.Assumed {
					return nil, 0, false
				}
				// The last block starting at or before a.
				k := sort.Search(len(s.FirstRows), func(j int) bool { return s.FirstRows[j] > a }) - 1
				if k < 0 || s.FirstRows[k]+s.Blocks[k].Rows < b {
					return nil, 0, false
				}
				return &s.Blocks[k], s.FirstRows[k], true
			}
		}
		o := p.root.prune(&pruneEnv{first: a, rows: b - a, get: get(false)})
		if !o.t {
			continue
		}
		all := !o.f && !o.u
		if all && assumed {
			all = p.AllMatch(a, b-a, get(true))
		}
		if n := len(out); n > 0 && out[n-1].First+out[n-1].Rows == a && out[n-1].All == all {
			out[n-1].Rows += b - a
		} else {
			out = append(out, Run{Range: Range{First: a, Rows: b - a}, All: all})
		}
	}
	return out
}
