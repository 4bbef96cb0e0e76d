package trevniparquet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// This file decodes the Variant binary encoding (parquet-format's
// VariantEncoding.md: a metadata dictionary of field names and a value)
// into JSON text, rendered as DuckDB renders a VARIANT cast to JSON (see
// docs/arrow.md). Every length and offset is checked against the bytes
// it lies in, nesting is bounded by maxVariantDepth and the text of one
// column's values in a batch by maxVariantText, so that no input makes
// it panic, recurse without end or allocate beyond that bound.

const (
	// maxVariantDepth bounds the nesting of arrays and objects in a
	// Variant value (binary or shredded), as JSON readers bound theirs.
	maxVariantDepth = 128
	// maxVariantText bounds the JSON text of one column's Variant
	// values in one batch: values whose offsets overlap can describe far
	// more text than their bytes.
	maxVariantText = 256 << 20
)

// Variant basic types and primitive type ids (VariantEncoding.md).
const (
	vBasicPrimitive = 0
	vBasicShortStr  = 1
	vBasicObject    = 2
	vBasicArray     = 3

	vNull        = 0
	vTrue        = 1
	vFalse       = 2
	vInt8        = 3
	vInt16       = 4
	vInt32       = 5
	vInt64       = 6
	vDouble      = 7
	vDecimal4    = 8
	vDecimal8    = 9
	vDecimal16   = 10
	vDate        = 11
	vTimestamp   = 12
	vTimestampNT = 13
	vFloat       = 14
	vBinary      = 15
	vString      = 16
	vTimeNTZ     = 17
	vTimestampNs = 18
	vTimestampNN = 19
	vUUID        = 20
)

// errVariantText is the error of a value whose JSON text would pass
// maxVariantText.
var errVariantText = fmt.Errorf("its JSON text passes %d MiB", maxVariantText>>20)

// variantMeta is a parsed Variant metadata: its dictionary of field
// names, read from b in place.
type variantMeta struct {
	b     []byte
	size  int // bytes of each offset
	n     int // strings in the dictionary
	offs  int // where the n+1 offsets start
	start int // where the strings' bytes start
}

// parseVariantMeta parses metadata b (kept, not copied).
func parseVariantMeta(b []byte) (variantMeta, error) {
	if len(b) == 0 {
		return variantMeta{}, errors.New("metadata: empty")
	}
	if v := b[0] & 0x0f; v != 1 {
		return variantMeta{}, fmt.Errorf("metadata: version %d (this reader reads version 1)", v)
	}
	size := int(b[0]>>6) + 1
	if len(b) < 1+size {
		return variantMeta{}, fmt.Errorf("metadata: %d bytes, too short for its header", len(b))
	}
	n := readUint(b[1:], size)
	// n+1 offsets of size bytes follow: n is bounded by the bytes.
	if n > uint64(len(b)-1-size)/uint64(size) || (n+1)*uint64(size) > uint64(len(b)-1-size) {
		return variantMeta{}, fmt.Errorf("metadata: a dictionary of %d names in %d bytes", n, len(b))
	}
	m := variantMeta{b: b, size: size, n: int(n), offs: 1 + size}
	m.start = m.offs + (m.n+1)*size
	if last := readUint(b[m.offs+m.n*size:], size); last > uint64(len(b)-m.start) {
		return variantMeta{}, fmt.Errorf("metadata: names end at byte %d of %d", last, len(b)-m.start)
	}
	return m, nil
}

// length returns the bytes of the metadata: its header, offsets and
// names (what follows them is not its).
func (m *variantMeta) length() int {
	return m.start + int(readUint(m.b[m.offs+m.n*m.size:], m.size))
}

