package trevni

import "fmt"

// span walks the parts of a data set for the rows and records ReadOptions
// selects: Offset rows passed over, Rows rows read at most, Limit records
// returned at most. Every reader of the front door walks its parts so.
type span struct {
	offset    int64 // rows still to pass over
	rowsLeft  int64 // rows of the range still to read; negative for no end
	remaining int64 // records still to return; negative for no limit
}

// newSpan returns the span of o (nil for everything).
func newSpan(o *ReadOptions) (span, error) {
	s := span{rowsLeft: -1, remaining: -1}
	if o == nil {
		return s, nil
	}
	if o.Offset < 0 {
		return s, fmt.Errorf("trevni: negative offset %d", o.Offset)
	}
	s.offset = o.Offset
	if o.Rows > 0 {
		s.rowsLeft = o.Rows
	}
	if o.Limit > 0 {
		s.remaining = o.Limit
	}
	return s, nil
}

// done reports whether nothing is left to read.
func (s *span) done() bool { return s.remaining == 0 || s.rowsLeft == 0 }

// next returns the rows [from, to) to read of a part of rows rows, and
// false when the part is passed over whole (an empty part is not: its
// reader tells the records' schema).
func (s *span) next(rows int64) (from, to int64, read bool) {
	if s.offset >= rows && rows > 0 {
		s.offset -= rows
		return 0, 0, false
	}
	from, to = min(s.offset, rows), rows
	if s.rowsLeft >= 0 {
		to = min(to, from+s.rowsLeft)
		s.rowsLeft -= to - from
	}
	s.offset -= from
	return from, to, true
}

// took counts the records a part returned against the limit.
func (s *span) took(n int64) {
	if s.remaining > 0 {
		s.remaining = max(s.remaining-n, 0)
	}
}
