package shred

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/fieldpath"
	"github.com/trevni-go/trevni/internal/protosafe"
	"github.com/trevni-go/trevni/internal/utf8check"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/schema/protoschema"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// ErrWire reports protobuf wire data that does not parse as the writer's
// message type.
var ErrWire = errors.New("invalid protobuf wire data")

// errFallback stops the fast path at a message it cannot write exactly: one
// holding an extension that the resolver knows. Such a message is written
// through proto.Unmarshal and Write.
var errFallback = errors.New("shred: message needs the reflective path")

// errDepth is proto.Unmarshal's error for messages nested too deeply.
var errDepth = errors.New("exceeded maximum recursion depth")

// rootLimit is what is left of proto.Unmarshal's recursion budget once the
// top-level message has taken its level.
const rootLimit = protowire.DefaultRecursionLimit - 1

// maxDenseNumber bounds the table that finds a field by its number; larger
// numbers are looked up in a map.
const maxDenseNumber = 1024

// serializedOpts marshals the messages stored where recursion was cut, as
// package protovalue does.
var serializedOpts = proto.MarshalOptions{AllowPartial: true, Deterministic: true}

// WriteWire writes one message given in the protobuf wire format. It is the
// fast path: the message is parsed straight into the columns by a parser
// compiled from the descriptor, and the file is exactly what Write makes from
// the message that proto.Unmarshal (with the writer's resolver) returns. As
// with proto.Unmarshal, fields may come in any order, repeated fields packed
// or not, a singular field's last value wins, repeated occurrences of a
// message field merge, a map entry's last value for a key wins, unknown
// fields are kept as they are, proto3 strings must be valid UTF-8 and
// required fields must be set.
//
// A message that does not parse is not written and gets a *schema.Error
// (with the record number and field path) wrapping ErrWire (or naming the required field missing); writing can go on
// with the next message. A message holding extensions that the resolver
// knows is written through the reflective path.
func (pw *ProtoWriter) WriteWire(msg []byte) error {
	if pw.wire == nil {
		p, err := newWireParser(pw)
		if err != nil {
			return err
		}
		pw.wire = p
	}
	p := pw.wire
	if p.root == nil {
		return pw.writeReflective(msg)
	}
	if len(msg) > math.MaxInt32 {
		return pw.aw.recordError(fmt.Errorf("%w: %s: message of %d bytes is too long", ErrWire, pw.md.FullName(), len(msg)))
	}
	w := pw.aw.w
	if err := w.StartRow(); err != nil {
		return err
	}
	p.reset(msg)
	if err := p.message(p.root, 0, true, rootLimit); err != nil {
		w.AbortRow()
		p.release()
		if isFallback(err) {
			return pw.writeReflective(msg)
		}
		return pw.aw.recordError(err)
	}
	p.release()
	return pw.aw.endRow()
}

// isFallback reports whether err, with the path it gathered, is errFallback.
func isFallback(err error) bool {
	_, err = fieldpath.Split(err)
	return err == errFallback
}

// writeReflective writes msg through proto.Unmarshal and Write.
func (pw *ProtoWriter) writeReflective(msg []byte) error {
	if pw.dyn == nil {
		pw.dyn = dynamicpb.NewMessage(pw.md)
	}
	if err := protosafe.Unmarshal(proto.UnmarshalOptions{Resolver: pw.resolver}, msg, pw.dyn); err != nil {
		return pw.aw.recordError(fmt.Errorf("%w: %s: %w", ErrWire, pw.md.FullName(), err))
	}
	return pw.Write(pw.dyn)
}

// wireScalar describes one value of a field: the field's own, a list
// element, a map key or a map value.
type wireScalar struct {
	kind protoreflect.Kind
	wt   protowire.Type // the wire type of one value
	utf8 bool           // a string that must be valid UTF-8
	// The value to store when the wire has none: defRaw as a wire value
	// would decode, or defBytes.
	defRaw   uint64
	defBytes []byte
}

// wireField is the compiled form of one field of a message position.
type wireField struct {
	wireScalar // the field's values; a map's values
	fd         protoreflect.FieldDescriptor
	name       string // Avro field name, for error paths
	shape      protoschema.Shape
	packable   bool  // a repeated scalar that may come packed
	required   bool  // proto2 required or LEGACY_REQUIRED
	oneof      int32 // index of its oneof, -1 if none (or synthetic)
	// col is the value column (Implicit), the union branch column
	// (Optional), or the array or map length column. itemCol holds
	// the scalar values of a branch, a list or a map.
	col, itemCol int
	keyCol       int
	key          wireScalar
	msg          *wireMsg                       // message values, when stored as records
	ser          protoreflect.MessageDescriptor // message values stored serialized
}

func (f *wireField) isMessage() bool { return f.msg != nil || f.ser != nil }

