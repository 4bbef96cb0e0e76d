package trevniparquet

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// variantEncoder encodes JSON text as an unshredded Variant
// (parquet-format's VariantEncoding.md): the metadata (a dictionary of
// the object keys, in the order they first appear, marked sorted when
// they happen to be) and the value. JSON's types map to Variant types:
// null, true and false to themselves; an integer to the narrowest of
// int8 to int64 that holds it, a decimal16 of scale 0 past int64 (up to
// 38 digits); a number with a fraction and no exponent to the double
// whose shortest digits it is (a double as the reader writes it: 14.3,
// 1.0), else to a decimal4, 8 or 16 of its digits (exact: 1.50, 0.9560,
// 0.1000000000000000000001); a number with an exponent, or of more than
// 38 digits, to a double; a
// string to a string (a short string under 64 bytes); an array and an
// object to themselves, the object's fields in the order of their
// names. One encoder serves every value of a column: once its buffers
// have grown, it allocates nothing a value.
type variantEncoder struct {
	in     string
	pos    int
	value  []byte
	meta   []byte
	keys   []byte         // the dictionary's strings, back to back
	ends   []int          // each key's end in keys
	table  []int32        // the keys by hash (open addressing): id+1, 0 free
	used   []int          // the slots of table in use
	fields []variantField // the fields of the objects being encoded
	elems  []int          // the element offsets of the arrays being encoded
	str    []byte         // a string unescaped
	num    []byte         // a double's shortest digits
}

// variantField is a field of an object being encoded: its key's id and
// the offset of its value from the object's first value.
type variantField struct {
	id, off int
}

// variantTextError is JSON text that is not a value a Variant holds: at
// is the byte of the text where it goes wrong.
type variantTextError struct {
	at  int
	err string
}

func (e *variantTextError) Error() string {
	return fmt.Sprintf("not JSON text at byte %d: %s", e.at, e.err)
}

// errVariantTooLarge is a Variant whose offsets would pass 4 GiB.
var errVariantTooLarge = errors.New("a Variant value of 4 GiB or more")

// encode returns the Variant of JSON text in: its metadata and value, in
// the encoder's memory (valid until the next call).
func (e *variantEncoder) encode(in string) (meta, value []byte, err error) {
	e.in, e.pos = in, 0
	e.value, e.meta, e.keys, e.ends = e.value[:0], e.meta[:0], e.keys[:0], e.ends[:0]
	e.fields, e.elems = e.fields[:0], e.elems[:0]
	for _, s := range e.used {
		e.table[s] = 0
	}
	e.used = e.used[:0]
	e.space()
	if err := e.val(0); err != nil {
		return nil, nil, err
	}
	e.space()
	if e.pos != len(e.in) {
		return nil, nil, e.fail("text after the value")
	}
	if err := e.writeMeta(); err != nil {
		return nil, nil, err
	}
	return e.meta, e.value, nil
}

func (e *variantEncoder) fail(msg string) error { return &variantTextError{at: e.pos, err: msg} }

// space skips JSON white space.
func (e *variantEncoder) space() {
	for e.pos < len(e.in) {
		switch e.in[e.pos] {
		case ' ', '\t', '\n', '\r':
			e.pos++
		default:
			return
		}
	}
}

// val encodes the value at e.pos.
func (e *variantEncoder) val(depth int) error {
	if depth > maxVariantDepth {
		return e.fail(fmt.Sprintf("nested deeper than %d", maxVariantDepth))
	}
	if e.pos >= len(e.in) {
		return e.fail("the text ends where a value should be")
	}
	switch c := e.in[e.pos]; {
	case c == '{':
		return e.object(depth)
	case c == '[':
		return e.array(depth)
	case c == '"':
		s, err := e.string()
		if err != nil {
			return err
		}
		e.appendString(s)
		return nil
	case c == 't':
		return e.literal("true", 1<<2)
	case c == 'f':
		return e.literal("false", 2<<2)
	case c == 'n':
		return e.literal("null", 0)
	case c == '-' || c >= '0' && c <= '9':
		return e.number()
	default:
		return e.fail(fmt.Sprintf("%q where a value should be", c))
	}
}