// key returns the dictionary's name id, checked to lie in the metadata
// and to be UTF-8.
func (m *variantMeta) key(id uint64) ([]byte, error) {
	if id >= uint64(m.n) {
		return nil, fmt.Errorf("field id %d of a dictionary of %d names", id, m.n)
	}
	i := int(id)
	lo := readUint(m.b[m.offs+i*m.size:], m.size)
	hi := readUint(m.b[m.offs+(i+1)*m.size:], m.size)
	if lo > hi || hi > uint64(len(m.b)-m.start) {
		return nil, fmt.Errorf("metadata: name %d at bytes %d to %d of %d", i, lo, hi, len(m.b)-m.start)
	}
	k := m.b[m.start+int(lo) : m.start+int(hi)]
	if !utf8.Valid(k) {
		return nil, fmt.Errorf("metadata: name %d is not UTF-8", i)
	}
	return k, nil
}

// readUint reads an unsigned little-endian integer of size (1 to 4)
// bytes; b holds at least size bytes.
func readUint(b []byte, size int) uint64 {
	var v uint64
	for i := size - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// variantEntry is a field of an object being written: its name and
// either its value's bytes (a field of an encoded object) or the index
// of a shredded field.
type variantEntry struct {
	key   []byte
	value []byte
	field int
}

// variantJSON writes Variant values as JSON text into out.
type variantJSON struct {
	out []byte
	// limit bounds out (maxVariantText when 0).
	limit int
	// entries are the fields of the objects being written, one slice
	// for each depth, kept between values.
	entries [][]variantEntry
}

// scratch returns the emptied entries slice of depth.
func (w *variantJSON) scratch(depth int) []variantEntry {
	for len(w.entries) <= depth {
		w.entries = append(w.entries, nil)
	}
	return w.entries[depth][:0]
}

// check returns errVariantText when the text has passed its bound.
func (w *variantJSON) check() error {
	if len(w.out) > maxVariantText || (w.limit > 0 && len(w.out) > w.limit) {
		return errVariantText
	}
	return nil
}

// value writes the Variant value that starts at v[0] (v may run past
// its end, to the end of what holds it).
func (w *variantJSON) value(m *variantMeta, v []byte, depth int) error {
	if len(v) == 0 {
		return errors.New("a value of no bytes")
	}
	if err := w.check(); err != nil {
		return err
	}
	h := v[0]
	switch h & 3 {
	case vBasicShortStr:
		n := int(h >> 2)
		if len(v) < 1+n {
			return fmt.Errorf("a short string of %d bytes in %d", n, len(v)-1)
		}
		return w.str(v[1 : 1+n])
	case vBasicObject:
		return w.object(m, v, depth)
	case vBasicArray:
		return w.array(m, v, depth)
	}
	return w.primitive(h>>2, v[1:])
}

// primitiveSizes are the bytes each primitive type's value takes at
// least (a binary's or string's its length's).
var primitiveSizes = [...]int{vInt8: 1, vInt16: 2, vInt32: 4, vInt64: 8, vDouble: 8, vDecimal4: 5, vDecimal8: 9,
	vDecimal16: 17, vDate: 4, vTimestamp: 8, vTimestampNT: 8, vFloat: 4, vBinary: 4, vString: 4,
	vTimeNTZ: 8, vTimestampNs: 8, vTimestampNN: 8, vUUID: 16}

// primitive writes the primitive value of type id t whose bytes start
// at b[0].
func (w *variantJSON) primitive(t byte, b []byte) error {
	need := func(n int) error {
		if len(b) < n {
			return fmt.Errorf("a value of primitive type %d needs %d bytes, has %d", t, n, len(b))
		}
		return nil
	}
	if int(t) < len(primitiveSizes) {
		if err := need(primitiveSizes[t]); err != nil {
			return err
		}
	}
	switch t {
	case vNull:
		w.out = append(w.out, "null"...)
	case vTrue:
		w.out = append(w.out, "true"...)
	case vFalse:
		w.out = append(w.out, "false"...)
	case vInt8:
		w.out = strconv.AppendInt(w.out, int64(int8(b[0])), 10)
	case vInt16:
		w.out = strconv.AppendInt(w.out, int64(int16(binary.LittleEndian.Uint16(b))), 10)
	case vInt32:
		w.out = strconv.AppendInt(w.out, int64(int32(binary.LittleEndian.Uint32(b))), 10)
	case vInt64:
		w.out = strconv.AppendInt(w.out, int64(binary.LittleEndian.Uint64(b)), 10)
	case vDouble:
		w.double(math.Float64frombits(binary.LittleEndian.Uint64(b)))
	case vFloat:
		w.double(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))))
	case vDecimal4, vDecimal8, vDecimal16:
		scale := b[0]
		if scale > 38 {
			return fmt.Errorf("a decimal of scale %d (at most 38)", scale)
		}
		var hi, lo uint64
		switch t {
		case vDecimal4:
			x := int64(int32(binary.LittleEndian.Uint32(b[1:])))
			lo, hi = uint64(x), uint64(x>>63)
		case vDecimal8:
			x := int64(binary.LittleEndian.Uint64(b[1:]))
			lo, hi = uint64(x), uint64(x>>63)
		default:
			lo, hi = binary.LittleEndian.Uint64(b[1:]), binary.LittleEndian.Uint64(b[9:])
		}
		w.decimal(hi, lo, int(scale))
	case vDate:
		w.date(int32(binary.LittleEndian.Uint32(b)))
	case vTimestamp, vTimestampNT, vTimestampNs, vTimestampNN:
		x := int64(binary.LittleEndian.Uint64(b))
		nanos := t == vTimestampNs || t == vTimestampNN
		w.timestamp(x, nanos, t == vTimestamp || t == vTimestampNs)
	case vTimeNTZ:
		return w.timeOfDay(int64(binary.LittleEndian.Uint64(b)))
	case vBinary, vString:
		n := uint64(binary.LittleEndian.Uint32(b))
		if n > uint64(len(b)-4) {
			what := "string"
			if t == vBinary {
				what = "binary"
			}
			return fmt.Errorf("a %s of %d bytes in %d", what, n, len(b)-4)
		}
		if t == vBinary {
			w.blob(b[4 : 4+n])
			return nil
		}
		return w.str(b[4 : 4+n])
	case vUUID:
		w.uuid(b[:16])
	default:
		return fmt.Errorf("primitive type %d, which Variant version 1 does not define", t)
	}
	return nil
}

