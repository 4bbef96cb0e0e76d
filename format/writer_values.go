package format

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/trevni-go/trevni/internal/shortval"
	"github.com/trevni-go/trevni/internal/utf8check"
)

// ready returns column col when a value of type t can be written to it
// straight away, the common case of a shredder's writes: the column has
// that type, the row checks are off and no run of lengths is pending. It
// counts the value. Otherwise it returns nil, and the write goes through
// begin. It is small enough to be inlined into every write.
func (w *Writer) ready(col int, t ValueType) *columnWriter {
	if cs := w.cols; uint(col) < uint(len(cs)) {
		if c := cs[col]; c.fast == t && c.runLength == 0 {
			c.values++
			return c
		}
	}
	return nil
}

// begin prepares column col for one value of type t and returns it, or
// nil after recording a misuse.
func (w *Writer) begin(col int, t ValueType) *columnWriter {
	if uint(col) >= uint(len(w.cols)) {
		w.column(col) // records the misuse
		return nil
	}
	c := w.cols[col]
	if c.typ != t {
		w.usage(c, "writing a %s value to a %s column", t, c.typ)
		return nil
	}
	if w.unchecked {
		c.values++
	} else {
		if c.stamp != w.rowCount+1 {
			w.touch(c)
		}
		c.rowValues++
	}
	if c.runLength != 0 && t != Null {
		c.flushRun()
	}
	return c
}

// end records the first value of a block for columns with trevni.values,
// and notes a block that has reached the block size. It is small enough
// to be inlined into every write.
func (w *Writer) end(c *columnWriter, start int) {
	if len(c.enc.b) >= w.opts.BlockSize || c.meta.Values && !c.hasFirst {
		w.endSlow(c, start)
	}
}

// endSlow is end for a block to keep the first value of or to list as
// filled.
func (w *Writer) endSlow(c *columnWriter, start int) {
	if c.meta.Values && !c.hasFirst {
		c.first = append(c.first[:0], c.enc.b[start:]...)
		c.hasFirst = true
	}
	w.filled(c)
}

// filled lists column c in full, to be cut at the next StartRow, if its
// block has reached the block size, and fails the row if it has passed
// the largest block.
// One comparison with the block size, which is less than the largest
// block (NewWriter checks), keeps it small enough to inline into every
// write.
func (w *Writer) filled(c *columnWriter) {
	if len(c.enc.b) >= w.opts.BlockSize {
		w.filledPast(c)
	}
}

// filledPast is filled for a block that has reached the block size.
func (w *Writer) filledPast(c *columnWriter) {
	if len(c.enc.b) > w.opts.MaxBlockSize {
		w.tooLarge(c, len(c.enc.b))
	}
	if len(c.enc.b) >= w.opts.BlockSize && !c.full {
		c.full = true
		w.full = append(w.full, c)
	}
}

// fits reports whether a value of n bytes, its length's varint included,
// fits in column c's block, and fails the row if not: checked before a
// large value is copied.
func (w *Writer) fits(c *columnWriter, n int) bool {
	if len(c.enc.b)+n+binary.MaxVarintLen32 <= w.opts.MaxBlockSize {
		return true // the common case, inlined
	}
	return w.fitsLength(c, n)
}

// fitsLength is fits for a value near the largest block: its length's
// varint counted exactly.
func (w *Writer) fitsLength(c *columnWriter, n int) bool {
	if n > math.MaxInt32 {
		w.usage(c, "value of %d bytes is too long", n)
		return false
	}
	size := 1
	for u := uint32(n) << 1; u >= 0x80; u >>= 7 {
		size++
	}
	if after := len(c.enc.b) + size + n; after > w.opts.MaxBlockSize {
		w.tooLarge(c, after)
		return false
	}
	return true
}

// tooLarge records that column c's block would take n bytes, past
// WriterOptions.MaxBlockSize.
func (w *Writer) tooLarge(c *columnWriter, n int) {
	if w.err == nil {
		e := newError(fmt.Errorf("%w: the row would take the column's block to %d bytes, past the %d of WriterOptions.MaxBlockSize (readers refuse larger blocks unless ReaderOptions.MaxBlockSize is raised)", ErrLimit, n, w.opts.MaxBlockSize))
		e.Column, e.Index, e.Row = c.meta.Name, c.index, w.rowCount
		w.err = e
	}
}

// WriteNull writes a null value. Writing nulls is optional: columns of type
// null store nothing, and their values are not counted.
func (w *Writer) WriteNull(col int) {
	if c := w.begin(col, Null); c != nil {
		// Not counted in the statistics either: whether nulls are
		// written must not change the file.
		w.end(c, len(c.enc.b))
	}
}

