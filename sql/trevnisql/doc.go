// Package trevnisql makes Trevni data sets tables of DuckDB, through
// DuckDB's Go bindings (github.com/duckdb/duckdb-go/v2, which needs cgo:
// this package lives in a module of its own so that the core library and
// the default trevni binary stay pure Go).
//
// Open returns a DuckDB database in which
//
//   - the table function trevni_scan('SOURCE') reads any data set
//     trevni.Open opens (a file, a glob, a directory, a URL; Trevni 2,
//     Trevni 1 and CLMN parts), and trevni_scan('SOURCE', filter :=
//     'EXPR') only the records satisfying a filter of package predicate,
//     skipping the blocks whose statistics rule a match out;
//   - a table named by a quoted string ending in .trv, .trv1 or .clmn (a
//     path or a glob: FROM 'orders/*.trv') is read the same way, by a
//     replacement scan;
//   - Options.Tables names data sets as views (NAME=SOURCE).
//
// Records become rows through the Arrow mapping of package trevniarrow,
// which DuckDB's Arrow import turns into its types: records are STRUCTs,
// arrays LISTs, maps MAPs, unions UNIONs (["null", T] a nullable T),
// enums VARCHARs, and the date, time, timestamp and decimal logical types
// DATE, TIME, TIMESTAMP (WITH TIME ZONE for the UTC ones) and DECIMAL.
// Two gaps of DuckDB 1.5.6's Arrow import are worked around (see
// duckType): it reads no dense unions, and fails on dictionaries inside
// lists.
//
// Only the columns a query names are read: the table function asks for
// projection pushdown, and the Trevni reader is given the selected
// fields. DuckDB's C API gives a table function no filters (duckdb.h of
// DuckDB 1.5.6 has no table filter accessor), so a query's WHERE is
// applied by DuckDB above the scan; the filter parameter is the way to
// skip blocks. The scan runs on several threads: each takes a part of the
// data set, or a range of rows of a Trevni 2 part, at a time. When every
// column read is a top-level primitive field of Trevni 2 parts, values go
// from the Trevni columns straight into DuckDB's vectors; other scans go
// through Arrow batches of 2048 rows, which DuckDB imports.
package trevnisql