// wireMsg is the compiled parser of a message at one position of the file's
// layout.
type wireMsg struct {
	desc       protoreflect.MessageDescriptor
	fields     []wireField // in declaration order, as the Avro record
	byNumber   []int32     // field number → index+1 in fields, 0 if none
	sparse     map[protowire.Number]int32
	unknownCol int // bytes column of unknown fields, -1 if dropped
	extensions protoreflect.FieldRanges
	oneofs     int
}

func (m *wireMsg) lookup(num protowire.Number) int {
	if int(num) < len(m.byNumber) {
		return int(m.byNumber[num]) - 1
	}
	if i, ok := m.sparse[num]; ok {
		return int(i)
	}
	return -1
}

// occ is one occurrence in the wire data: a field value (for bytes and
// groups, their content), a packed run, a map entry, an unknown field, or a
// span of a message's encoding. Occurrences of one field are linked in
// order.
type occ struct {
	start, end int32
	next       int32
	wt         protowire.Type
}

// slot gathers the occurrences of one field of one message.
type slot struct {
	head, tail int32
	count      int32 // list elements or map entries
}

var emptySlot = slot{head: -1, tail: -1}

// entryScalar describes a map entry as a value of its field.
var entryScalar = wireScalar{kind: protoreflect.MessageKind, wt: protowire.BytesType}

// mapEnt is one parsed map entry.
type mapEnt struct {
	key  []byte // the Avro key text
	raw  uint64 // a scalar value
	val  []byte // a string or bytes value
	head int32  // the spans of a message value
}

// wireParser holds the compiled tree and the scratch state of WriteWire,
// reused from message to message.
type wireParser struct {
	root      *wireMsg // nil: every message takes the reflective path
	w         *format.Writer
	extTypes  protoregistry.ExtensionTypeResolver
	unmarshal proto.UnmarshalOptions

	buf     []byte
	occs    []occ
	slots   []slot
	oneofs  []int32
	ents    []mapEnt
	text    []byte // decimal map keys
	scratch []byte // concatenated unknown fields
}

func newWireParser(pw *ProtoWriter) (*wireParser, error) {
	p := &wireParser{w: pw.aw.w, extTypes: protoregistry.GlobalTypes}
	if pw.resolver != nil {
		p.extTypes = pw.resolver
		p.unmarshal.Resolver = pw.resolver
	}
	mp := pw.conv.Mapping()
	if mp.UsesMessageSet() {
		return p, nil
	}
	root, err := compileWire(mp.Root, pw.aw.root)
	if err != nil {
		return nil, err
	}
	p.root = root
	return p, nil
}

// compileWire compiles the parser of record r at layout position n. The
// layout was made from the mapping's own schema, so n's schema is r's and
// its fields are r's fields in order, then the unknown-fields field.
func compileWire(r *protoschema.Record, n *layout.Node) (*wireMsg, error) {
	if n.Schema != r.Schema {
		return nil, fmt.Errorf("shred: the layout of %s is not of its protobuf mapping", r.Name)
	}
	m := &wireMsg{
		desc:       r.Desc,
		fields:     make([]wireField, len(r.Fields)),
		unknownCol: -1,
		extensions: r.Desc.ExtensionRanges(),
		oneofs:     r.Desc.Oneofs().Len(),
	}
	maxNum := 0
	for i := range r.Fields {
		f := &r.Fields[i]
		fd := f.Desc
		wf := &m.fields[i]
		wf.fd, wf.name, wf.shape, wf.oneof = fd, f.Name, f.Shape, -1
		wf.required = fd.Cardinality() == protoreflect.Required
		if f.Oneof != nil {
			wf.oneof = int32(f.Oneof.Index())
		}
		fn := n.Fields[i]
		items, ok := f.ValueNode(fn) // the node of one value
		if !ok {
			return nil, fmt.Errorf("shred: the layout of %s.%s does not match its protobuf mapping", r.Name, f.Name)
		}
		switch f.Shape {
		case protoschema.Map:
			wf.col, wf.keyCol = fn.Col, fn.KeyCol
			wf.key = scalarOf(fd.MapKey())
		case protoschema.List:
			wf.col = fn.Col
		case protoschema.Optional:
			wf.col = fn.BranchCols[1]
		default:
			wf.col = fn.Col
		}
		wf.wireScalar = scalarOf(f.Value)
		wf.packable = wf.shape == protoschema.List && wf.wt != protowire.BytesType && wf.wt != protowire.StartGroupType
		if f.Record != nil {
			c, err := compileWire(f.Record, items)
			if err != nil {
				return nil, err
			}
			wf.msg = c
		} else {
			if f.Serialized {
				wf.ser = f.Value.Message()
			}
			wf.itemCol = items.Col
		}
		maxNum = max(maxNum, int(fd.Number()))
	}
	if r.Unknown != "" {
		m.unknownCol = n.Fields[len(r.Fields)].Col
	}
	m.byNumber = make([]int32, min(maxNum, maxDenseNumber)+1)
	for i := range m.fields {
		num := m.fields[i].fd.Number()
		if int(num) < len(m.byNumber) {
			m.byNumber[num] = int32(i + 1)
			continue
		}
		if m.sparse == nil {
			m.sparse = make(map[protowire.Number]int32)
		}
		m.sparse[num] = int32(i)
	}
	return m, nil
}