// container reads the header of an object or array at v: the number of
// its elements n and the sizes of its field ids and offsets, and returns
// where its ids, offsets and values start.
func container(v []byte, object bool) (n, idSize, offSize, ids, offs, data int, err error) {
	h := v[0] >> 2
	offSize = int(h&3) + 1
	large := h&4 != 0
	if object {
		idSize = int(h>>2&3) + 1
		large = h&16 != 0
	}
	nSize := 1
	if large {
		nSize = 4
	}
	what := "an array"
	if object {
		what = "an object"
	}
	if len(v) < 1+nSize {
		return 0, 0, 0, 0, 0, 0, fmt.Errorf("%s of %d bytes, too short for its header", what, len(v))
	}
	count := readUint(v[1:], nSize)
	ids = 1 + nSize
	per := uint64(idSize + offSize)
	if rest := uint64(len(v) - ids); count > rest/per || count*per+uint64(offSize) > rest {
		return 0, 0, 0, 0, 0, 0, fmt.Errorf("%s of %d elements in %d bytes", what, count, len(v))
	}
	n = int(count)
	offs = ids + n*idSize
	data = offs + (n+1)*offSize
	return n, idSize, offSize, ids, offs, data, nil
}

// element returns the bytes of element i (from its offset to the end of
// the values) of a container whose offsets start at offs and values at
// data.
func element(v []byte, i, offSize, offs, data int) ([]byte, error) {
	off := readUint(v[offs+i*offSize:], offSize)
	if off >= uint64(len(v)-data) {
		return nil, fmt.Errorf("element %d at byte %d of %d", i, off, len(v)-data)
	}
	return v[data+int(off):], nil
}

