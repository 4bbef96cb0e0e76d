package levels

import "io"

// Span is what read options leave of a data set's rows: an offset and a
// count of rows, both counted before the filter, and a limit of records,
// counted after it. Its parts are taken in order.
type Span struct {
	skip  int64 // rows still to pass over
	rows  int64 // rows still to read, -1 for all
	limit int64 // records still wanted, -1 for all
}

// NewSpan returns the span of an offset (0: none), a count of rows (0 or
// less: all) and a limit of records (0 or less: none).
func NewSpan(offset, rows, limit int64) *Span {
	s := &Span{skip: max(offset, 0), rows: -1, limit: -1}
	if rows > 0 {
		s.rows = rows
	}
	if limit > 0 {
		s.limit = limit
	}
	return s
}

// Done says whether nothing more is wanted.
func (s *Span) Done() bool { return s.rows == 0 || s.limit == 0 }

// Limit returns the records still wanted, -1 for all.
func (s *Span) Limit() int64 { return s.limit }

// Part returns the rows [from, end) of the next part, of n rows, to read.
func (s *Span) Part(n int64) (from, end int64) {
	from = min(s.skip, n)
	s.skip -= from
	end = n
	if s.rows >= 0 {
		end = min(n, from+s.rows)
		s.rows -= end - from
	}
	return from, end
}

// Took counts n records written.
func (s *Span) Took(n int64) {
	if s.limit > 0 {
		s.limit = max(s.limit-n, 0)
	}
}

// Matches yields the rows a filter selects, in order, and io.EOF after
// the last (assemble.AvroReader's NextMatch).
type Matches interface {
	NextMatch() (int64, error)
}

// MatchRuns is a Matches that also yields runs of consecutive matches
// (assemble.AvroReader's NextMatches): the rows of a block whose
// statistics prove the filter come as one run, without a call per row.
type MatchRuns interface {
	Matches
	// NextMatches returns the next row selected and how many rows from
	// it on, at least 1 and at most most, are all selected, and moves past
	// them; io.EOF after the last.
	NextMatches(most int64) (first, n int64, err error)
}

// Matches of a filter at most joinGap rows apart are read in one segment,
// the rows between them read and dropped (a seek costs the skipping of
// the values of a block up to the row); farther apart, the readers seek.
// A row group's segments span at most maxSpan rows, which bounds their
// marks.
const (
	joinGap = 4096
	maxSpan = 1 << 21
)

// Selector yields the segments of a part's row groups.
type Selector struct {
	next, end int64     // the rows [next, end) not yet yielded
	limit     int64     // records still wanted, -1 for all
	filter    Matches   // the filter's matches, nil without one
	runs      MatchRuns // filter, when it yields runs
	pending   int64     // the first of matches read and not yet yielded, -1 if none
	pendingN  int64     // how many rows from pending on
}

// NewSelector returns the selector of rows [from, end) of a part, at most
// limit of them (-1: all), those filter yields if it is not nil (it
// yields rows from from on, and none from end on).
func NewSelector(from, end, limit int64, filter Matches) *Selector {
	s := &Selector{next: from, end: end, limit: limit, filter: filter, pending: -1}
	s.runs, _ = filter.(MatchRuns)
	return s
}

// nextRun returns the next run of at most most matches (at least 1).
func (s *Selector) nextRun(most int64) (int64, int64, error) {
	if s.runs != nil {
		return s.runs.NextMatches(most)
	}
	r, err := s.filter.NextMatch()
	return r, 1, err
}

// Group returns the segments of the next row group, of at most most rows
// kept, and the number kept; none at the end.
func (s *Selector) Group(most int64) ([]Segment, int64, error) {
	if s.limit >= 0 {
		most = min(most, s.limit)
	}
	if s.filter == nil {
		n := min(most, s.end-s.next)
		if n <= 0 {
			return nil, 0, nil
		}
		seg := Segment{First: s.next, N: n}
		s.next += n
		if s.limit > 0 {
			s.limit -= n
		}
		return []Segment{seg}, n, nil
	}
	var (
		segs      []Segment
		rows, spn int64
	)
	for rows < most && spn < maxSpan {
		row, n := s.pending, s.pendingN
		if row < 0 {
			r, k, err := s.nextRun(most - rows)
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, rows, err
			}
			row, n = r, k
		}
		s.pending = -1
		// Take what fits the group: the rest of the run waits for the
		// next.
		take := min(n, most-rows, max(1, maxSpan-spn))
		if take < n {
			s.pending, s.pendingN = row+take, n-take
		}
		if k := len(segs) - 1; k >= 0 && row-(segs[k].First+segs[k].N) <= joinGap && row-segs[k].First < maxSpan {
			seg := &segs[k]
			gap := row - (seg.First + seg.N)
			if gap > 0 && seg.Keep == nil {
				seg.Keep = make([]bool, seg.N, seg.N+gap+take)
				fill(seg.Keep, true)
			}
			if seg.Keep != nil {
				seg.Keep = append(seg.Keep, make([]bool, gap)...)
				seg.Keep = append(seg.Keep, make([]bool, take)...)
				fill(seg.Keep[len(seg.Keep)-int(take):], true)
			}
			seg.N += gap + take
			spn += gap + take
		} else {
			segs = append(segs, Segment{First: row, N: take})
			spn += take
		}
		rows += take
	}
	if s.limit > 0 {
		s.limit -= rows
	}
	return segs, rows, nil
}
