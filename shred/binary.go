package shred

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/trevni-go/trevni/internal/avrobin"
	"github.com/trevni-go/trevni/internal/fieldpath"
	"github.com/trevni-go/trevni/internal/ocf"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

// ErrBinary reports Avro binary data that does not decode with the schema.
var ErrBinary = errors.New("invalid Avro binary data")

// MaxEmptyItems bounds the array items of one record that take no bytes in
// Avro's binary encoding (nulls, records of nulls), which the record's
// length cannot bound: a few bytes can claim 2^62 of them. Other counts
// are bounded by the bytes left, since each item takes at least one.
const MaxEmptyItems = 1 << 24

// decoder reads Avro binary data.
type decoder struct {
	b     []byte
	pos   int
	empty int64 // array items of no bytes decoded so far (MaxEmptyItems)
}

func (d *decoder) errorf(format string, args ...any) error {
	return fieldpath.New(fmt.Errorf("%w at byte %d: %s", ErrBinary, d.pos, fmt.Sprintf(format, args...)))
}

// long reads a long. Most longs in real data (lengths, counts, small
// numbers) take one byte: that case needs no call.
func (d *decoder) long() (int64, error) {
	if d.pos < len(d.b) {
		if c := d.b[d.pos]; c < 0x80 {
			d.pos++
			return avrobin.DecodeZigZag(uint64(c)), nil
		}
	}
	v, n := avrobin.ConsumeLong(d.b[d.pos:])
	if n < 0 {
		return 0, d.fail(n)
	}
	d.pos += n
	return v, nil
}

// smallLong is long for a long of one byte, small enough to be inlined:
// ok is false for any other, which the caller then reads with long.
func (d *decoder) smallLong() (v int64, ok bool) {
	if p := d.pos; p < len(d.b) {
		if c := d.b[p]; c < 0x80 {
			d.pos = p + 1
			return avrobin.DecodeZigZag(uint64(c)), true
		}
	}
	return 0, false
}

// smallBytes is bytes for a length of one byte, the most common, small
// enough to be inlined: ok is false for any other length, and for one
// past the data's end, which the caller then reads with bytes.
func (d *decoder) smallBytes() (b []byte, ok bool) {
	if p := d.pos; p < len(d.b) {
		// One byte, and even: a zig-zag length of 0 to 63.
		if c := d.b[p]; c&0x81 == 0 && int(c>>1) < len(d.b)-p {
			p++
			end := p + int(c>>1)
			d.pos = end
			return d.b[p:end:end], true
		}
	}
	return nil, false
}

// smallBranch is branch for a branch number of one byte below n, the
// number of branches: small enough to be inlined; ok is false otherwise,
// and the caller then reads it with branch.
func (d *decoder) smallBranch(n int) (b int, ok bool) {
	if p := d.pos; p < len(d.b) {
		if c := d.b[p]; c&0x81 == 0 && int(c>>1) < n {
			d.pos = p + 1
			return int(c >> 1), true
		}
	}
	return 0, false
}

// smallCount is block for a count of one byte that the bytes left can
// hold, small enough to be inlined: ok is false otherwise (a count of
// items of no bytes among them), and the caller then reads it with block.
func (d *decoder) smallCount(minSize int) (c int64, ok bool) {
	if p := d.pos; p < len(d.b) {
		if b := d.b[p]; b&0x81 == 0 {
			if n := int(b >> 1); n == 0 || minSize > 0 && n*minSize <= len(d.b)-p-1 {
				d.pos = p + 1
				return int64(n), true
			}
		}
	}
	return 0, false
}

// fail returns the error of avrobin's error code n, at d.pos.
func (d *decoder) fail(n int) error {
	return fieldpath.New(fmt.Errorf("%w at byte %d: %w", ErrBinary, d.pos, avrobin.ParseError(n)))
}

// skipVarint passes over a varint without decoding it.
func (d *decoder) skipVarint() error {
	if d.pos < len(d.b) && d.b[d.pos] < 0x80 {
		d.pos++
		return nil
	}
	n := avrobin.SkipLong(d.b[d.pos:])
	if n < 0 {
		return d.fail(n)
	}
	d.pos += n
	return nil
}