// array writes the encoded array at v.
func (w *variantJSON) array(m *variantMeta, v []byte, depth int) error {
	if depth >= maxVariantDepth {
		return fmt.Errorf("arrays and objects nested deeper than %d", maxVariantDepth)
	}
	n, _, offSize, _, offs, data, err := container(v, false)
	if err != nil {
		return err
	}
	if last := readUint(v[offs+n*offSize:], offSize); last > uint64(len(v)-data) {
		return fmt.Errorf("an array whose values end at byte %d of %d", last, len(v)-data)
	}
	w.out = append(w.out, '[')
	for i := range n {
		if i > 0 {
			w.out = append(w.out, ',')
		}
		e, err := element(v, i, offSize, offs, data)
		if err != nil {
			return fmt.Errorf("array: %w", err)
		}
		if err := w.value(m, e, depth+1); err != nil {
			return fmt.Errorf("array element %d: %w", i, err)
		}
	}
	w.out = append(w.out, ']')
	return nil
}

// objectEntries appends the fields of the encoded object at v to es, in
// the order of their names, and returns them; two fields of one name are
// an error.
func objectEntries(m *variantMeta, v []byte, es []variantEntry) ([]variantEntry, error) {
	n, idSize, offSize, ids, offs, data, err := container(v, true)
	if err != nil {
		return es, err
	}
	if last := readUint(v[offs+n*offSize:], offSize); last > uint64(len(v)-data) {
		return es, fmt.Errorf("an object whose values end at byte %d of %d", last, len(v)-data)
	}
	sorted := true
	for i := range n {
		k, err := m.key(readUint(v[ids+i*idSize:], idSize))
		if err != nil {
			return es, fmt.Errorf("object field %d: %w", i, err)
		}
		e, err := element(v, i, offSize, offs, data)
		if err != nil {
			return es, fmt.Errorf("object: %w", err)
		}
		if len(es) > 0 && bytes.Compare(es[len(es)-1].key, k) >= 0 {
			sorted = false
		}
		es = append(es, variantEntry{key: k, value: e, field: -1})
	}
	if !sorted {
		// The format orders fields by name; a writer that did not is
		// read in that order all the same.
		slices.SortStableFunc(es, func(a, b variantEntry) int { return bytes.Compare(a.key, b.key) })
	}
	for i := 1; i < len(es); i++ {
		if bytes.Equal(es[i-1].key, es[i].key) {
			return es, fmt.Errorf("object: two fields named %q", es[i].key)
		}
	}
	return es, nil
}

// object writes the encoded object at v.
func (w *variantJSON) object(m *variantMeta, v []byte, depth int) error {
	if depth >= maxVariantDepth {
		return fmt.Errorf("arrays and objects nested deeper than %d", maxVariantDepth)
	}
	es, err := objectEntries(m, v, w.scratch(depth))
	w.entries[depth] = es
	if err != nil {
		return err
	}
	w.out = append(w.out, '{')
	for i, e := range es {
		if i > 0 {
			w.out = append(w.out, ',')
		}
		if err := w.str(e.key); err != nil {
			return err
		}
		w.out = append(w.out, ':')
		if err := w.value(m, e.value, depth+1); err != nil {
			return fmt.Errorf("object field %q: %w", e.key, err)
		}
	}
	w.out = append(w.out, '}')
	return nil
}

// str writes s, which must be UTF-8, as a JSON string.
func (w *variantJSON) str(s []byte) error {
	if !utf8.Valid(s) {
		return errors.New("a string that is not UTF-8")
	}
	w.out = appendJSONString(w.out, s)
	return nil
}

// strText is str of a Go string (no copy of it).
func (w *variantJSON) strText(s string) error {
	if !utf8.ValidString(s) {
		return errors.New("a string that is not UTF-8")
	}
	w.out = appendJSONString(w.out, s)
	return nil
}

// appendJSONString appends UTF-8 s as a JSON string: quotes, backslashes
// and control characters escaped (as \n, \t... or \u00XX), the rest as
// it is.
func appendJSONString[T string | []byte](out []byte, s T) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		out = append(out, s[start:i]...)
		switch c {
		case '"', '\\':
			out = append(out, '\\', c)
		case '\n':
			out = append(out, '\\', 'n')
		case '\r':
			out = append(out, '\\', 'r')
		case '\t':
			out = append(out, '\\', 't')
		case '\b':
			out = append(out, '\\', 'b')
		case '\f':
			out = append(out, '\\', 'f')
		default:
			out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		}
		start = i + 1
	}
	out = append(out, s[start:]...)
	return append(out, '"')
}

