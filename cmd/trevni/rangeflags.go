package main

import "flag"

// rangeFlags select a range of records: --offset and --limit.
type rangeFlags struct{ offset, limit int64 }

func addRangeFlags(fs *flag.FlagSet) *rangeFlags {
	r := &rangeFlags{}
	fs.Int64Var(&r.offset, "offset", 0, "skip the first `N` records (they are not read: the columns seek)")
	fs.Int64Var(&r.limit, "limit", -1, "write at most `N` records; -1 means all")
	return r
}