func (d *decoder) int() (int32, error) {
	v, err := d.long()
	if err != nil {
		return 0, err
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, d.errorf("int %d out of range", v)
	}
	return int32(v), nil
}

// take returns the next n bytes, aliasing the data.
func (d *decoder) take(n int) ([]byte, error) {
	if b, ok := d.next(n); ok {
		return b, nil
	}
	return nil, d.short(n)
}

// next is take without the error, small enough to be inlined where every
// value passes (the caller makes the error with short).
func (d *decoder) next(n int) ([]byte, bool) {
	p := d.pos
	if uint(n) > uint(len(d.b)-p) {
		return nil, false
	}
	d.pos = p + n
	return d.b[p : p+n : p+n], true
}

func (d *decoder) short(n int) error {
	return d.errorf("%d bytes wanted, %d left", n, len(d.b)-d.pos)
}

// bytes reads a length and that many bytes. Most lengths take one byte:
// that case needs no call.
func (d *decoder) bytes() ([]byte, error) {
	if p := d.pos; p < len(d.b) && d.b[p] < 0x80 {
		if l := int(avrobin.DecodeZigZag(uint64(d.b[p]))); l >= 0 && l < len(d.b)-p {
			p++
			d.pos = p + l
			return d.b[p : p+l : p+l], nil
		}
	}
	b, n := avrobin.ConsumeBytes(d.b[d.pos:])
	if n < 0 {
		return nil, d.fail(n)
	}
	d.pos += n
	return b, nil
}

// block reads the item count of the next block of an array or map whose
// items take at least minSize bytes each (avrobin.ConsumeBlockCount; a
// count of one byte, the most common, needs no call). A
// count that the bytes left cannot hold is an error, before anything is
// allocated or looped over; items of no bytes count against MaxEmptyItems.
func (d *decoder) block(minSize int) (int64, error) {
	c, n := int64(-1), 1
	if p := d.pos; p < len(d.b) && d.b[p] < 0x80 {
		c = avrobin.DecodeZigZag(uint64(d.b[p]))
	}
	if c < 0 { // more than one byte, or a negative count and its size
		if c, n = avrobin.ConsumeBlockCount(d.b[d.pos:]); n < 0 {
			return 0, d.fail(n)
		}
	}
	d.pos += n
	if c == 0 || minSize > 0 && c <= int64(len(d.b)-d.pos)/int64(minSize) {
		return c, nil
	}
	if minSize > 0 {
		return 0, d.errorf("block count %d out of range", c)
	}
	if c > MaxEmptyItems-d.empty {
		return 0, d.errorf("block count %d: more than %d items of no bytes in the record", c, MaxEmptyItems)
	}
	d.empty += c
	return c, nil
}

// branch reads the branch number of a value of union n.
func (d *decoder) branch(n *layout.Node) (int, error) {
	b, err := d.long()
	if err != nil {
		return 0, err
	}
	if b < 0 || b >= int64(len(n.Branches)) {
		return 0, d.errorf("union branch %d out of range", b)
	}
	return int(b), nil
}

// step is one step of a program that decodes a value of a layout node
// from Avro binary (compile): a simple value, or an array, map or union,
// which have programs of their own for their items or branches. A
// record's fields are the steps of their own programs laid end to end, so
// that decoding a record of simple fields makes no call per field.
type step struct {
	kind schema.Kind
	col  int
	node *layout.Node
	// in is the innermost record field the step stands in, nil at the
	// top of its program: errors are wrapped with the fields' names.
	in       *fieldIn
	items    []step   // an array's items, a map's values
	inline   bool     // an array whose items are values of its own column
	branches [][]step // a union's branches, nil for null
	// stride is, for an array whose items are floats and doubles only
	// (a float, or a record of them), the bytes an item takes; 0 for
	// any other. Such items are written a column at a time (runFixed).
	stride int
	// strings is set for an array of strings in its own column, whose
	// items are taken by one loop (runStrings).
	strings bool
}

// fieldIn is a record field on a step's path (step.in).
type fieldIn struct {
	name string
	up   *fieldIn
}