// blob writes binary b as DuckDB writes a BLOB as text, in a JSON
// string: printable ASCII but for the backslash and quotes as it is,
// every other byte as \xHH.
func (w *variantJSON) blob(b []byte) {
	const hex = "0123456789ABCDEF"
	w.out = append(w.out, '"')
	for _, c := range b {
		if c >= 0x20 && c <= 0x7e && c != '\\' && c != '"' && c != '\'' {
			w.out = append(w.out, c)
			continue
		}
		// The backslash of \xHH, escaped for JSON.
		w.out = append(w.out, '\\', '\\', 'x', hex[c>>4], hex[c&15])
	}
	w.out = append(w.out, '"')
}

// double writes f as DuckDB's JSON does: the shortest digits that read
// back as f, in plain notation from 1e-6 to below 1e21 (with ".0" when
// whole) and in exponent notation outside it; NaN and the infinities,
// which JSON has no number for, as the strings "NaN", "Infinity" and
// "-Infinity".
func (w *variantJSON) double(f float64) {
	switch {
	case math.IsNaN(f):
		w.out = append(w.out, `"NaN"`...)
		return
	case math.IsInf(f, 1):
		w.out = append(w.out, `"Infinity"`...)
		return
	case math.IsInf(f, -1):
		w.out = append(w.out, `"-Infinity"`...)
		return
	}
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		start := len(w.out)
		w.out = strconv.AppendFloat(w.out, f, 'e', -1, 64)
		// Go writes e+21 and e-07; DuckDB e21 and e-7.
		e := bytes.IndexByte(w.out[start:], 'e') + start + 1
		j := e
		if w.out[j] == '-' {
			j++
		}
		k := j
		for k < len(w.out)-1 && (w.out[k] == '+' || w.out[k] == '0') {
			k++
		}
		if w.out[e] == '+' {
			j = e
		}
		w.out = append(w.out[:j], w.out[k:]...)
		return
	}
	start := len(w.out)
	w.out = strconv.AppendFloat(w.out, f, 'f', -1, 64)
	if bytes.IndexByte(w.out[start:], '.') < 0 {
		w.out = append(w.out, '.', '0')
	}
}

// decimal writes the 128-bit two's complement unscaled value hi:lo with
// scale digits after the point, all of them (DuckDB keeps 1.50).
func (w *variantJSON) decimal(hi, lo uint64, scale int) {
	if int64(hi) < 0 {
		w.out = append(w.out, '-')
		lo, hi = ^lo+1, ^hi
		if lo == 0 {
			hi++
		}
	}
	var digits [64]byte
	i := len(digits)
	for hi != 0 || lo != 0 {
		// Divide hi:lo by 10^19, writing the remainder's 19 digits.
		var r uint64
		hi, r = bits.Div64(0, hi, 1e19)
		lo, r = bits.Div64(r, lo, 1e19)
		for range 19 {
			i--
			digits[i] = byte('0' + r%10)
			r /= 10
		}
	}
	for i < len(digits) && digits[i] == '0' {
		i++
	}
	d := digits[i:]
	if len(d) <= scale {
		// 0.05 for 5 of scale 2.
		w.out = append(w.out, '0')
		if scale > 0 {
			w.out = append(w.out, '.')
			for range scale - len(d) {
				w.out = append(w.out, '0')
			}
		}
		w.out = append(w.out, d...)
		return
	}
	w.out = append(w.out, d[:len(d)-scale]...)
	if scale > 0 {
		w.out = append(w.out, '.')
		w.out = append(w.out, d[len(d)-scale:]...)
	}
}

