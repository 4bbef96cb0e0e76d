package stats

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unsafe"
)

// Options tunes an Accumulator. A nil *Options means the defaults.
type Options struct {
	// MaxLen is the most bytes of a string or bytes bound kept (see the
	// package documentation); 0 means DefaultMaxLen. Values from 1 to
	// 1<<20 are allowed.
	MaxLen int
}

// An Accumulator gathers the statistics of one column as a writer writes
// it: the writer calls an Add method for every value and AddLength for every
// length, and EndBlock when it cuts a block. Encode then gives the metadata
// value to store under MetaKey.
//
// The Add methods do not allocate, and cost a few comparisons each. They do
// not check that a value fits the column's type: AddInt on a long column
// counts as a long, and a value of another kind of type is counted but
// leaves the bounds alone, so the writer's own checks stay in charge.
// An Accumulator is not safe for concurrent use.
type Accumulator struct {
	typ    Type
	array  bool
	maxLen int

	// cur is the block being gathered. Its integer and float bounds start
	// at sentinels (MinInt above MaxInt...), so that adding a value is two
	// branch-free comparisons; HasBounds is worked out by Current.
	// MinBytes and MaxBytes are unused: minBuf and maxBuf hold them, and
	// hasBytes says whether they are set.
	cur      Block
	hasBytes bool
	minBuf   []byte
	maxBuf   []byte
	// minKey and maxKey are the first bytes of minBuf and maxBuf, or -1
	// when empty: a value whose first byte lies strictly between them
	// changes neither bound.
	minKey, maxKey int16
	upBuf          []byte // a rounded-up maximum

	mark mark // counts at the last Mark

	blocks int
	out    []byte // encoded entries of the finished blocks
}

type mark struct {
	lengths, nonEmpty, values int64
	minInt, maxInt            int64
	minFloat, maxFloat        float64
	nan, minInexact           bool
	maxInexact, hasBytes      bool
	// bytesSaved says that minBuf and maxBuf were copied to min and max
	// since the Mark: they are copied before the first change.
	bytesSaved bool
	min, max   []byte
}

// NewAccumulator returns an Accumulator for a column of type t; array marks
// an array column (one that holds lengths).
func NewAccumulator(t Type, array bool, opts *Options) (*Accumulator, error) {
	if !t.Valid() {
		return nil, fmt.Errorf("stats: unknown value type %d", uint8(t))
	}
	n := DefaultMaxLen
	if opts != nil && opts.MaxLen != 0 {
		n = opts.MaxLen
	}
	if n < 1 || n > 1<<20 {
		return nil, fmt.Errorf("stats: MaxLen %d out of range 1 to %d", n, 1<<20)
	}
	a := &Accumulator{typ: t, array: array, maxLen: n}
	a.reset()
	a.Mark()
	if t.IsBytes() {
		a.minBuf = make([]byte, 0, n)
		a.maxBuf = make([]byte, 0, n)
		a.upBuf = make([]byte, 0, n)
	}
	return a, nil
}

// Type returns the column type the Accumulator was made for.
func (a *Accumulator) Type() Type { return a.typ }

// AddLength records one length of an array column.
func (a *Accumulator) AddLength(n int) {
	a.cur.Lengths++
	if n != 0 {
		a.cur.NonEmpty++
	}
}

// AddNull records a value of a null column.
func (a *Accumulator) AddNull() { a.cur.Values++ }

// AddBool records a boolean value.
func (a *Accumulator) AddBool(v bool) {
	var i int64
	if v {
		i = 1
	}
	a.addInteger(i)
}

// AddInt records an int or fixed32 value.
func (a *Accumulator) AddInt(v int32) { a.addInteger(int64(v)) }

// AddLong records a long or fixed64 value.
func (a *Accumulator) AddLong(v int64) { a.addInteger(v) }

// reset starts a block.
func (a *Accumulator) reset() {
	a.cur = Block{MinInt: math.MaxInt64, MaxInt: math.MinInt64, MinFloat: math.Inf(1), MaxFloat: math.Inf(-1)}
	a.hasBytes = false
}

// addInteger and AddDouble update bounds whatever the column's type:
// Current uses only the bounds of the column's type.
func (a *Accumulator) addInteger(v int64) {
	b := &a.cur
	b.Values++
	b.MinInt = min(b.MinInt, v)
	b.MaxInt = max(b.MaxInt, v)
}

// AddFloat records a float value.
func (a *Accumulator) AddFloat(v float32) { a.AddDouble(float64(v)) }

// AddDouble records a double value.
func (a *Accumulator) AddDouble(v float64) {
	b := &a.cur
	b.Values++
	if v != v {
		b.NaN = true
		return
	}
	if v < b.MinFloat {
		b.MinFloat = v
	}
	if v > b.MaxFloat {
		b.MaxFloat = v
	}
}

