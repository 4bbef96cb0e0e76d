package assemble

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/fieldpath"
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
// are all alike, so one is checked for all; so are the items of an array
// or the values of a map that read no column; and so are consecutive
// records that read only lengths from runs (a run of empty arrays, or of
// union branches holding an empty record), as long as the runs last. Unlike the read paths
// it sets no limit on the elements of a record, as it keeps none of them.
// It checks ctx between records and returns its error, wrapped, if ctx
// ends first.
//
// Validate checks the records' values; the Trevni structure beneath them
// (block checksums, blocks holding exactly their rows) is format.Reader's
// Validate's job.
func (ar *AvroReader) Validate(ctx context.Context) error {
	limit, budget := ar.maxElems, ar.maxBytes
	ar.maxElems, ar.maxBytes = math.MaxInt, math.MaxInt64
	defer func() { ar.maxElems, ar.maxBytes = limit, budget }()
	if ar.filter != nil {
		// Only the matching records, one by one.
		for n := int64(0); ; n++ {
			if n%checkEvery == 0 && ctx.Err() != nil {
				return fmt.Errorf("assemble: validation stopped at record %d: %w", ar.row, ctx.Err())
			}
			if _, _, err := ar.record(nil, toCheck); err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
		}
	}
	return ar.validateRows(ctx, func() error {
		_, err := ar.walk(nil, ar.root, toCheck, 0)
		return err
	})
}

// validateRows checks the rows from the reader's row to its end with
// check, which reads the values of the row just started, as Validate
// describes: rows that read no column, and consecutive rows that read only
// lengths from runs, are alike, so one is checked for all of them. An
// error of check is returned as the row's *schema.Error.
func (ar *AvroReader) validateRows(ctx context.Context, check func() error) error {
	if ar.root.free() {
		if ar.row < ar.end {
			if err := ar.startRow(); err != nil {
				return err
			}
			if err := check(); err != nil {
				return fieldpath.Record(err, ar.row)
			}
			ar.checked++
			ar.row = ar.end
		}
		return nil
	}
	// Rows that consume no byte of any column (only lengths from runs of
	// 0 or 1 lengths) are alike as long as the runs last: one is checked
	// for all of them.
	before := make([]format.ReadState, len(ar.used))
	per := make([]int64, len(ar.used))
	for n := int64(0); ; n++ {
		if n%checkEvery == 0 && ctx.Err() != nil {
			return fmt.Errorf("assemble: validation stopped at record %d: %w", ar.row, ctx.Err())
		}
		if err := ar.startRow(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		for i, c := range ar.used {
			before[i] = c.ReadState()
		}
		if err := check(); err != nil {
			return fieldpath.Record(err, ar.row)
		}
		ar.row++
		ar.checked++
		k := ar.end - ar.row
		for i, c := range ar.used {
			s := c.ReadState()
			if s.Block != before[i].Block || s.Pos != before[i].Pos || s.Bits != before[i].Bits {
				k = 0
				break
			}
			k = min(k, c.RowsLeftInBlock())
			if per[i] = before[i].Run - s.Run; per[i] > 0 {
				k = min(k, s.Run/per[i])
			}
		}
		if k > 0 {
			for i, c := range ar.used {
				if err := c.SkipAlikeRows(k, per[i]); err != nil {
					return err
				}
			}
			ar.row += k
		}
	}
}
