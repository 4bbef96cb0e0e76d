package shred

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/fieldpath"
	"github.com/trevni-go/trevni/schema/layout"
)

// This file holds what the two ways into an AvroWriter share: Write walks
// the layout tree over goavro values (avro.go), WriteBinary walks it over
// Avro binary (binary.go), and both write a union's branch lengths, an
// array's or map's length, a map's keys (in order, keeping the last of
// equal keys), and turn a value the column writer refuses (a string that
// is not UTF-8) into an error at that value, through the methods below.

// A MapEntry is one entry of a map about to be written: its key's bytes
// and where its value stands, in the caller's terms (for WriteBinary the
// offset of the value's encoding, for a caller of Columnar the index of
// the value in its own list of values).
type MapEntry struct {
	Key   []byte
	Value int
}

func compareKeys(a, b MapEntry) int { return bytes.Compare(a.Key, b.Key) }

// mapScratch returns the empty scratch list of map entries for maps at
// depth, to be stored back in aw.maps once filled.
func (aw *AvroWriter) mapScratch(depth int) []MapEntry {
	for len(aw.maps) <= depth {
		aw.maps = append(aw.maps, nil)
	}
	return aw.maps[depth][:0]
}

// writeMapKeys writes the length and the keys of a value of map n, whose
// entries are listed in entries, and returns the entries whose values to
// write next, in that order. The entries are written in the byte order of
// their keys, so that the file does not depend on Go's map iteration order
// or on the order of the input (the order of Java's files written from
// sorted maps), or, with Options.KeepMapOrder and entries that have an
// order (unique is false), in the order given. Of equal keys only the last
// is kept, as decoding into a map would (unique says there are none: the
// keys of a Go map). notValid is the error that a key that is not UTF-8
// wraps.
func (aw *AvroWriter) writeMapKeys(n *layout.Node, entries []MapEntry, unique bool, notValid error) ([]MapEntry, error) {
	kept := aw.orderMapEntries(entries, unique)
	if err := aw.length(n.Col, int64(len(kept))); err != nil {
		return nil, err
	}
	for _, e := range kept {
		if aw.w.WriteStringBytes(n.KeyCol, e.Key); aw.w.Err() != nil {
			return nil, fieldpath.At(aw.refused(notValid), fieldpath.Key(string(e.Key)))
		}
	}
	return kept, nil
}

// orderMapEntries returns the entries of a map value that writeMapKeys
// writes, in the order it writes them (see there), reordering and
// reusing entries: sorted by key, stably, and of equal keys the last
// kept; or, with Options.KeepMapOrder and entries that have an order
// (unique is false), in the order given, of equal keys the last kept.
func (aw *AvroWriter) orderMapEntries(entries []MapEntry, unique bool) []MapEntry {
	if aw.keepOrder && !unique {
		return aw.lastOfEqualKeys(entries)
	}
	if !slices.IsSortedFunc(entries, compareKeys) {
		slices.SortStableFunc(entries, compareKeys)
	}
	if unique {
		return entries
	}
	kept := entries[:0]
	for i, e := range entries {
		if i+1 < len(entries) && bytes.Equal(e.Key, entries[i+1].Key) {
			continue
		}
		kept = append(kept, e)
	}
	return kept
}

// lastOfEqualKeys returns entries, in their order, without those whose key
// an entry after them has (the last of equal keys wins, where it stands).
// Up to 8 entries are compared pairwise; above, and where two keys are
// equal, the keys are sorted with their positions in the scratch list
// aw.order (by key, then position), and every entry followed in that order
// by one of the same key is marked in aw.drop. Nothing is allocated once
// the scratch lists have grown.
func (aw *AvroWriter) lastOfEqualKeys(entries []MapEntry) []MapEntry {
	if len(entries) < 2 || len(entries) <= 8 && !anyEqualKeys(entries) {
		return entries
	}
	aw.order = aw.order[:0]
	for i, e := range entries {
		aw.order = append(aw.order, keyAt{key: e.Key, at: i})
	}
	slices.SortFunc(aw.order, compareKeyAt)
	aw.drop = slices.Grow(aw.drop[:0], len(entries))[:len(entries)]
	clear(aw.drop)
	dup := false
	for i := 1; i < len(aw.order); i++ {
		if bytes.Equal(aw.order[i-1].key, aw.order[i].key) {
			aw.drop[aw.order[i-1].at] = true
			dup = true
		}
	}
	if !dup {
		return entries
	}
	kept := entries[:0]
	for i, e := range entries {
		if !aw.drop[i] {
			kept = append(kept, e)
		}
	}
	return kept
}

// keyAt is a map entry's key and its position among the entries.
type keyAt struct {
	key []byte
	at  int
}

func compareKeyAt(a, b keyAt) int {
	if c := bytes.Compare(a.key, b.key); c != 0 {
		return c
	}
	return a.at - b.at
}

// anyEqualKeys reports whether two of entries have the same key, comparing
// them pairwise (for a few entries).
func anyEqualKeys(entries []MapEntry) bool {
	for i := 1; i < len(entries); i++ {
		for j := range i {
			if bytes.Equal(entries[i].Key, entries[j].Key) {
				return true
			}
		}
	}
	return false
}

// branch writes the lengths of the branch columns of union n for a value
// of branch b: 1 in b's column, 0 in the others (the null branch has
// none). The value then goes to n.Branches[b], unless that is nil (null).
func (aw *AvroWriter) branch(n *layout.Node, b int) {
	for i, col := range n.BranchCols {
		if col >= 0 {
			aw.w.WriteLength(col, b2i(i == b))
		}
	}
}

// length writes the length of an array or map in column col.
func (aw *AvroWriter) length(col int, n int64) error {
	if n > math.MaxInt32 {
		return errTooMany // a plain value keeps length inlined
	}
	aw.w.WriteLength(col, int(n))
	return nil
}

var errTooMany = fmt.Errorf("more entries than a Trevni array may hold (%d)", math.MaxInt32)

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// refused returns the error that the column writer recorded for the value
// just written, which it refused (a string that is not valid UTF-8), as an
// error at that value wrapping bad: the record is at fault, not the call.
// AbortRow then clears it from the writer.
func (aw *AvroWriter) refused(bad error) error {
	err := aw.w.Err()
	var fe *format.Error
	if errors.As(err, &fe) {
		err = fe.Err // the path says where, better than the column
	}
	if errors.Is(err, format.ErrLimit) {
		return fieldpath.New(err) // a value too large, not bad data
	}
	msg := strings.TrimPrefix(err.Error(), format.ErrUsage.Error()+": ")
	return fieldpath.New(fmt.Errorf("%w: %s", bad, msg))
}

// recordError returns err, met in the record being written, as the
// *schema.Error of that record.
func (aw *AvroWriter) recordError(err error) error { return fieldpath.Record(err, aw.w.RowCount()) }

// endRow ends the record being written.
func (aw *AvroWriter) endRow() error { return aw.endRecord(aw.w.RowCount()) }

// endRecord ends the record being written, whose number for errors is
// row. A record the column writer finds incomplete, or too large for a
// block (format.WriterOptions.MaxBlockSize), is not written, and writing
// can go on; any other error ends the file.
func (aw *AvroWriter) endRecord(row int64) error {
	err := aw.w.EndRow()
	if err == nil {
		return nil
	}
	aw.w.AbortRow()
	if errors.Is(err, format.ErrUsage) || errors.Is(err, format.ErrLimit) {
		return fieldpath.Record(err, row)
	}
	return err
}