// literal encodes the literal word as the one byte b.
func (e *variantEncoder) literal(word string, b byte) error {
	if len(e.in)-e.pos < len(word) || e.in[e.pos:e.pos+len(word)] != word {
		return e.fail("not a JSON value")
	}
	e.pos += len(word)
	e.value = append(e.value, b)
	return nil
}

// Variant primitive type ids (the value header of basic type 0).
const (
	variantInt8      = 3
	variantInt16     = 4
	variantInt32     = 5
	variantInt64     = 6
	variantDouble    = 7
	variantDecimal4  = 8
	variantDecimal8  = 9
	variantDecimal16 = 10
	variantString    = 16
)

// number encodes the number at e.pos.
func (e *variantEncoder) number() error {
	start := e.pos
	neg := e.in[e.pos] == '-'
	if neg {
		e.pos++
	}
	intStart := e.pos
	if !e.digits() {
		return e.fail("a number without digits")
	}
	if e.in[intStart] == '0' && e.pos-intStart > 1 {
		return &variantTextError{at: intStart, err: "a number with a leading zero"}
	}
	intEnd, fracEnd := e.pos, e.pos
	if e.pos < len(e.in) && e.in[e.pos] == '.' {
		e.pos++
		if !e.digits() {
			return e.fail("a fraction without digits")
		}
		fracEnd = e.pos
	}
	exp := false
	if e.pos < len(e.in) && (e.in[e.pos] == 'e' || e.in[e.pos] == 'E') {
		exp = true
		e.pos++
		if e.pos < len(e.in) && (e.in[e.pos] == '+' || e.in[e.pos] == '-') {
			e.pos++
		}
		if !e.digits() {
			return e.fail("an exponent without digits")
		}
	}
	text := e.in[start:e.pos]
	if !exp && fracEnd == intEnd {
		if x, err := strconv.ParseInt(text, 10, 64); err == nil {
			e.appendInt(x)
			return nil
		}
	}
	if !exp {
		// A double whose shortest digits are the text (as the reader
		// writes a double) is that double.
		if f, err := strconv.ParseFloat(text, 64); err == nil {
			e.num = strconv.AppendFloat(e.num[:0], f, 'f', -1, 64)
			if n := len(e.num); len(text) == n+2 && text[n:] == ".0" && text[:n] == string(e.num) || text == string(e.num) {
				e.value = append(e.value, variantDouble<<2)
				e.value = appendLE(e.value, math.Float64bits(f), 8)
				return nil
			}
		}
		// The digits as an unscaled decimal, if 38 of them hold it.
		var hi, lo uint64
		n, scale := 0, max(0, fracEnd-intEnd-1)
		for i := intStart; i < fracEnd; i++ {
			c := e.in[i]
			if c == '.' {
				continue
			}
			if n == 0 && c == '0' {
				continue // leading zeros are no precision
			}
			n++
			h1, l := bits.Mul64(lo, 10)
			l, carry := bits.Add64(l, uint64(c-'0'), 0)
			hi, lo = hi*10+h1+carry, l
		}
		zero := hi == 0 && lo == 0
		if n <= 38 && scale <= 38 && !(neg && zero) {
			if neg {
				lo, hi = -lo, ^hi
				if lo == 0 {
					hi++
				}
			}
			e.appendDecimal(hi, lo, n, scale)
			return nil
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return &variantTextError{at: start, err: fmt.Sprintf("the number %.40s is beyond a double's range", text)}
	}
	e.value = append(e.value, variantDouble<<2)
	e.value = appendLE(e.value, math.Float64bits(f), 8)
	return nil
}

// digits skips the digits at e.pos and says whether there was one.
func (e *variantEncoder) digits() bool {
	start := e.pos
	for e.pos < len(e.in) && e.in[e.pos] >= '0' && e.in[e.pos] <= '9' {
		e.pos++
	}
	return e.pos > start
}

// appendInt encodes x as the narrowest Variant integer holding it.
func (e *variantEncoder) appendInt(x int64) {
	switch {
	case x >= math.MinInt8 && x <= math.MaxInt8:
		e.value = append(e.value, variantInt8<<2, byte(x))
	case x >= math.MinInt16 && x <= math.MaxInt16:
		e.value = appendLE(append(e.value, variantInt16<<2), uint64(x), 2)
	case x >= math.MinInt32 && x <= math.MaxInt32:
		e.value = appendLE(append(e.value, variantInt32<<2), uint64(x), 4)
	default:
		e.value = appendLE(append(e.value, variantInt64<<2), uint64(x), 8)
	}
}

// appendDecimal encodes the decimal of two's complement unscaled value
// hi:lo, of precision digits, and scale.
func (e *variantEncoder) appendDecimal(hi, lo uint64, precision, scale int) {
	switch {
	case precision <= 9:
		e.value = appendLE(append(e.value, variantDecimal4<<2, byte(scale)), lo, 4)
	case precision <= 18:
		e.value = appendLE(append(e.value, variantDecimal8<<2, byte(scale)), lo, 8)
	default:
		e.value = appendLE(appendLE(append(e.value, variantDecimal16<<2, byte(scale)), lo, 8), hi, 8)
	}
}

// appendString encodes s, a short string under 64 bytes.
func (e *variantEncoder) appendString(s []byte) {
	if len(s) < 64 {
		e.value = append(e.value, byte(len(s))<<2|1)
	} else {
		e.value = appendLE(append(e.value, variantString<<2), uint64(len(s)), 4)
	}
	e.value = append(e.value, s...)
}

// string reads the JSON string at e.pos into e.str, unescaped.
func (e *variantEncoder) string() ([]byte, error) {
	e.pos++ // the quote
	e.str = e.str[:0]
	for {
		start := e.pos
		for e.pos < len(e.in) && e.in[e.pos] != '"' && e.in[e.pos] != '\\' && e.in[e.pos] >= 0x20 {
			e.pos++
		}
		e.str = append(e.str, e.in[start:e.pos]...)
		if e.pos >= len(e.in) {
			return nil, e.fail("a string without its closing quote")
		}
		switch c := e.in[e.pos]; {
		case c == '"':
			e.pos++
			if !utf8.Valid(e.str) {
				return nil, e.fail("a string that is not UTF-8")
			}
			return e.str, nil
		case c < 0x20:
			return nil, e.fail("a control character in a string")
		}
		// An escape.
		if e.pos+1 >= len(e.in) {
			return nil, e.fail("a string without its closing quote")
		}
		c := e.in[e.pos+1]
		e.pos += 2
		switch c {
		case '"', '\\', '/':
			e.str = append(e.str, c)
		case 'b':
			e.str = append(e.str, '\b')
		case 'f':
			e.str = append(e.str, '\f')
		case 'n':
			e.str = append(e.str, '\n')
		case 'r':
			e.str = append(e.str, '\r')
		case 't':
			e.str = append(e.str, '\t')
		case 'u':
			r, ok := e.hex4()
			if !ok {
				return nil, e.fail(`\u without four hex digits`)
			}
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if e.pos+1 < len(e.in) && e.in[e.pos] == '\\' && e.in[e.pos+1] == 'u' {
					e.pos += 2
					r2, ok = e.hex4()
				}
				if r = utf16.DecodeRune(r, r2); !ok || r == utf8.RuneError {
					return nil, e.fail("a \\u escape of half a UTF-16 surrogate pair")
				}
			}
			e.str = utf8.AppendRune(e.str, r)
		default:
			e.pos -= 2
			return nil, e.fail(fmt.Sprintf("the escape \\%c", c))
		}
	}
}

