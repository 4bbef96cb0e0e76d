// Package levels is the columnar read layer: it reads the Trevni columns
// beneath one leaf of a nested schema as runs of Dremel definition
// levels, repetition levels and values, block by block, for the rows of
// row ranges and a filter's selection, with no records assembled.
//
// A [Plan] maps the records of a file's layout, projected and read as a
// reader schema reads them, to the leaves every columnar sink fills, in
// one order (that of the Parquet schema of the same records), each with
// its place in the tree of the reader's schema ([Node]: its kind, its
// definition and repetition levels); a sink never walks a layout itself.
// See Plan for the contract a sink relies on.
//
// A [Leaf] says which columns a leaf's levels come from ([Step]s: the
// lengths of arrays and maps, the branch columns of unions, optional
// nodes always there) and how its values are read (the column, enum
// symbols, fixed sizes, decimals of a fixed width, UUIDs from their
// text). A [Reader] reads a leaf's columns into a [Run] and hands each
// run to a sink: Parquet column chunks are written from them
// (trevniparquet's Write), as Arrow arrays can be built from them.
// Where a leaf's columns are those of a format.Source that hands them
// out in its own encoding (package trevni1's top-level fields, arrays and
// ["null", T] unions of one-bit levels; every column of package clmn),
// the reader takes their lengths and values from it, with no Trevni 2
// block made and decoded between (the direct route, see direct.go).
// A reader schema is resolved as Avro's resolution does: several
// branches of a file's union read as one of the reader's are the [Alt]s
// of the leaves beneath (each branch's columns read where the file takes
// it), and a field the file lacks, of a default that holds levels of its
// own (an array, a map, a union of several branches), a [Default] step
// of the levels and values the default gives every row.
//
// [ScanReport] is what a read by leaf readers (and a filter) cost, as
// assemble reports its reads.
//
// A [Selector] cuts a part's rows into the [Segment]s of row groups:
// every row of a range, or the matches of a filter (assemble's, with its
// block pruning), the rows between near matches read and dropped.
//
// A leaf's levels are those the Parquet mapping of its schema gives: a
// record adds no level, an optional node a definition level, an array or
// map a definition and a repetition level, a union of null and one type
// a definition level, a union of several branches a definition level
// for the union when it may be null and one for the branch.
package levels