// scalarOf describes the values of fd.
func scalarOf(fd protoreflect.FieldDescriptor) wireScalar {
	s := wireScalar{kind: fd.Kind(), wt: protoschema.WireType(fd.Kind())}
	if s.kind == protoreflect.StringKind {
		s.utf8 = enforceUTF8(fd)
	}
	if fd.Message() != nil || fd.IsList() || fd.IsMap() {
		return s
	}
	// The default, encoded as the wire would carry it.
	v := fd.Default()
	switch s.kind {
	case protoreflect.BoolKind:
		if v.Bool() {
			s.defRaw = 1
		}
	case protoreflect.EnumKind:
		s.defRaw = uint64(v.Enum())
	case protoreflect.Int32Kind, protoreflect.Int64Kind, protoreflect.Sfixed32Kind, protoreflect.Sfixed64Kind:
		s.defRaw = uint64(v.Int())
	case protoreflect.Sint32Kind, protoreflect.Sint64Kind:
		s.defRaw = protowire.EncodeZigZag(v.Int())
	case protoreflect.Uint32Kind, protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
		s.defRaw = v.Uint()
	case protoreflect.FloatKind:
		s.defRaw = uint64(math.Float32bits(float32(v.Float())))
	case protoreflect.DoubleKind:
		s.defRaw = math.Float64bits(v.Float())
	case protoreflect.StringKind:
		s.defBytes = []byte(v.String())
	case protoreflect.BytesKind:
		s.defBytes = v.Bytes()
	}
	return s
}

// enforceUTF8 reports whether proto.Unmarshal rejects invalid UTF-8 in the
// string field fd: proto3 strings, and editions strings whose
// utf8_validation is VERIFY.
func enforceUTF8(fd protoreflect.FieldDescriptor) bool {
	if fd.Syntax() == protoreflect.Editions {
		if e, ok := fd.(interface{ EnforceUTF8() bool }); ok {
			return e.EnforceUTF8()
		}
	}
	return fd.Syntax() == protoreflect.Proto3
}

func (p *wireParser) reset(msg []byte) {
	p.buf = msg
	p.occs = append(p.occs[:0], occ{start: 0, end: int32(len(msg)), next: -1})
	p.slots, p.oneofs, p.ents, p.text = p.slots[:0], p.oneofs[:0], p.ents[:0], p.text[:0]
}

// release lets go of the caller's message.
func (p *wireParser) release() { p.buf = nil }

// push appends an occurrence to the list of slot s.
func (p *wireParser) push(s int, start, end int, wt protowire.Type) {
	i := int32(len(p.occs))
	p.occs = append(p.occs, occ{start: int32(start), end: int32(end), next: -1, wt: wt})
	if t := p.slots[s].tail; t >= 0 {
		p.occs[t].next = i
	} else {
		p.slots[s].head = i
	}
	p.slots[s].tail = i
}

// set makes an occurrence the only one of slot s.
func (p *wireParser) set(s int, start, end int, wt protowire.Type) {
	if h := p.slots[s].head; h >= 0 {
		p.occs[h] = occ{start: int32(start), end: int32(end), next: -1, wt: wt}
		p.slots[s].tail = h
		return
	}
	p.push(s, start, end, wt)
}

// open allocates the slots and oneof state of a message of type m.
func (p *wireParser) open(m *wireMsg) (sb, ob int) {
	sb, ob = len(p.slots), len(p.oneofs)
	n := len(m.fields) + 1 // and the unknown fields
	p.slots = slices.Grow(p.slots, n)[:sb+n]
	for i := sb; i < sb+n; i++ {
		p.slots[i] = emptySlot
	}
	p.oneofs = slices.Grow(p.oneofs, m.oneofs)[:ob+m.oneofs]
	for i := ob; i < ob+m.oneofs; i++ {
		p.oneofs[i] = -1
	}
	return sb, ob
}