// compile returns the program that decodes a value of node n, its steps
// in the record fields in (nil at the top).
func compile(n *layout.Node, in *fieldIn) []step {
	switch n.Kind {
	case schema.Null:
		return nil
	case schema.Record:
		var p []step
		for i, f := range n.Fields {
			p = append(p, compile(f, &fieldIn{name: n.Schema.Fields[i].Name, up: in})...)
		}
		return p
	}
	s := step{kind: n.Kind, col: n.Col, node: n, in: in}
	switch n.Kind {
	case schema.Array, schema.Map:
		s.items = compile(n.Items, nil)
		s.inline = n.Kind == schema.Array && n.Items.Col == n.Col && n.Items.Kind != schema.Null
		if n.Kind == schema.Array {
			s.stride = fixedStride(s.items)
			s.strings = s.inline && len(s.items) == 1 && s.items[0].kind == schema.String
		}
	case schema.Union:
		s.branches = make([][]step, len(n.Branches))
		for i, br := range n.Branches {
			if br != nil {
				s.branches[i] = compile(br, nil)
			}
		}
	}
	return []step{s}
}

// fixedStride returns the bytes a value of program p takes when its steps
// are floats and doubles only, and 0 otherwise (or for no steps).
func fixedStride(p []step) int {
	size := 0
	for i := range p {
		switch p[i].kind {
		case schema.Float:
			size += 4
		case schema.Double:
			size += 8
		default:
			return 0
		}
	}
	return size
}

// at wraps err, met at step s, with the names of the fields s stands in.
func (s *step) at(err error) error {
	for f := s.in; f != nil; f = f.up {
		err = fieldpath.At(err, f.name)
	}
	return err
}

// WriteBinary writes one record given in Avro's binary encoding: record
// must hold exactly the one record. It is the fast path: the record is
// decoded straight into the columns, and the file is exactly what Write
// makes from the same record decoded by goavro. A record that does not
// decode is not written and gets a *schema.Error wrapping ErrBinary, naming
// the record (counted from the writer's first, 0) and the field; writing
// can go on with the next record.
func (aw *AvroWriter) WriteBinary(record []byte) error {
	_, err := aw.writeBinary(record, aw.w.RowCount(), true)
	return err
}

// WriteRecords writes count records given back to back in Avro's binary
// encoding (the records of a container block, decompressed), which data
// must hold exactly. firstRow is the number errors give the first record
// (a container's own count, say). A record that does not decode ends the
// call with its *schema.Error, the records before it written; bytes left
// after the last record are an error wrapping ErrBinary.
func (aw *AvroWriter) WriteRecords(data []byte, count, firstRow int64) error {
	for k := range count {
		n, err := aw.writeBinary(data, firstRow+k, false)
		if err != nil {
			return err
		}
		data = data[n:]
	}
	if len(data) != 0 {
		return fmt.Errorf("%w: %d bytes left after the %d records", ErrBinary, len(data), count)
	}
	return nil
}

// writeBinary writes the record at the start of data, the whole of data if
// whole is set, and returns the bytes it took. row is the record's number
// for errors.
func (aw *AvroWriter) writeBinary(data []byte, row int64, whole bool) (int, error) {
	if err := aw.w.StartRow(); err != nil {
		return 0, err
	}
	d := decoder{b: data}
	_, err := aw.run(aw.prog, &d, 0, 1)
	if err == nil && whole && d.pos != len(data) {
		err = d.errorf("%d bytes after the record", len(data)-d.pos)
	}
	if err != nil {
		aw.w.AbortRow()
		return d.pos, fieldpath.Record(err, row)
	}
	return d.pos, aw.endRecord(row)
}