// AddString records a string value.
func (a *Accumulator) AddString(v string) {
	a.cur.Values++
	if !a.typ.IsBytes() {
		return
	}
	long := len(v) > a.maxLen
	if long {
		v = v[:a.maxLen]
	}
	b := &a.cur
	if !a.hasBytes {
		a.hasBytes = true
		a.minBuf = append(a.minBuf[:0], v...)
		a.maxBuf = append(a.maxBuf[:0], v...)
		a.minKey, a.maxKey = firstKey(a.minBuf), firstKey(a.maxBuf)
		b.MinInexact, b.MaxInexact = long, long
		return
	}
	if k := firstKey(v); k > a.minKey && k < a.maxKey {
		return
	}
	// Truncation to a prefix keeps order (a <= b implies a[:n] <= b[:n]),
	// so the least prefix is the prefix of the least value. Of two values
	// with the same prefix, the one that was not cut is the smaller.
	if c := compareBound(v, view(a.minBuf)); c < 0 {
		a.saveBytes()
		a.minBuf = append(a.minBuf[:0], v...)
		a.minKey = firstKey(a.minBuf)
		b.MinInexact = long
	} else if c == 0 && !long {
		b.MinInexact = false
	}
	if c := compareBound(v, view(a.maxBuf)); c > 0 {
		a.saveBytes()
		a.maxBuf = append(a.maxBuf[:0], v...)
		a.maxKey = firstKey(a.maxBuf)
		b.MaxInexact = long
	} else if c == 0 && long {
		b.MaxInexact = true
	}
}

// firstKey returns the first byte of b, or -1 if b is empty.
func firstKey[T string | []byte](b T) int16 {
	if len(b) == 0 {
		return -1
	}
	return int16(b[0])
}

// compareBound compares v with a bound as strings.Compare does, settling
// the common cases, an empty string or a first byte that differs, in line.
func compareBound(v, bound string) int {
	if len(v) == 0 || len(bound) == 0 {
		return cmp.Compare(len(v), len(bound))
	}
	if v[0] != bound[0] {
		return cmp.Compare(v[0], bound[0])
	}
	return strings.Compare(v, bound)
}

// saveBytes copies the string bounds for Rollback before the first change
// since the last Mark.
func (a *Accumulator) saveBytes() {
	if !a.mark.bytesSaved {
		a.mark.min = append(a.mark.min[:0], a.minBuf...)
		a.mark.max = append(a.mark.max[:0], a.maxBuf...)
		a.mark.bytesSaved = true
	}
}

// view returns b's bytes as a string without copying them; the string
// must not outlive the next change of b.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// AddBytes records a bytes value (or a string given as bytes).
func (a *Accumulator) AddBytes(v []byte) { a.AddString(view(v)) }

// AddBytesWithin records v and reports true if its first byte lies
// strictly between the first bytes of the block's bounds, so that it
// changes neither bound: most values of a column once its bounds have
// spread. Otherwise it records nothing and reports false, and the value
// is for AddBytes. It is small enough to be inlined in a writer's loop.
func (a *Accumulator) AddBytesWithin(v []byte) bool {
	if len(v) != 0 && a.hasBytes {
		if k := int16(v[0]); k > a.minKey && k < a.maxKey {
			a.cur.Values++
			return true
		}
	}
	return false
}

// Mark remembers the statistics of the block being gathered; a writer
// calls it when a row starts, so that Rollback can forget the row if it is
// aborted. It copies no bytes: a string bound is saved when a value first
// changes it after the Mark.
func (a *Accumulator) Mark() {
	b, m := &a.cur, &a.mark
	m.lengths, m.nonEmpty, m.values = b.Lengths, b.NonEmpty, b.Values
	m.minInt, m.maxInt, m.minFloat, m.maxFloat = b.MinInt, b.MaxInt, b.MinFloat, b.MaxFloat
	m.nan, m.minInexact, m.maxInexact = b.NaN, b.MinInexact, b.MaxInexact
	m.hasBytes, m.bytesSaved = a.hasBytes, false
}

// Rollback restores the statistics saved by the last Mark exactly, so that
// an aborted row leaves no trace in them (and a file written with aborted
// rows is the file written without them).
func (a *Accumulator) Rollback() {
	b, m := &a.cur, &a.mark
	b.Lengths, b.NonEmpty, b.Values = m.lengths, m.nonEmpty, m.values
	b.MinInt, b.MaxInt, b.MinFloat, b.MaxFloat = m.minInt, m.maxInt, m.minFloat, m.maxFloat
	b.NaN, b.MinInexact, b.MaxInexact = m.nan, m.minInexact, m.maxInexact
	a.hasBytes = m.hasBytes
	if a.mark.bytesSaved {
		a.minBuf = append(a.minBuf[:0], a.mark.min...)
		a.maxBuf = append(a.maxBuf[:0], a.mark.max...)
		a.minKey, a.maxKey = firstKey(a.minBuf), firstKey(a.maxBuf)
		a.mark.bytesSaved = false
	}
}

