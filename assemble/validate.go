package assemble

import (
	"context"
	"fmt"
	"io"
	"math"
)

// Validate checks every remaining record (every record of the file, on a
// new reader; up to StopAt's row if set) as Read would read it, without
// building it: strings and map keys are UTF-8, enum ordinals name symbols,
// unions take exactly one branch, fixed values have their size, and arrays
// and maps have the elements their lengths claim. It returns nil if all
// are good, or the first bad record's *schema.Error. The reader is then
// at the end (or at the bad record), as after reading.
//
// Its time is linear in the bytes stored, not in the records or elements
// claimed: records that read no column (such as empty records, or nulls)
// are all alike, so one is checked for all; and so are the items of an
// array or the values of a map that read no column. Unlike the read paths
// it sets no limit on the elements of a record, as it keeps none of them.
// It checks ctx between records and returns its error, wrapped, if ctx
// ends first.
//
// Validate checks the records' values; the Trevni structure beneath them
// (block checksums, blocks holding exactly their rows) is format.Reader's
// Verify's job.
func (ar *AvroReader) Validate(ctx context.Context) error {
	limit := ar.maxElems
	ar.maxElems = math.MaxInt
	defer func() { ar.maxElems = limit }()
	if ar.root.free() {
		if ar.row < ar.end {
			if _, _, err := ar.record(nil, toCheck); err != nil {
				return err
			}
			ar.row = ar.end
		}
		return nil
	}
	for n := int64(0); ; n++ {
		if n%checkEvery == 0 && ctx.Err() != nil {
			return fmt.Errorf("assemble: validation stopped at record %d: %w", ar.row, ctx.Err())
		}
		_, _, err := ar.record(nil, toCheck)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