// run decodes count values of program p at d, one after the other (the
// items of an array block, or one value), and writes them. It returns how
// many it decoded whole: all of them, or those before the one it returns
// the error of. As put, it follows the layout and recurses no deeper than
// the schema nests, whatever the data; depth counts the arrays and maps
// above.
func (aw *AvroWriter) run(p []step, d *decoder, depth int, count int64) (int64, error) {
	if len(p) == 0 { // nulls, records of nulls
		return count, nil
	}
	w := aw.w
	for done := int64(0); done < count; done++ {
		for i := range p {
			// Each case goes on with the next step when it succeeds:
			// only an error reaches the end of the switch.
			s := &p[i]
			var err error
			switch s.kind {
			case schema.Boolean:
				b, ok := d.next(1)
				if !ok {
					err = d.short(1)
					break
				}
				if b[0] > 1 {
					err = d.errorf("boolean byte %d", b[0])
					break
				}
				w.WriteBool(s.col, b[0] == 1)
				continue
			case schema.Int:
				v, ok := d.smallLong()
				if !ok {
					var n int
					if v, n = avrobin.ConsumeLong(d.b[d.pos:]); n < 0 {
						err = d.fail(n)
						break
					}
					d.pos += n
					if v < math.MinInt32 || v > math.MaxInt32 {
						err = d.errorf("int %d out of range", v)
						break
					}
				}
				w.WriteInt(s.col, int32(v))
				continue
			case schema.Enum:
				var v int32
				if v, err = d.int(); err != nil {
					break
				}
				if v < 0 || int(v) >= len(s.node.Schema.Symbols) {
					err = d.errorf("enum %s has no symbol %d", s.node.Schema.Name, v)
					break
				}
				w.WriteInt(s.col, v)
				continue
			case schema.Long:
				v, ok := d.smallLong()
				if !ok {
					var n int
					if v, n = avrobin.ConsumeLong(d.b[d.pos:]); n < 0 {
						err = d.fail(n)
						break
					}
					d.pos += n
				}
				w.WriteLong(s.col, v)
				continue
			case schema.Float:
				v, k := avrobin.ConsumeFloat(d.b[d.pos:])
				if k < 0 {
					err = d.short(4)
					break
				}
				d.pos += k
				w.WriteFloat(s.col, v)
				continue
			case schema.Double:
				v, k := avrobin.ConsumeDouble(d.b[d.pos:])
				if k < 0 {
					err = d.short(8)
					break
				}
				d.pos += k
				w.WriteDouble(s.col, v)
				continue
			case schema.String:
				b, ok := d.smallBytes()
				if !ok {
					if b, err = d.bytes(); err != nil {
						break
					}
				}
				if w.WriteStringBytes(s.col, b); w.Err() == nil {
					continue
				}
				err = aw.refused(ErrBinary) // not UTF-8
			case schema.Bytes:
				b, ok := d.smallBytes()
				if !ok {
					if b, err = d.bytes(); err != nil {
						break
					}
				}
				w.WriteBytes(s.col, b)
				continue
			case schema.Fixed:
				var b []byte
				if b, err = d.take(s.node.Schema.Size); err == nil {
					w.WriteBytes(s.col, b)
					continue
				}
			case schema.Array:
				if s.inline {
					err = aw.decodeInlineArray(s, d, depth)
				} else {
					err = aw.decodeArray(s, d, depth)
				}
			case schema.Map:
				err = aw.decodeMap(s, d, depth)
			case schema.Union:
				b, ok := d.smallBranch(len(s.branches))
				if !ok {
					if b, err = d.branch(s.node); err != nil {
						break
					}
				}
				aw.branch(s.node, b)
				if br := s.branches[b]; len(br) > 0 {
					_, err = aw.run(br, d, depth, 1)
				}
			}
			if err != nil {
				return done, s.at(err)
			}
		}
	}
	return count, nil
}