// WriteBool writes a boolean value.
func (w *Writer) WriteBool(col int, v bool) {
	c := w.ready(col, Boolean)
	if c == nil {
		if c = w.begin(col, Boolean); c == nil {
			return
		}
	}
	if c.meta.Values && !c.hasFirst {
		c.first = append(c.first[:0], 0)
		if v {
			c.first[0] = 1
		}
		c.hasFirst = true
	}
	if c.st != nil {
		c.st.AddBool(v)
	}
	c.enc.writeBool(v)
	w.filled(c)
}

// WriteInt writes an int value.
func (w *Writer) WriteInt(col int, v int32) {
	c := w.ready(col, Int)
	if c == nil {
		if c = w.begin(col, Int); c == nil {
			return
		}
	}
	if c.st != nil {
		c.st.AddInt(v)
	}
	start := len(c.enc.b)
	c.enc.writeInt(v)
	w.end(c, start)
}

// WriteLong writes a long value.
func (w *Writer) WriteLong(col int, v int64) {
	c := w.ready(col, Long)
	if c == nil {
		if c = w.begin(col, Long); c == nil {
			return
		}
	}
	if c.st != nil {
		c.st.AddLong(v)
	}
	start := len(c.enc.b)
	c.enc.writeLong(v)
	w.end(c, start)
}

// WriteFixed32 writes a fixed32 value.
func (w *Writer) WriteFixed32(col int, v int32) {
	c := w.ready(col, Fixed32)
	if c == nil {
		if c = w.begin(col, Fixed32); c == nil {
			return
		}
	}
	if c.st != nil {
		c.st.AddInt(v)
	}
	start := len(c.enc.b)
	c.enc.writeFixed32(uint32(v))
	w.end(c, start)
}

// WriteFixed64 writes a fixed64 value.
func (w *Writer) WriteFixed64(col int, v int64) {
	c := w.ready(col, Fixed64)
	if c == nil {
		if c = w.begin(col, Fixed64); c == nil {
			return
		}
	}
	if c.st != nil {
		c.st.AddLong(v)
	}
	start := len(c.enc.b)
	c.enc.writeFixed64(uint64(v))
	w.end(c, start)
}

// WriteFloat writes a float value, keeping its exact bits (NaN payloads
// included).
func (w *Writer) WriteFloat(col int, v float32) {
	c := w.ready(col, Float)
	if c == nil {
		if c = w.begin(col, Float); c == nil {
			return
		}
	}
	if c.st != nil {
		c.st.AddFloat(v)
	}
	start := len(c.enc.b)
	c.enc.writeFixed32(math.Float32bits(v))
	w.end(c, start)
}

// WriteDouble writes a double value, keeping its exact bits.
func (w *Writer) WriteDouble(col int, v float64) {
	c := w.ready(col, Double)
	if c == nil {
		if c = w.begin(col, Double); c == nil {
			return
		}
	}
	if c.st != nil {
		c.st.AddDouble(v)
	}
	start := len(c.enc.b)
	c.enc.writeFixed64(math.Float64bits(v))
	w.end(c, start)
}

// WriteString writes a string value, which must be valid UTF-8: Trevni
// strings are UTF-8, and readers (Java's and ours) reject anything else, so
// an invalid string is refused here rather than written into a file that
// cannot be read.
func (w *Writer) WriteString(col int, v string) {
	if c := w.begin(col, String); c != nil {
		if len(v) > math.MaxInt32 {
			w.usage(c, "string of %d bytes is too long", len(v))
			return
		}
		if !utf8.ValidString(v) {
			w.usage(c, "string is not valid UTF-8")
			return
		}
		if !w.fits(c, len(v)) {
			return
		}
		if c.st != nil {
			c.st.AddString(v)
		}
		start := len(c.enc.b)
		c.enc.writeString(v)
		w.end(c, start)
	}
}

// WriteStringBytes writes a string value given as its UTF-8 bytes, which
// must be valid UTF-8 (see WriteString).
func (w *Writer) WriteStringBytes(col int, v []byte) {
	c := w.ready(col, String)
	if c == nil {
		if c = w.begin(col, String); c == nil {
			return
		}
	}
	if w.writeShort(c, v, true) {
		return
	}
	if !utf8check.Valid(v) {
		w.usage(c, "string is not valid UTF-8")
		return
	}
	w.writeBytesTo(c, v)
}

// WriteBytes writes a bytes value.
func (w *Writer) WriteBytes(col int, v []byte) {
	c := w.ready(col, Bytes)
	if c == nil {
		if c = w.begin(col, Bytes); c == nil {
			return
		}
	}
	if w.writeShort(c, v, false) {
		return
	}
	w.writeBytesTo(c, v)
}

func (w *Writer) writeBytesTo(c *columnWriter, v []byte) {
	if !w.fits(c, len(v)) { // among them a value too long for any block
		return
	}
	if c.st != nil && !c.st.AddBytesWithin(v) {
		c.st.AddBytes(v)
	}
	start := len(c.enc.b)
	c.enc.writeBytes(v)
	w.end(c, start)
}