// hex4 reads four hex digits at e.pos.
func (e *variantEncoder) hex4() (rune, bool) {
	if len(e.in)-e.pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range []byte(e.in[e.pos : e.pos+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	e.pos += 4
	return r, true
}

// object encodes the object at e.pos: its values in the text's order,
// then the header (ids and offsets in the order of the names) put before
// them.
func (e *variantEncoder) object(depth int) error {
	at := e.pos
	e.pos++
	base, start := len(e.fields), len(e.value)
	e.space()
	if e.pos < len(e.in) && e.in[e.pos] == '}' {
		e.pos++
	} else {
		for {
			if e.pos >= len(e.in) || e.in[e.pos] != '"' {
				return e.fail("an object key that is not a string")
			}
			key, err := e.string()
			if err != nil {
				return err
			}
			id := e.keyID(key)
			e.space()
			if e.pos >= len(e.in) || e.in[e.pos] != ':' {
				return e.fail("an object key without its colon")
			}
			e.pos++
			e.space()
			e.fields = append(e.fields, variantField{id: id, off: len(e.value) - start})
			if err := e.val(depth + 1); err != nil {
				return err
			}
			if done, err := e.next('}', "an object without , or } after a value"); done || err != nil {
				if err != nil {
					return err
				}
				break
			}
		}
	}
	fs := e.fields[base:]
	slices.SortFunc(fs, func(a, b variantField) int { return bytes.Compare(e.key(a.id), e.key(b.id)) })
	maxID := 0
	for i, f := range fs {
		if i > 0 && fs[i-1].id == f.id {
			return &variantTextError{at: at, err: fmt.Sprintf("an object with the key %q twice", e.key(f.id))}
		}
		maxID = max(maxID, f.id)
	}
	size := len(e.value) - start
	if size > math.MaxUint32 {
		return errVariantTooLarge
	}
	off, id, large := width(size), width(maxID), len(fs) > 255
	hdr := 1 + 1 + len(fs)*id + (len(fs)+1)*off
	if large {
		hdr += 3
	}
	h := e.open(start, hdr)
	h = append(h, byte(2|(off-1)<<2|(id-1)<<4|b2i(large)<<6))
	h = appendCount(h, len(fs), large)
	for _, f := range fs {
		h = appendLE(h, uint64(f.id), id)
	}
	for _, f := range fs {
		h = appendLE(h, uint64(f.off), off)
	}
	appendLE(h, uint64(size), off)
	e.fields = e.fields[:base]
	return nil
}

// array encodes the array at e.pos.
func (e *variantEncoder) array(depth int) error {
	e.pos++
	base, start := len(e.elems), len(e.value)
	e.space()
	if e.pos < len(e.in) && e.in[e.pos] == ']' {
		e.pos++
	} else {
		for {
			e.elems = append(e.elems, len(e.value)-start)
			if err := e.val(depth + 1); err != nil {
				return err
			}
			if done, err := e.next(']', "an array without , or ] after a value"); done || err != nil {
				if err != nil {
					return err
				}
				break
			}
		}
	}
	es := e.elems[base:]
	size := len(e.value) - start
	if size > math.MaxUint32 {
		return errVariantTooLarge
	}
	off, large := width(size), len(es) > 255
	hdr := 1 + 1 + (len(es)+1)*off
	if large {
		hdr += 3
	}
	h := e.open(start, hdr)
	h = append(h, byte(3|(off-1)<<2|b2i(large)<<4))
	h = appendCount(h, len(es), large)
	for _, o := range es {
		h = appendLE(h, uint64(o), off)
	}
	appendLE(h, uint64(size), off)
	e.elems = e.elems[:base]
	return nil
}

// next reads what follows a value in an object or array: a comma (more
// follow) or the closing byte (done); else the error what.
func (e *variantEncoder) next(closing byte, what string) (done bool, err error) {
	e.space()
	switch {
	case e.pos < len(e.in) && e.in[e.pos] == ',':
		e.pos++
		e.space()
		return false, nil
	case e.pos < len(e.in) && e.in[e.pos] == closing:
		e.pos++
		return true, nil
	}
	return false, e.fail(what)
}

// open makes room for n bytes of header at start of e.value, moving the
// bytes after it, and returns the room as an empty slice to append to.
func (e *variantEncoder) open(start, n int) []byte {
	end := len(e.value)
	e.value = slices.Grow(e.value, n)[:end+n]
	copy(e.value[start+n:], e.value[start:end])
	return e.value[start : start : start+n]
}

// key returns the key of id.
func (e *variantEncoder) key(id int) []byte {
	from := 0
	if id > 0 {
		from = e.ends[id-1]
	}
	return e.keys[from:e.ends[id]]
}

// keyID returns the dictionary id of key, added if new.
func (e *variantEncoder) keyID(key []byte) int {
	if 2*(len(e.ends)+1) > len(e.table) {
		e.rehash(max(16, 4*(len(e.ends)+1)))
	}
	mask := len(e.table) - 1
	slot := int(keyHash(key)) & mask
	for e.table[slot] != 0 {
		id := int(e.table[slot] - 1)
		if bytes.Equal(e.key(id), key) {
			return id
		}
		slot = (slot + 1) & mask
	}
	id := len(e.ends)
	e.keys = append(e.keys, key...)
	e.ends = append(e.ends, len(e.keys))
	e.table[slot] = int32(id + 1)
	e.used = append(e.used, slot)
	return id
}

// rehash makes the table n slots (a power of two) of the keys so far.
func (e *variantEncoder) rehash(n int) {
	n = 1 << bits.Len(uint(n-1))
	e.table = make([]int32, n)
	e.used = e.used[:0]
	for id := range e.ends {
		slot := int(keyHash(e.key(id))) & (n - 1)
		for e.table[slot] != 0 {
			slot = (slot + 1) & (n - 1)
		}
		e.table[slot] = int32(id + 1)
		e.used = append(e.used, slot)
	}
}

// keyHash is FNV-1a.
func keyHash(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}

// writeMeta writes the metadata of the keys met: version 1, sorted when
// they are in order.
func (e *variantEncoder) writeMeta() error {
	n := len(e.ends)
	if len(e.keys) > math.MaxUint32 {
		return errVariantTooLarge
	}
	sorted := true
	for id := 1; id < n && sorted; id++ {
		sorted = bytes.Compare(e.key(id-1), e.key(id)) < 0
	}
	off := width(max(n, len(e.keys)))
	e.meta = append(e.meta, byte(1|b2i(sorted)<<4|(off-1)<<6))
	e.meta = appendLE(e.meta, uint64(n), off)
	e.meta = appendLE(e.meta, 0, off)
	for _, end := range e.ends {
		e.meta = appendLE(e.meta, uint64(end), off)
	}
	e.meta = append(e.meta, e.keys...)
	return nil
}

// width returns the bytes of the narrowest unsigned little-endian field
// holding x.
func width(x int) int {
	switch {
	case x < 1<<8:
		return 1
	case x < 1<<16:
		return 2
	case x < 1<<24:
		return 3
	}
	return 4
}

// appendCount appends an object's or array's number of elements: 4 bytes
// when large, else 1.
func appendCount(b []byte, n int, large bool) []byte {
	if large {
		return appendLE(b, uint64(n), 4)
	}
	return append(b, byte(n))
}

// appendLE appends the n low bytes of x, little-endian.
func appendLE(b []byte, x uint64, n int) []byte {
	for i := range n {
		b = append(b, byte(x>>(8*i)))
	}
	return b
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