// scanAll parses the spans of a message of type m, from first (only first
// when one is set, else first and those linked after it), into fresh slots.
func (p *wireParser) scanAll(m *wireMsg, first int32, one bool, limit int) (sb, ob int, err error) {
	if limit < 0 {
		return 0, 0, fieldpath.New(fmt.Errorf("%w: %s: %w", ErrWire, m.desc.FullName(), errDepth))
	}
	sb, ob = p.open(m)
	for o := first; o >= 0; o = p.occs[o].next {
		sp := p.occs[o]
		if err := p.scan(m, int(sp.start), int(sp.end), sb, ob, limit); err != nil {
			return sb, ob, err
		}
		if one {
			break
		}
	}
	return sb, ob, nil
}

// wireError reports bad wire data of message m at byte pos.
func (p *wireParser) wireError(m *wireMsg, pos int, err error) error {
	return fieldpath.New(fmt.Errorf("%w: %s at byte %d: %w", ErrWire, m.desc.FullName(), pos, err))
}

// fieldError reports bad wire data in field f at byte pos.
func (p *wireParser) fieldError(f *wireField, pos int, err error) error {
	return fieldpath.At(fieldpath.New(fmt.Errorf("%w: %s at byte %d: %w", ErrWire, f.fd.FullName(), pos, err)), f.name)
}

// scan parses one span of a message of type m, recording each field's
// occurrences in the slots from sb.
func (p *wireParser) scan(m *wireMsg, pos, end, sb, ob, limit int) error {
	buf := p.buf[:end]
	for pos < end {
		tagAt := pos
		var num protowire.Number
		var wt protowire.Type
		if c := buf[pos]; c < 0x80 && c >= 8 {
			num, wt = protowire.Number(c>>3), protowire.Type(c&7)
			pos++
		} else {
			var n int
			num, wt, n = protowire.ConsumeTag(buf[pos:])
			if n < 0 {
				return p.wireError(m, pos, protowire.ParseError(n))
			}
			if num > protowire.MaxValidNumber {
				return p.wireError(m, pos, fmt.Errorf("field number %d out of range", num))
			}
			pos += n
		}
		if fi := m.lookup(num); fi >= 0 {
			next, err := p.field(m, fi, wt, pos, end, sb, ob, limit)
			if err != nil {
				return err
			}
			if next >= 0 {
				pos = next
				continue
			}
			// A wire type the field does not take: an unknown field.
		} else if m.extensions.Len() > 0 && m.extensions.Has(num) {
			xt, err := p.extTypes.FindExtensionByNumber(m.desc.FullName(), num)
			if xt != nil || err != nil && err != protoregistry.NotFound {
				return errFallback
			}
		}
		n := protowire.ConsumeFieldValue(num, wt, buf[pos:])
		if n < 0 {
			return p.wireError(m, pos, fmt.Errorf("field %d: %w", num, protowire.ParseError(n)))
		}
		pos += n
		s := sb + len(m.fields)
		if t := p.slots[s].tail; t >= 0 && int(p.occs[t].end) == tagAt {
			p.occs[t].end = int32(pos) // adjoins the last one
		} else {
			p.push(s, tagAt, pos, wt)
		}
	}
	return nil
}

// value parses one value of s with wire type wt at pos and returns its
// span (the content of bytes and groups) and where the next field starts.
func (p *wireParser) value(s *wireScalar, num protowire.Number, wt protowire.Type, pos, end int) (v0, v1, next int, err error) {
	b := p.buf[pos:end]
	switch wt {
	case protowire.VarintType:
		if len(b) > 0 && b[0] < 0x80 {
			return pos, pos + 1, pos + 1, nil
		}
		_, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return 0, 0, 0, protowire.ParseError(n)
		}
		return pos, pos + n, pos + n, nil
	case protowire.Fixed32Type:
		if len(b) < 4 {
			return 0, 0, 0, protowire.ParseError(-1)
		}
		return pos, pos + 4, pos + 4, nil
	case protowire.Fixed64Type:
		if len(b) < 8 {
			return 0, 0, 0, protowire.ParseError(-1)
		}
		return pos, pos + 8, pos + 8, nil
	case protowire.BytesType:
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return 0, 0, 0, protowire.ParseError(n)
		}
		if s.utf8 && !utf8check.Valid(v) {
			return 0, 0, 0, errors.New("string is not valid UTF-8")
		}
		return pos + n - len(v), pos + n, pos + n, nil
	default: // a group
		v, n := protowire.ConsumeGroup(num, b)
		if n < 0 {
			return 0, 0, 0, protowire.ParseError(n)
		}
		return pos, pos + len(v), pos + n, nil
	}
}

