// Package stats computes, encodes and decodes per-block statistics of Trevni
// columns: for every block of a column, the rows it covers, how many values
// it holds, their minimum and maximum, and for array columns (which include
// the columns of union branches) how many lengths it holds and how many of
// them are not zero (for a union branch: how many rows took the branch).
//
// A reader uses them to prove that a block holds no value a predicate wants,
// and so skip it without reading it. They are bounds, not samples: every value
// of a block lies between Min and Max, and nothing more is promised (Min and
// Max need not occur in the block). Everything here is arranged so that the
// bounds are never too narrow:
//
//   - NaN is outside the order of floats, so it is counted apart (Block.NaN)
//     and the bounds cover the other values; a block of NaNs alone has no
//     bounds. A reader must remember that NaN satisfies != and nothing else.
//   - -0 and +0 are equal, as IEEE 754 compares them; a zero minimum is
//     stored as -0 and a zero maximum as +0, so the bounds also hold in any
//     order that puts -0 before +0.
//   - Strings and bytes compare as unsigned bytes (for UTF-8, code point
//     order). Bounds keep at most Options.MaxLen bytes: a shortened minimum
//     (a prefix) is still a lower bound; a shortened maximum is rounded up
//     (its last byte that is not 0xff incremented, the rest dropped), and if
//     every byte is 0xff the block has no upper bound. Both are flagged
//     inexact.
//   - Booleans order false before true.
//
// The package knows Trevni's value types by their numbers in the
// specification (the same as format.ValueType) and imports nothing of the
// project, so that package format can use it.
package stats

import (
	"bytes"
	"fmt"
	"math"
)

// MetaKey is the column metadata key under which a column's statistics are
// stored (see Encode). It lies outside the "trevni." prefix that the format
// reserves, so other readers, Java's among them, ignore it.
const MetaKey = "stats.blocks"

// DefaultMaxLen is the longest string or bytes bound kept when
// Options.MaxLen is zero.
const DefaultMaxLen = 64

// Type is a Trevni value type, numbered as the specification lists them and
// as format.ValueType numbers them.
type Type uint8

// The Trevni value types.
const (
	Null Type = iota
	Boolean
	Int
	Long
	Fixed32
	Fixed64
	Float
	Double
	String
	Bytes
)

var typeNames = [...]string{"null", "boolean", "int", "long", "fixed32", "fixed64", "float", "double", "string", "bytes"}

// String returns the type's name as Trevni writes it.
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Valid reports whether t is one of the ten Trevni value types.
func (t Type) Valid() bool { return t <= Bytes }

// IsInteger reports whether t's bounds are kept in Block.MinInt and MaxInt:
// boolean (0 and 1), int, long, fixed32 and fixed64.
func (t Type) IsInteger() bool { return t >= Boolean && t <= Fixed64 }

// IsFloat reports whether t is float or double, whose bounds are kept in
// Block.MinFloat and MaxFloat.
func (t Type) IsFloat() bool { return t == Float || t == Double }

// IsBytes reports whether t is string or bytes, whose bounds are kept in
// Block.MinBytes and MaxBytes.
func (t Type) IsBytes() bool { return t == String || t == Bytes }

// Block is the statistics of one block of a column, or of several
// consecutive blocks merged (Merge).
type Block struct {
	// Rows is the number of top-level rows the block covers.
	Rows int64
	// Lengths is, for an array column, the number of lengths in the block
	// (one per row, or per element of the parent column), and NonEmpty how
	// many of them are not zero. For the column of a union branch, which
	// holds 1 where the branch is taken and 0 elsewhere, NonEmpty is the
	// number of rows (or parent elements) that took the branch. Both are 0
	// for other columns.
	Lengths, NonEmpty int64
	// Values is the number of values in the block, NaNs included.
	Values int64
	// NaN reports that the block holds at least one NaN (float and double
	// columns).
	NaN bool
	// HasBounds reports that Min and Max are set: the block holds at least
	// one value that is not NaN, of a type other than null.
	HasBounds bool
	// MinInexact reports that MinBytes is a prefix of the smallest value
	// rather than the value; MaxInexact that MaxBytes was rounded up from
	// a prefix of the largest, or that there is no upper bound at all
	// (NoMax). The bounds hold either way.
	MinInexact, MaxInexact bool
	// NoMax reports that the block has no upper bound: its largest string
	// or bytes value began with MaxLen 0xff bytes. MaxBytes is then empty
	// and must not be used.
	NoMax bool
	// The bounds, in the fields that fit the column's type: MinInt and
	// MaxInt for boolean (0 for false, 1 for true), int, long, fixed32 and
	// fixed64; MinFloat and MaxFloat for float (widened exactly) and
	// double; MinBytes and MaxBytes for string and bytes.
	MinInt, MaxInt     int64
	MinFloat, MaxFloat float64
	MinBytes, MaxBytes []byte
}

// Merge returns statistics covering the rows of a and then those of b,
// whose column has type t. The bounds are the wider of the two; the result
// shares no memory with b but may share MinBytes or MaxBytes with a.
func Merge(t Type, a, b Block) Block {
	out := a
	out.Rows += b.Rows
	out.Lengths += b.Lengths
	out.NonEmpty += b.NonEmpty
	out.Values += b.Values
	out.NaN = a.NaN || b.NaN
	if !b.HasBounds {
		return out
	}
	if !a.HasBounds {
		out.HasBounds, out.MinInexact, out.MaxInexact, out.NoMax = true, b.MinInexact, b.MaxInexact, b.NoMax
		out.MinInt, out.MaxInt, out.MinFloat, out.MaxFloat = b.MinInt, b.MaxInt, b.MinFloat, b.MaxFloat
		out.MinBytes, out.MaxBytes = b.MinBytes, b.MaxBytes
		return out
	}
	switch {
	case t.IsInteger():
		out.MinInt, out.MaxInt = min(a.MinInt, b.MinInt), max(a.MaxInt, b.MaxInt)
	case t.IsFloat():
		if b.MinFloat < a.MinFloat || (b.MinFloat == a.MinFloat && math.Signbit(b.MinFloat)) {
			out.MinFloat = b.MinFloat
		}
		if b.MaxFloat > a.MaxFloat || (b.MaxFloat == a.MaxFloat && !math.Signbit(b.MaxFloat)) {
			out.MaxFloat = b.MaxFloat
		}
	case t.IsBytes():
		if c := bytes.Compare(b.MinBytes, a.MinBytes); c < 0 || (c == 0 && !b.MinInexact) {
			out.MinBytes, out.MinInexact = b.MinBytes, b.MinInexact
		}
		switch {
		case a.NoMax:
		case b.NoMax:
			out.NoMax, out.MaxInexact, out.MaxBytes = true, true, nil
		default:
			if c := bytes.Compare(b.MaxBytes, a.MaxBytes); c > 0 || (c == 0 && !b.MaxInexact) {
				out.MaxBytes, out.MaxInexact = b.MaxBytes, b.MaxInexact
			}
		}
	}
	return out
}

// Column is the decoded statistics of one column: its type and one Block
// per block, in order.
type Column struct {
	Type   Type
	Array  bool
	Blocks []Block
}
