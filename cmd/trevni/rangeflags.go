package main

import (
	"flag"
	"math"
)

// rangeFlags select a range of records: --offset and --limit.
type rangeFlags struct{ offset, limit int64 }

func addRangeFlags(fs *flag.FlagSet) *rangeFlags {
	r := &rangeFlags{}
	fs.Int64Var(&r.offset, "offset", 0, "skip the first `N` records (they are not read: the columns seek)")
	fs.Int64Var(&r.limit, "limit", -1, "write at most `N` records; -1 means all")
	return r
}

// apply positions a reader on the range, through its SeekRow and StopAt.
func (r *rangeFlags) apply(e *env, rows int64, seek func(int64) error, stop func(int64)) error {
	if r.offset < 0 {
		return e.usagef("--offset must not be negative")
	}
	if r.offset > 0 {
		if err := seek(min(r.offset, rows)); err != nil {
			return err
		}
	}
	if r.limit >= 0 {
		end := r.offset + r.limit
		if end < r.offset {
			end = math.MaxInt64 // the sum overflows: to the end
		}
		stop(end)
	}
	return nil
}