// field records an occurrence of field fi of m whose tag ends at pos. It
// returns where the next field starts, or -1 when the wire type does not
// suit the field, which makes it an unknown field.
func (p *wireParser) field(m *wireMsg, fi int, wt protowire.Type, pos, end, sb, ob, limit int) (int, error) {
	f := &m.fields[fi]
	s := sb + fi
	switch f.shape {
	case protoschema.List:
		packed := wt == protowire.BytesType && f.packable
		if wt != f.wt && !packed {
			return -1, nil
		}
		v0, v1, next, err := p.value(&f.wireScalar, f.fd.Number(), wt, pos, end)
		if err != nil {
			return 0, p.fieldError(f, pos, err)
		}
		count := 1
		if packed {
			if count, err = p.countPacked(f, v0, v1); err != nil {
				return 0, p.fieldError(f, v0, err)
			}
		}
		if count > math.MaxInt32-int(p.slots[s].count) {
			return 0, p.fieldError(f, pos, errors.New("too many elements"))
		}
		p.push(s, v0, v1, wt)
		p.slots[s].count += int32(count)
		return next, nil
	case protoschema.Map:
		if wt != protowire.BytesType {
			return -1, nil
		}
		v0, v1, next, err := p.value(&entryScalar, f.fd.Number(), wt, pos, end)
		if err != nil {
			return 0, p.fieldError(f, pos, err)
		}
		p.push(s, v0, v1, wt)
		p.slots[s].count++
		return next, nil
	}
	if wt != f.wt {
		return -1, nil
	}
	v0, v1, next, err := p.value(&f.wireScalar, f.fd.Number(), wt, pos, end)
	if err != nil {
		return 0, p.fieldError(f, pos, err)
	}
	if f.oneof >= 0 {
		if cur := p.oneofs[ob+int(f.oneof)]; int(cur) != fi {
			// Setting a member clears the one set before.
			p.oneofs[ob+int(f.oneof)] = int32(fi)
			if cur >= 0 {
				if err := p.drop(m, int(cur), sb, limit); err != nil {
					return 0, err
				}
			}
		}
	}
	if f.isMessage() {
		p.push(s, v0, v1, wt) // occurrences merge
	} else {
		p.set(s, v0, v1, wt) // the last one wins
	}
	return next, nil
}

// drop clears field fi, a oneof member replaced by another. A message must
// still parse, as proto.Unmarshal parses it before clearing it.
func (p *wireParser) drop(m *wireMsg, fi, sb, limit int) error {
	f := &m.fields[fi]
	s := p.slots[sb+fi]
	p.slots[sb+fi] = emptySlot
	if s.head < 0 || !f.isMessage() {
		return nil
	}
	var err error
	if f.msg != nil {
		err = p.check(f.msg, s.head, false, limit-1)
	} else {
		_, err = p.serialized(f.ser, s.head, false, limit, false)
	}
	if err != nil {
		return fieldpath.At(err, f.name)
	}
	return nil
}

// countPacked checks a packed run of f's values and counts them.
func (p *wireParser) countPacked(f *wireField, v0, v1 int) (int, error) {
	b := p.buf[v0:v1]
	switch f.wt {
	case protowire.Fixed32Type:
		if len(b)%4 != 0 {
			return 0, protowire.ParseError(-1)
		}
		return len(b) / 4, nil
	case protowire.Fixed64Type:
		if len(b)%8 != 0 {
			return 0, protowire.ParseError(-1)
		}
		return len(b) / 8, nil
	}
	// Varints: one ends at each byte below 0x80; as ConsumeVarint says,
	// the tenth byte of one must be 0 or 1.
	n, run := 0, 0
	for _, c := range b {
		if run == 9 && c > 1 {
			break
		}
		if c < 0x80 {
			n, run = n+1, 0
		} else {
			run++
		}
	}
	if run == 0 {
		return n, nil
	}
	for len(b) > 0 { // find the error
		_, k := protowire.ConsumeVarint(b)
		if k < 0 {
			return 0, protowire.ParseError(k)
		}
		b = b[k:]
	}
	return 0, protowire.ParseError(-1)
}