// writeShort is writeBytesTo for a value of at most 16 bytes, the common
// case, where the block's buffer has room for 17 more bytes: the value is
// loaded a word or two at a time (overlapping loads cover every length)
// and stored after its one-byte length, with no call to memmove. For a
// string (str) the same words show whether it is ASCII, and so valid
// UTF-8, which saves checking it apart. It makes no call, so that nothing
// is spilled around one, and reports false, having done nothing, for
// anything else: a longer value, a buffer without the room, a block near
// its largest size, a string that is not ASCII, or a value that moves the
// statistics' bounds; the caller then checks and writes it the usual way.
func (w *Writer) writeShort(c *columnWriter, v []byte, str bool) bool {
	n := len(v)
	start := len(c.enc.b)
	if n > shortval.Max || cap(c.enc.b)-start <= shortval.Max || start+1+n > w.opts.MaxBlockSize {
		return false
	}
	lo, hi := shortval.Load(v)
	if str && !shortval.ASCII(lo, hi) {
		return false
	}
	if c.st != nil && !c.st.AddBytesWithin(v) {
		return false
	}
	c.enc.b = c.enc.b[:start+1+n] // the length alone stored: see encoder
	b := c.enc.b
	b[start] = byte(n << 1)
	shortval.Store(b[start+1:start+1+n], lo, hi)
	w.end(c, start)
	return true
}

// WriteValue writes v to column col, converting it to the column's type:
// nil for null; bool; any Go integer for int, long, fixed32 and fixed64 when
// it fits; float32 or float64 for float and double; string or []byte for
// string and bytes. It is the convenient, slower path; the typed methods do
// not box their values.
func (w *Writer) WriteValue(col int, v any) {
	c := w.column(col)
	if c == nil {
		return
	}
	switch c.meta.Type {
	case Null:
		if v != nil {
			w.usage(c, "writing %T to a null column", v)
			return
		}
		w.WriteNull(col)
	case Boolean:
		b, ok := v.(bool)
		if !ok {
			w.usage(c, "writing %T to a boolean column", v)
			return
		}
		w.WriteBool(col, b)
	case Int, Fixed32:
		n, ok := toInt64(v)
		if !ok || n < math.MinInt32 || n > math.MaxInt32 {
			w.usage(c, "writing %T (%v) to a %s column", v, v, c.meta.Type)
			return
		}
		if c.meta.Type == Int {
			w.WriteInt(col, int32(n))
		} else {
			w.WriteFixed32(col, int32(n))
		}
	case Long, Fixed64:
		n, ok := toInt64(v)
		if !ok {
			w.usage(c, "writing %T (%v) to a %s column", v, v, c.meta.Type)
			return
		}
		if c.meta.Type == Long {
			w.WriteLong(col, n)
		} else {
			w.WriteFixed64(col, n)
		}
	case Float:
		f, ok := v.(float32)
		if !ok {
			w.usage(c, "writing %T to a float column", v)
			return
		}
		w.WriteFloat(col, f)
	case Double:
		switch f := v.(type) {
		case float64:
			w.WriteDouble(col, f)
		case float32:
			w.WriteDouble(col, float64(f))
		default:
			w.usage(c, "writing %T to a double column", v)
		}
	case String:
		switch s := v.(type) {
		case string:
			w.WriteString(col, s)
		case []byte:
			w.WriteStringBytes(col, s)
		default:
			w.usage(c, "writing %T to a string column", v)
		}
	case Bytes:
		switch s := v.(type) {
		case []byte:
			w.WriteBytes(col, s)
		case string:
			w.WriteBytes(col, []byte(s))
		default:
			w.usage(c, "writing %T to a bytes column", v)
		}
	}
}

func toInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int8:
		return int64(n), true
	case int16:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case uint8:
		return int64(n), true
	case uint16:
		return int64(n), true
	case uint32:
		return int64(n), true
	case uint:
		return int64(n), n <= math.MaxInt64
	case uint64:
		return int64(n), n <= math.MaxInt64
	}
	return 0, false
}

// WriteRow writes one row of a file whose columns are all top-level and not
// arrays: one value per column, converted as by WriteValue.
func (w *Writer) WriteRow(values ...any) error {
	if len(values) != len(w.cols) {
		return fmt.Errorf("%w: WriteRow got %d values for %d columns", ErrUsage, len(values), len(w.cols))
	}
	if err := w.StartRow(); err != nil {
		return err
	}
	for i, v := range values {
		if c := w.cols[i]; c.meta.Array || c.parent >= 0 {
			w.usage(c, "WriteRow needs flat columns; use WriteLength and the value methods")
			return w.err
		}
		w.WriteValue(i, v)
	}
	return w.EndRow()
}