// decodeArray decodes a value of array s whose items are not values of
// its own column (decodeInlineArray): its length follows them, or, for
// items that take no bytes, is counted first.
func (aw *AvroWriter) decodeArray(s *step, d *decoder, depth int) error {
	n := s.node
	simple := n.Items.Col == n.Col
	if simple {
		// The length precedes the values in the same column, which holds
		// nothing else: count first.
		scan := *d
		var total int64
		for {
			c, err := scan.block(n.Items.MinSize)
			if err != nil {
				return err
			}
			if c == 0 {
				break
			}
			if total += c; total > math.MaxInt32 {
				break // aw.length reports it
			}
			if err := skipItems(n.Items, &scan, c); err != nil {
				return err
			}
		}
		if err := aw.length(n.Col, total); err != nil {
			return err
		}
	}
	var i int64
	for {
		c, ok := d.smallCount(n.Items.MinSize)
		if !ok {
			var err error
			if c, err = d.block(n.Items.MinSize); err != nil {
				return err
			}
		}
		if c == 0 {
			break
		}
		if s.stride == 0 || !aw.runFixed(s, d, c) {
			k, err := aw.run(s.items, d, depth+1, c)
			if err != nil {
				return fieldpath.At(err, fieldpath.Index(int(i+k)))
			}
		}
		i += c
	}
	if !simple {
		// Children hold the items: the length can follow them.
		return aw.length(n.Col, i)
	}
	return nil
}

// decodeInlineArray decodes a value of array s whose items are values of
// its own column, after their length. Most arrays come in one block: its
// count is written as the length before the items, and the length is
// extended if more blocks follow, which saves passing over the items once
// to count them.
func (aw *AvroWriter) decodeInlineArray(s *step, d *decoder, depth int) error {
	n := s.node
	c, ok := d.smallCount(n.Items.MinSize)
	if !ok {
		var err error
		if c, err = d.block(n.Items.MinSize); err != nil {
			return err
		}
	}
	if err := aw.length(n.Col, c); err != nil {
		return err
	}
	var i int64
	for c > 0 {
		var k int64
		var err error
		switch {
		case s.stride != 0 && aw.runFixed(s, d, c):
		case s.strings:
			k, err = aw.runStrings(s.items[0].col, d, c)
		default:
			k, err = aw.run(s.items, d, depth+1, c)
		}
		if err != nil {
			return fieldpath.At(err, fieldpath.Index(int(i+k)))
		}
		i += c
		if c, ok = d.smallCount(n.Items.MinSize); !ok {
			var err error
			if c, err = d.block(n.Items.MinSize); err != nil {
				return err
			}
		}
		if c > 0 {
			if i+c > math.MaxInt32 {
				return errTooMany
			}
			if aw.w.ExtendLength(n.Col, int(c)); aw.w.Err() != nil {
				return aw.w.Err()
			}
		}
	}
	return nil
}

// runFixed writes c items of array s, whose items are floats and doubles
// only (s.stride), a column at a time: each item field's values stand
// s.stride bytes apart, and none can fail to decode. A column's values go
// in the order run writes them, so the file is the same. It reports false,
// having read nothing, when the bytes left cannot hold the c items, for
// run to report the error where it stands.
func (aw *AvroWriter) runFixed(s *step, d *decoder, c int64) bool {
	stride := s.stride
	start := d.pos
	if c > int64(len(d.b)-start)/int64(stride) {
		return false
	}
	n := int(c)
	end := start + n*stride
	b := d.b[start:end]
	w := aw.w
	off := 0
	for i := range s.items {
		f := &s.items[i]
		col := f.col
		if f.kind == schema.Float {
			for p := off; p < len(b); p += stride {
				w.WriteFloat(col, math.Float32frombits(binary.LittleEndian.Uint32(b[p:])))
			}
			off += 4
			continue
		}
		for p := off; p < len(b); p += stride {
			w.WriteDouble(col, math.Float64frombits(binary.LittleEndian.Uint64(b[p:])))
		}
		off += 8
	}
	d.pos = end
	return true
}

// runStrings is run for c items of an array of strings in column col
// (step.strings): one loop, with no step dispatch per item, and the same
// errors.
func (aw *AvroWriter) runStrings(col int, d *decoder, c int64) (int64, error) {
	w := aw.w
	for done := int64(0); done < c; done++ {
		b, ok := d.smallBytes()
		if !ok {
			var err error
			if b, err = d.bytes(); err != nil {
				return done, err
			}
		}
		if w.WriteStringBytes(col, b); w.Err() != nil {
			return done, aw.refused(ErrBinary) // not UTF-8
		}
	}
	return c, nil
}