// message writes the message of type m held by the spans from first (only
// first when one is set) to m's columns. limit is what remains of
// proto.Unmarshal's recursion budget at this level.
func (p *wireParser) message(m *wireMsg, first int32, one bool, limit int) error {
	sb, ob, err := p.scanAll(m, first, one, limit)
	if err != nil {
		return err
	}
	w := p.w
	for i := range m.fields {
		f := &m.fields[i]
		s := p.slots[sb+i]
		var err error
		switch f.shape {
		case protoschema.Implicit:
			if s.head < 0 {
				p.put(&f.wireScalar, f.itemCol, f.defRaw, f.defBytes)
			} else {
				p.putOcc(&f.wireScalar, f.itemCol, s.tail)
			}
		case protoschema.Optional:
			if s.head < 0 {
				if f.required {
					return fieldpath.At(fieldpath.New(fmt.Errorf("required field %s not set", f.fd.FullName())), f.name)
				}
				w.WriteLength(f.col, 0)
				continue
			}
			w.WriteLength(f.col, 1)
			switch {
			case f.msg != nil:
				err = p.message(f.msg, s.head, false, limit-1)
			case f.ser != nil:
				err = p.writeSerialized(f, s.head, false, limit)
			default:
				p.putOcc(&f.wireScalar, f.itemCol, s.tail)
			}
		case protoschema.List:
			w.WriteLength(f.col, int(s.count))
			err = p.list(f, s.head, limit)
		case protoschema.Map:
			err = p.mapField(f, s.head, limit)
		}
		if err != nil {
			return fieldpath.At(err, f.name)
		}
	}
	if m.unknownCol >= 0 {
		s := p.slots[sb+len(m.fields)]
		switch {
		case s.head < 0:
			w.WriteBytes(m.unknownCol, nil)
		case s.head == s.tail:
			o := p.occs[s.head]
			w.WriteBytes(m.unknownCol, p.buf[o.start:o.end])
		default:
			u := p.scratch[:0]
			for i := s.head; i >= 0; i = p.occs[i].next {
				u = append(u, p.buf[p.occs[i].start:p.occs[i].end]...)
			}
			p.scratch = u
			w.WriteBytes(m.unknownCol, u)
		}
	}
	p.slots, p.oneofs = p.slots[:sb], p.oneofs[:ob]
	return nil
}

// list writes the elements of a repeated field.
func (p *wireParser) list(f *wireField, head int32, limit int) error {
	i := 0
	for o := head; o >= 0; o = p.occs[o].next {
		var err error
		switch {
		case f.msg != nil:
			err = p.message(f.msg, o, true, limit-1)
		case f.ser != nil:
			err = p.writeSerialized(f, o, true, limit)
		case p.occs[o].wt == protowire.BytesType && f.packable:
			p.putPacked(f, p.occs[o])
			continue
		default:
			p.putOcc(&f.wireScalar, f.itemCol, o)
			continue
		}
		if err != nil {
			return fieldpath.At(err, fieldpath.Index(i))
		}
		i++
	}
	return nil
}

// putPacked writes the values of a packed run, checked by countPacked.
func (p *wireParser) putPacked(f *wireField, o occ) {
	b := p.buf[o.start:o.end]
	for len(b) > 0 {
		var u uint64
		switch f.wt {
		case protowire.Fixed32Type:
			u, b = uint64(binary.LittleEndian.Uint32(b)), b[4:]
		case protowire.Fixed64Type:
			u, b = binary.LittleEndian.Uint64(b), b[8:]
		default:
			if b[0] < 0x80 {
				u, b = uint64(b[0]), b[1:]
			} else {
				var n int
				u, n = protowire.ConsumeVarint(b)
				b = b[n:]
			}
		}
		p.put(&f.wireScalar, f.itemCol, u, nil)
	}
}

// putOcc writes the scalar value of occurrence o, checked when parsed.
func (p *wireParser) putOcc(s *wireScalar, col int, o int32) {
	oc := p.occs[o]
	b := p.buf[oc.start:oc.end]
	var u uint64
	switch s.wt {
	case protowire.VarintType:
		if b[0] < 0x80 {
			u = uint64(b[0])
		} else {
			u, _ = protowire.ConsumeVarint(b)
		}
	case protowire.Fixed32Type:
		u = uint64(binary.LittleEndian.Uint32(b))
	case protowire.Fixed64Type:
		u = binary.LittleEndian.Uint64(b)
	}
	p.put(s, col, u, b)
}

// put writes one scalar value to col: raw as decoded from the wire, or b
// for strings and bytes. The conversions are proto.Unmarshal's followed by
// package protovalue's.
func (p *wireParser) put(s *wireScalar, col int, raw uint64, b []byte) {
	w := p.w
	switch s.kind {
	case protoreflect.BoolKind:
		w.WriteBool(col, raw != 0)
	case protoreflect.Int32Kind, protoreflect.EnumKind, protoreflect.Sfixed32Kind:
		w.WriteInt(col, int32(raw))
	case protoreflect.Sint32Kind:
		w.WriteInt(col, int32(protowire.DecodeZigZag(raw&math.MaxUint32)))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		w.WriteLong(col, int64(uint32(raw)))
	case protoreflect.Int64Kind, protoreflect.Uint64Kind, protoreflect.Sfixed64Kind, protoreflect.Fixed64Kind:
		w.WriteLong(col, int64(raw))
	case protoreflect.Sint64Kind:
		w.WriteLong(col, protowire.DecodeZigZag(raw))
	case protoreflect.FloatKind:
		// protoreflect holds a float as a float64, which quiets a
		// signalling NaN: convert the same way.
		f := protoreflect.ValueOfFloat32(math.Float32frombits(uint32(raw))).Float()
		w.WriteFloat(col, float32(f))
	case protoreflect.DoubleKind:
		w.WriteDouble(col, math.Float64frombits(raw))
	case protoreflect.StringKind:
		w.WriteStringBytes(col, b)
	default:
		w.WriteBytes(col, b)
	}
}