// Current returns the statistics gathered since the last EndBlock. Its
// MinBytes and MaxBytes are final bounds (shortened, the maximum rounded up)
// in memory of the Accumulator's, valid until the next call of a method.
func (a *Accumulator) Current(rows int64) Block {
	b := a.cur
	b.Rows = rows
	switch {
	case a.typ.IsInteger():
		b.HasBounds = b.MinInt <= b.MaxInt
	case a.typ.IsFloat():
		b.HasBounds = b.MinFloat <= b.MaxFloat
	case a.typ.IsBytes():
		b.HasBounds = a.hasBytes
	}
	if !a.typ.IsInteger() || !b.HasBounds {
		b.MinInt, b.MaxInt = 0, 0
	}
	if !a.typ.IsFloat() || !b.HasBounds {
		b.MinFloat, b.MaxFloat = 0, 0
	}
	if !a.typ.IsFloat() {
		b.NaN = false
	}
	if !b.HasBounds {
		b.MinInexact, b.MaxInexact = false, false
		return b
	}
	switch {
	case a.typ.IsFloat():
		if b.MinFloat == 0 {
			b.MinFloat = math.Copysign(0, -1)
		}
		if b.MaxFloat == 0 {
			b.MaxFloat = 0
		}
	case a.typ.IsBytes():
		b.MinBytes = a.minBuf
		b.MaxBytes = a.maxBuf
		if b.MaxInexact {
			a.upBuf = append(a.upBuf[:0], a.maxBuf...)
			b.MaxBytes, b.NoMax = roundUp(a.upBuf)
		}
	}
	return b
}

// roundUp returns the least byte string of at most len(p) bytes that is
// greater than every string starting with p, working in p's memory, or
// false when there is none (p is all 0xff).
func roundUp(p []byte) ([]byte, bool) {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] != 0xff {
			p = p[:i+1]
			p[i]++
			return p, false
		}
	}
	return nil, true
}

// EndBlock finishes the block being gathered, which covers rows top-level
// rows, appends its entry to the encoding and starts a new block.
func (a *Accumulator) EndBlock(rows int64) {
	b := a.Current(rows)
	a.out = appendBlock(a.out, a.typ, a.array, &b)
	a.blocks++
	a.reset()
	if a.minBuf != nil {
		a.minBuf, a.maxBuf = a.minBuf[:0], a.maxBuf[:0]
	}
	a.Mark()
}

// MoveBlocks appends the blocks ended in from after those ended in a, and
// leaves from with none ended (its block being gathered stays). It is how
// a writer joining segments written apart (format.Writer.AppendWriter)
// keeps each block's statistics exactly as gathered. The two must be for
// the same column type, and a's block being gathered must be empty: the
// moved blocks follow a's ended ones.
func (a *Accumulator) MoveBlocks(from *Accumulator) error {
	if a.typ != from.typ || a.array != from.array {
		return fmt.Errorf("stats: moving blocks of a %s column (array %t) to a %s column (array %t)", from.typ, from.array, a.typ, a.array)
	}
	a.out = append(a.out, from.out...)
	a.blocks += from.blocks
	from.out = from.out[:0]
	from.blocks = 0
	return nil
}

// Blocks returns the number of blocks ended so far.
func (a *Accumulator) Blocks() int { return a.blocks }

// Encode returns the column's statistics as stored under MetaKey: a header
// and the entries of the blocks ended so far (see the repository's
// docs/filters.md, "Block statistics", for the layout). The result is a
// new slice.
func (a *Accumulator) Encode() []byte {
	out := make([]byte, 0, 3+binary.MaxVarintLen64+len(a.out))
	out = appendHeader(out, a.typ, a.array, a.blocks)
	return append(out, a.out...)
}

// AddValue records a value given as package format's generic value methods
// take it (format.Writer.WriteValue): nil, bool, int32, int64, float32,
// float64, string or []byte. Another Go type is counted without bounds.
func (a *Accumulator) AddValue(v any) {
	switch v := v.(type) {
	case nil:
		a.AddNull()
	case bool:
		a.AddBool(v)
	case int32:
		a.AddInt(v)
	case int64:
		a.AddLong(v)
	case float32:
		a.AddFloat(v)
	case float64:
		a.AddDouble(v)
	case string:
		a.AddString(v)
	case []byte:
		a.AddBytes(v)
	default:
		a.cur.Values++
	}
}