// decodeMap lists the entries of a value of map s, passing over their
// values, has writeMapKeys order them, and then decodes each value where
// it stands.
func (aw *AvroWriter) decodeMap(s *step, d *decoder, depth int) error {
	n := s.node
	entries := aw.mapScratch(depth)
	empty := d.empty // the values are passed over, then decoded: count them once
	for {
		c, err := d.block(1 + n.Items.MinSize)
		if err != nil {
			return err
		}
		if c == 0 {
			break
		}
		for ; c > 0; c-- {
			k, err := d.bytes()
			if err != nil {
				return err
			}
			entries = append(entries, MapEntry{Key: k, Value: d.pos})
			if err := skip(n.Items, d); err != nil {
				return fieldpath.At(err, fieldpath.Key(string(k)))
			}
		}
	}
	aw.maps[depth] = entries
	end := d.pos
	d.empty = empty
	entries, err := aw.writeMapKeys(n, entries, false, ErrBinary)
	if err != nil {
		return err
	}
	for _, e := range entries {
		d.pos = e.Value // the value, wherever it stands; d.pos is restored below
		if _, err := aw.run(s.items, d, depth+1, 1); err != nil {
			return fieldpath.At(err, fieldpath.Key(string(e.Key)))
		}
	}
	d.pos = end
	return nil
}

// fixedSize returns the encoded size of every value of a simple node, or
// -1 when it varies.
func fixedSize(n *layout.Node) int {
	switch n.Kind {
	case schema.Null, schema.Boolean, schema.Float, schema.Double, schema.Fixed:
		return n.MinSize // which for these is their size
	}
	return -1
}

// skipItems passes over c items of node n.
func skipItems(n *layout.Node, d *decoder, c int64) error {
	if size := fixedSize(n); size >= 0 {
		// d.block bounded c by the bytes left (or MaxEmptyItems for
		// size 0), so the product fits.
		_, err := d.take(int(c) * size)
		return err
	}
	for ; c > 0; c-- {
		if err := skip(n, d); err != nil {
			return err
		}
	}
	return nil
}

// skip passes over one value of node n, reading it as decode does but
// writing nothing.
func skip(n *layout.Node, d *decoder) error {
	var err error
	switch n.Kind {
	case schema.Null:
	case schema.Boolean:
		_, err = d.take(1)
	case schema.Int, schema.Enum, schema.Long:
		err = d.skipVarint()
	case schema.Float:
		_, err = d.take(4)
	case schema.Double:
		_, err = d.take(8)
	case schema.String, schema.Bytes:
		_, err = d.bytes()
	case schema.Fixed:
		_, err = d.take(n.Schema.Size)
	case schema.Record:
		for _, f := range n.Fields {
			if err = skip(f, d); err != nil {
				return err
			}
		}
	case schema.Array:
		for {
			c, err := d.block(n.Items.MinSize)
			if err != nil || c == 0 {
				return err
			}
			if err := skipItems(n.Items, d, c); err != nil {
				return err
			}
		}
	case schema.Map:
		for {
			c, err := d.block(1 + n.Items.MinSize)
			if err != nil || c == 0 {
				return err
			}
			for ; c > 0; c-- {
				if _, err := d.bytes(); err != nil {
					return err
				}
				if err := skip(n.Items, d); err != nil {
					return err
				}
			}
		}
	case schema.Union:
		b, err := d.branch(n)
		if err != nil {
			return err
		}
		if br := n.Branches[b]; br != nil {
			return skip(br, d)
		}
	}
	return err
}

// FromContainer converts an Avro object container file, of any codec the
// Avro specification names, into a Trevni file written to out, through the
// fast path, and returns the number of records written. The Avro file's
// schema becomes the Trevni file's avro.schema. Reading and decompressing
// the Avro blocks runs in its own goroutine, ahead of shredding, while
// finished Trevni blocks are compressed on the other cores; with
// opts.Workers above 1 (the default on a machine of several cores),
// ranges of Avro blocks are decompressed and shredded on that many
// goroutines and joined in row order. ctx is checked between Avro blocks;
// opts.Progress, if set, is called after each (or each range joined).
//
// A record that does not decode ends the conversion with an error that
// names the Avro block and wraps the record's *schema.Error (records
// counted from the container's first, 0).
func FromContainer(ctx context.Context, out io.Writer, in io.Reader, opts *Options) (int64, error) {
	if in == nil {
		return 0, errors.New("shred: nil input")
	}
	r, err := ocf.NewReader(in)
	if err != nil {
		return 0, err
	}
	aw, err := NewAvroWriter(out, r.Schema(), opts)
	if err != nil {
		return 0, err
	}
	if err := aw.appendContainer(ctx, r); err != nil {
		aw.Abort()
		return aw.RowCount(), err
	}
	return aw.RowCount(), aw.Close()
}