var (
	textTrue  = []byte("true")
	textFalse = []byte("false")
)

// entry parses map entry o of field f; limit is the budget at the entry's
// level. A message value's spans are linked from the entry's head.
func (p *wireParser) entry(f *wireField, o int32, limit int) (mapEnt, error) {
	e := mapEnt{head: -1}
	if limit < 0 {
		return e, fieldpath.New(fmt.Errorf("%w: %s: %w", ErrWire, f.fd.FullName(), errDepth))
	}
	oc := p.occs[o]
	pos, end := int(oc.start), int(oc.end)
	buf := p.buf[:end]
	var key []byte
	keyRaw, haveKey, haveVal := f.key.defRaw, false, false
	tail := int32(-1)
	for pos < end {
		num, wt, n := protowire.ConsumeTag(buf[pos:])
		if n < 0 {
			return e, p.fieldError(f, pos, protowire.ParseError(n))
		}
		if num > protowire.MaxValidNumber {
			return e, p.fieldError(f, pos, fmt.Errorf("field number %d out of range", num))
		}
		pos += n
		var s *wireScalar
		switch {
		case num == 1 && wt == f.key.wt:
			s = &f.key
		case num == 2 && wt == f.wt:
			s = &f.wireScalar
		default: // other fields, and wire types that do not suit, are skipped
			n := protowire.ConsumeFieldValue(num, wt, buf[pos:])
			if n < 0 {
				return e, p.fieldError(f, pos, protowire.ParseError(n))
			}
			pos += n
			continue
		}
		v0, v1, next, err := p.value(s, num, wt, pos, end)
		if err != nil {
			return e, p.fieldError(f, pos, err)
		}
		pos = next
		if num == 1 {
			keyRaw, key, haveKey = p.raw(s, v0, v1), p.buf[v0:v1], true
			continue
		}
		haveVal = true
		if f.isMessage() { // values merge
			i := int32(len(p.occs))
			p.occs = append(p.occs, occ{start: int32(v0), end: int32(v1), next: -1, wt: wt})
			if tail >= 0 {
				p.occs[tail].next = i
			} else {
				e.head = i
			}
			tail = i
		} else {
			e.raw, e.val = p.raw(s, v0, v1), p.buf[v0:v1]
		}
	}
	if !haveVal && !f.isMessage() {
		e.raw, e.val = f.defRaw, f.defBytes
	}
	switch f.key.kind {
	case protoreflect.StringKind:
		e.key = key
		if !haveKey {
			e.key = f.key.defBytes
		}
	case protoreflect.BoolKind:
		e.key = textFalse
		if keyRaw != 0 {
			e.key = textTrue
		}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		e.key = p.appendText(strconv.AppendUint, uint64(uint32(keyRaw)))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		e.key = p.appendText(strconv.AppendUint, keyRaw)
	case protoreflect.Int32Kind, protoreflect.Sfixed32Kind:
		e.key = p.appendIntText(int64(int32(keyRaw)))
	case protoreflect.Sint32Kind:
		e.key = p.appendIntText(int64(int32(protowire.DecodeZigZag(keyRaw & math.MaxUint32))))
	case protoreflect.Sint64Kind:
		e.key = p.appendIntText(protowire.DecodeZigZag(keyRaw))
	default:
		e.key = p.appendIntText(int64(keyRaw))
	}
	return e, nil
}

