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
// sorted as WriteBinary sorts them), and the file is then the one
// WriteBinary makes, byte for byte. Write and WriteBinary may be used
// between batches, with the row checks on again.
func (aw *AvroWriter) Columnar() (*layout.Node, *format.Writer) { return aw.root, aw.w }
