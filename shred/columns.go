package shred

import (
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema/layout"
)

// Columnar returns the writer's layout and its column writer, for a
// caller whose records come as columns (DuckDB's COPY TO hands over
// vectors): it writes batches of rows a column at a time
// (format.Writer.StartRows, with the row checks off), following the
// layout, each column's lengths and values those WriteBinary would write
// for the same records in the same order (a union's branch lengths in
// every branch column, an array's length in its column, a map's keys
// in the order OrderMapEntries gives), and the file is then the one
// WriteBinary makes, byte for byte. Write and WriteBinary may be used
// between batches, with the row checks on again.
func (aw *AvroWriter) Columnar() (*layout.Node, *format.Writer) { return aw.root, aw.w }

// OrderMapEntries returns the entries of one value of a map, for a caller
// of Columnar, as WriteBinary writes those of a map given in Avro binary:
// the map's length is the number returned, then come their keys in the
// map's key column and their values, in that order. They are sorted by
// the bytes of their keys (stably), or, with Options.KeepMapOrder, kept
// in the order given; of equal keys only the last is kept, either way.
// The entries are reordered in place and the result shares their array;
// nothing is allocated once the writer's scratch lists have grown.
func (aw *AvroWriter) OrderMapEntries(entries []MapEntry) []MapEntry {
	return aw.orderMapEntries(entries, false)
}