// raw decodes the varint or fixed value in buf[v0:v1].
func (p *wireParser) raw(s *wireScalar, v0, v1 int) uint64 {
	b := p.buf[v0:v1]
	switch s.wt {
	case protowire.VarintType:
		u, _ := protowire.ConsumeVarint(b)
		return u
	case protowire.Fixed32Type:
		return uint64(binary.LittleEndian.Uint32(b))
	case protowire.Fixed64Type:
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (p *wireParser) appendText(app func([]byte, uint64, int) []byte, u uint64) []byte {
	start := len(p.text)
	p.text = app(p.text, u, 10)
	return p.text[start:]
}

func (p *wireParser) appendIntText(v int64) []byte {
	start := len(p.text)
	p.text = strconv.AppendInt(p.text, v, 10)
	return p.text[start:]
}

func compareEnts(a, b mapEnt) int { return bytes.Compare(a.key, b.key) }

// mapField writes the entries of a map field, sorted by key text as
// AvroWriter.Write sorts them, the last of equal keys winning.
func (p *wireParser) mapField(f *wireField, head int32, limit int) error {
	eb, tb := len(p.ents), len(p.text)
	for o := head; o >= 0; o = p.occs[o].next {
		e, err := p.entry(f, o, limit-1)
		if err != nil {
			return err
		}
		p.ents = append(p.ents, e)
	}
	if ents := p.ents[eb:]; !slices.IsSortedFunc(ents, compareEnts) {
		slices.SortStableFunc(ents, compareEnts)
	}
	kept := eb
	for i := eb; i < len(p.ents); i++ {
		e := p.ents[i]
		if i+1 < len(p.ents) && bytes.Equal(e.key, p.ents[i+1].key) {
			// Replaced by a later entry, but parsed all the same.
			if err := p.checkValue(f, e, limit); err != nil {
				return fieldpath.At(err, fieldpath.Key(string(e.key)))
			}
			continue
		}
		p.ents[kept] = e
		kept++
	}
	p.ents = p.ents[:kept]
	p.w.WriteLength(f.col, kept-eb)
	for i := eb; i < kept; i++ {
		e := p.ents[i]
		p.w.WriteStringBytes(f.keyCol, e.key)
		var err error
		switch {
		case f.msg != nil:
			err = p.message(f.msg, e.head, false, limit-2)
		case f.ser != nil:
			err = p.writeSerialized(f, e.head, false, limit-1)
		default:
			p.put(&f.wireScalar, f.itemCol, e.raw, e.val)
		}
		if err != nil {
			return fieldpath.At(err, fieldpath.Key(string(e.key)))
		}
	}
	p.ents, p.text = p.ents[:eb], p.text[:tb]
	return nil
}

// checkValue parses the message value of a map entry that is not written.
func (p *wireParser) checkValue(f *wireField, e mapEnt, limit int) error {
	switch {
	case f.msg != nil:
		return p.check(f.msg, e.head, false, limit-2)
	case f.ser != nil:
		_, err := p.serialized(f.ser, e.head, false, limit-1, false)
		return err
	}
	return nil
}

// check parses a message of type m that is not written, for the errors
// proto.Unmarshal would find in it.
func (p *wireParser) check(m *wireMsg, first int32, one bool, limit int) error {
	sb, ob, err := p.scanAll(m, first, one, limit)
	if err != nil {
		return err
	}
	for i := range m.fields {
		f := &m.fields[i]
		head := p.slots[sb+i].head
		if !f.isMessage() {
			continue
		}
		for o := head; o >= 0; o = p.occs[o].next {
			var err error
			switch f.shape {
			case protoschema.Map:
				tb := len(p.text)
				var e mapEnt
				if e, err = p.entry(f, o, limit-1); err == nil {
					err = p.checkValue(f, e, limit)
				}
				p.text = p.text[:tb]
			case protoschema.List:
				if f.msg != nil {
					err = p.check(f.msg, o, true, limit-1)
				} else {
					_, err = p.serialized(f.ser, o, true, limit, false)
				}
			default:
				if f.msg != nil {
					err = p.check(f.msg, o, false, limit-1)
				} else {
					_, err = p.serialized(f.ser, o, false, limit, false)
				}
			}
			if err != nil {
				return fieldpath.At(err, f.name)
			}
			if f.shape != protoschema.List && f.shape != protoschema.Map {
				break // the spans of one message
			}
		}
	}
	p.slots, p.oneofs = p.slots[:sb], p.oneofs[:ob]
	return nil
}

// writeSerialized writes a message stored serialized, where recursion was
// cut: its deterministic wire encoding, as package protovalue makes it.
func (p *wireParser) writeSerialized(f *wireField, first int32, one bool, limit int) error {
	b, err := p.serialized(f.ser, first, one, limit, true)
	if err != nil {
		return err
	}
	p.w.WriteBytes(f.itemCol, b)
	return nil
}

// serialized parses the spans of a message of type md with proto.Unmarshal,
// limit being the budget of the level that holds it, and returns its
// deterministic encoding when enc is set.
func (p *wireParser) serialized(md protoreflect.MessageDescriptor, first int32, one bool, limit int, enc bool) ([]byte, error) {
	if limit <= 0 {
		return nil, fieldpath.New(fmt.Errorf("%w: %s: %w", ErrWire, md.FullName(), errDepth))
	}
	m := dynamicpb.NewMessage(md)
	o := p.unmarshal
	o.Merge, o.AllowPartial, o.RecursionLimit = true, true, limit
	for i := first; i >= 0; i = p.occs[i].next {
		if err := protosafe.Unmarshal(o, p.buf[p.occs[i].start:p.occs[i].end], m); err != nil {
			return nil, fieldpath.New(fmt.Errorf("%w: %s: %w", ErrWire, md.FullName(), err))
		}
		if one {
			break
		}
	}
	if !enc {
		return nil, nil
	}
	if err := proto.CheckInitialized(m); err != nil {
		return nil, fieldpath.New(err)
	}
	b, err := serializedOpts.Marshal(m)
	if err != nil {
		return nil, fieldpath.New(err)
	}
	return b, nil
}