// date writes days since 1970-01-01 as DuckDB writes a DATE, in a JSON
// string: 2024-11-07, 0044-03-15 (BC), and infinity and -infinity for
// the largest and the smallest but one int32.
func (w *variantJSON) date(days int32) {
	switch days {
	case math.MaxInt32:
		w.out = append(w.out, `"infinity"`...)
		return
	case -math.MaxInt32:
		w.out = append(w.out, `"-infinity"`...)
		return
	}
	w.out = append(w.out, '"')
	t := time.Unix(int64(days)*86400, 0).UTC()
	w.civil(t)
	w.out = append(w.out, '"')
}

// civil writes t's date, with (BC) after years before 1.
func (w *variantJSON) civil(t time.Time) {
	y, mo, d := t.Date()
	bc := y <= 0
	if bc {
		y = 1 - y
	}
	w.pad(int64(y), 4)
	w.out = append(w.out, '-')
	w.pad(int64(mo), 2)
	w.out = append(w.out, '-')
	w.pad(int64(d), 2)
	if bc {
		w.out = append(w.out, " (BC)"...)
	}
}

// pad writes x (not negative) in at least n digits.
func (w *variantJSON) pad(x int64, n int) {
	var b [20]byte
	s := strconv.AppendInt(b[:0], x, 10)
	for range n - len(s) {
		w.out = append(w.out, '0')
	}
	w.out = append(w.out, s...)
}

// clock writes hours, minutes, seconds and the fraction of nanos (at
// most 9 digits) without its trailing zeros, as DuckDB writes times.
func (w *variantJSON) clock(h, m, s int, nanos int64, digits int) {
	w.pad(int64(h), 2)
	w.out = append(w.out, ':')
	w.pad(int64(m), 2)
	w.out = append(w.out, ':')
	w.pad(int64(s), 2)
	if nanos == 0 {
		return
	}
	var b [9]byte
	for i := digits - 1; i >= 0; i-- {
		b[i] = byte('0' + nanos%10)
		nanos /= 10
	}
	n := digits
	for n > 0 && b[n-1] == '0' {
		n--
	}
	w.out = append(w.out, '.')
	w.out = append(w.out, b[:n]...)
}

// timestamp writes x, microseconds (or nanoseconds) since the epoch, as
// DuckDB writes a TIMESTAMP (2024-11-07 12:33:54.123456) or, utc, a
// TIMESTAMPTZ in UTC (with +00), in a JSON string. Nanoseconds are all
// kept (DuckDB's TIMESTAMPTZ keeps microseconds).
func (w *variantJSON) timestamp(x int64, nanos, utc bool) {
	if !nanos {
		switch x {
		case math.MaxInt64:
			w.out = append(w.out, `"infinity"`...)
			return
		case -math.MaxInt64:
			w.out = append(w.out, `"-infinity"`...)
			return
		}
	}
	per, digits := int64(1e6), 6
	if nanos {
		per, digits = 1e9, 9
	}
	sec, frac := x/per, x%per
	if frac < 0 {
		sec, frac = sec-1, frac+per
	}
	t := time.Unix(sec, 0).UTC()
	w.out = append(w.out, '"')
	w.civil(t)
	w.out = append(w.out, ' ')
	h, m, s := t.Clock()
	w.clock(h, m, s, frac, digits)
	if utc {
		w.out = append(w.out, "+00"...)
	}
	w.out = append(w.out, '"')
}

// timeOfDay writes micros since midnight as DuckDB writes a TIME.
func (w *variantJSON) timeOfDay(micros int64) error {
	if micros < 0 || micros > 86400e6 {
		return fmt.Errorf("a time of %d microseconds, not within a day", micros)
	}
	sec := micros / 1e6
	w.out = append(w.out, '"')
	w.clock(int(sec/3600), int(sec/60%60), int(sec%60), micros%1e6, 6)
	w.out = append(w.out, '"')
	return nil
}

// uuid writes 16 big-endian bytes as a UUID's text.
func (w *variantJSON) uuid(b []byte) {
	const hex = "0123456789abcdef"
	w.out = append(w.out, '"')
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			w.out = append(w.out, '-')
		}
		w.out = append(w.out, hex[c>>4], hex[c&15])
	}
	w.out = append(w.out, '"')
}