// AppendContainer writes every record of an Avro object container file to
// the writer, through the fast path. The container's schema must have the
// writer's Parsing Canonical Form (the same binary encoding). ctx and the
// writer's Options.Progress are as for FromContainer; the rows Progress
// gets are all the writer's, the bytes this container's. Errors count
// records from the container's first.
//
// The records are written with the column writer's per-row checks off
// (format.Writer.CheckRows), which the decoder makes unnecessary: a record
// that does not decode cannot be undone, so it ends the file, and the
// AvroWriter is then good only for Abort. Records that all decode are
// written as WriteBinary would write them.
func (aw *AvroWriter) AppendContainer(ctx context.Context, in io.Reader) error {
	if in == nil {
		return errors.New("shred: nil input")
	}
	r, err := ocf.NewReader(in)
	if err != nil {
		return err
	}
	s, err := schema.ParseWith(r.Schema(), &schema.ParseOptions{AllowInvalidDefaults: true})
	if err != nil {
		return fmt.Errorf("the container's schema: %w", err)
	}
	if s.Canonical() != aw.schema.Canonical() {
		return fmt.Errorf("the container's schema differs from the file's: %s, not %s", s.Canonical(), aw.schema.Canonical())
	}
	return aw.appendContainer(ctx, r)
}

func (aw *AvroWriter) appendContainer(ctx context.Context, r *ocf.Reader) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("shred: %w", err)
	}
	if n := aw.parallelWorkers(); n > 1 {
		return aw.appendParallel(ctx, r, n)
	}
	if err := aw.w.CheckRows(false); err != nil {
		return err
	}
	defer aw.w.CheckRows(true)
	blocks, stop := readAhead(r)
	defer stop()
	var row int64 // the container's record number
	for blk := range blocks {
		if blk.err != nil {
			return blk.err
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("avro block %d: %w", blk.index, err)
		}
		data := blk.data
		for count := blk.count; count > 0; count-- {
			n, err := aw.writeBinary(data, row, false)
			if err != nil {
				return fmt.Errorf("avro block %d: %w", blk.index, err)
			}
			data = data[n:]
			row++
		}
		if len(data) != 0 {
			return fmt.Errorf("avro block %d: %w: %d bytes left after its records", blk.index, ErrBinary, len(data))
		}
		blk.release()
		if aw.progress != nil {
			aw.progress(aw.RowCount(), blk.offset)
		}
	}
	return nil
}

// avroBlock is one decompressed block of an Avro container file.
type avroBlock struct {
	index  int
	count  int64
	data   []byte
	offset int64 // container bytes consumed after the block
	err    error
	free   chan []byte
}

func (b *avroBlock) release() { b.free <- b.data[:0] }

// readAhead reads the container's blocks in a goroutine, a few ahead of
// the consumer, in buffers that go round. stop ends the goroutine early.
func readAhead(r *ocf.Reader) (<-chan *avroBlock, func()) {
	const depth = 3
	free := make(chan []byte, depth)
	for i := 0; i < depth; i++ {
		free <- nil
	}
	out := make(chan *avroBlock, depth-1)
	done := make(chan struct{})
	go func() {
		defer close(out)
		for i := 0; ; i++ {
			var buf []byte
			select {
			case buf = <-free:
			case <-done:
				return
			}
			count, data, err := r.NextBlockInto(buf)
			if err == io.EOF {
				return
			}
			blk := &avroBlock{index: i, count: count, data: data, offset: r.InputOffset(), err: err, free: free}
			select {
			case out <- blk:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return out, func() {
		close(done)
		for range out { // let the goroutine finish
		}
	}
}
