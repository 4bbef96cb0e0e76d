package assemble

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/fieldpath"
	"github.com/trevni-go/trevni/internal/protosafe"
	"github.com/trevni-go/trevni/internal/utf8check"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/schema/protoschema"
	"github.com/trevni-go/trevni/typemap/protovalue"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// wireOpts is how ReadWire and ToProtoStream marshal messages: as
// ProtoReader reads them, required fields may be missing.
var wireOpts = proto.MarshalOptions{Deterministic: true, AllowPartial: true}

// ReadWire appends the next message, in the protobuf wire format, to dst,
// or returns io.EOF after the last. The encoding is exactly what
// proto.MarshalOptions{Deterministic: true, AllowPartial: true} makes of the
// dynamicpb message Read returns: fields in protobuf-go's deterministic
// order, packed where the field is packed, map entries sorted by key, and
// unknown fields last.
//
// Reading every field of the file's own message type is the fast path,
// which goes from the columns to the encoding with no message in between.
// With ProtoOptions.Fields or ProtoOptions.MessageType, ReadWire reads the
// message with Read and marshals it.
func (pr *ProtoReader) ReadWire(dst []byte) ([]byte, error) {
	e := pr.wire
	if e == nil {
		var err error
		if e, err = pr.wireEncoder(); err != nil {
			return dst, err
		}
	}
	if e.root == nil {
		return pr.readWireReflective(dst)
	}
	ar := pr.ar
	if err := ar.nextRecord(); err != nil {
		return dst, err
	}
	out, err := e.message(dst, e.root)
	if err != nil {
		return dst, fieldpath.Record(err, ar.row)
	}
	ar.returnedRecord()
	return out, nil
}

// wireEncoder returns ReadWire's encoder, built on first use.
func (pr *ProtoReader) wireEncoder() (*wireEncoder, error) {
	if pr.wire == nil {
		e, err := newWireEncoder(pr)
		if err != nil {
			return nil, err
		}
		pr.wire = e
	}
	return pr.wire, nil
}

// readWireReflective is ReadWire through Read and proto's marshal.
func (pr *ProtoReader) readWireReflective(dst []byte) ([]byte, error) {
	if pr.msg == nil {
		pr.msg = pr.mt.New().Interface()
	}
	if err := pr.ReadInto(pr.msg); err != nil {
		return dst, err
	}
	out, err := wireOpts.MarshalAppend(dst, pr.msg)
	if err != nil {
		return dst, fieldpath.Record(err, pr.ar.row-1)
	}
	return out, nil
}

// wireField is the compiled form of one field of a message position.
type wireField struct {
	fd    protoreflect.FieldDescriptor
	name  string // Avro field name, for error paths
	kind  protoreflect.Kind
	shape protoschema.Shape
	oneof int // declaration index of its oneof, -1 if none (or synthetic)
	// tag is the tag of one value; a packed list's is packedTag and a
	// group ends with endTag. A map entry holds keyTag and valTag.
	tag, packedTag, endTag uint64
	keyTag, valTag         uint64
	packed                 bool
	keyKind                protoreflect.Kind
	node                   *layout.Node         // the union of an optional field
	col                    *format.ColumnReader // list or map lengths
	items                  *format.ColumnReader // scalar values
	keys                   *format.ColumnReader
	msg                    *wireMsg                       // message values stored as records
	ser                    protoreflect.MessageDescriptor // message values stored serialized
}

// wireMsg is the compiled encoder of a message at one position of the
// file's layout.
type wireMsg struct {
	desc    protoreflect.MessageDescriptor
	fields  []wireField // in the order deterministic marshalling emits them
	unknown *format.ColumnReader
	// reparse is set for messages with extension ranges: their unknown
	// fields may hold extensions that Read turns into extension fields.
	reparse bool
}

// wireEnt is one encoded map entry.
type wireEnt struct {
	key        []byte // string keys
	num        uint64 // other keys
	start, end int    // the entry's encoding
}

// wireEncoder holds the compiled tree and the scratch state of ReadWire.
type wireEncoder struct {
	ar        *AvroReader
	root      *wireMsg // nil: read with Read and marshal
	resolver  protovalue.Resolver
	recursion int // for messages stored serialized
	ents      []wireEnt
	tmp       []byte
}

func newWireEncoder(pr *ProtoReader) (*wireEncoder, error) {
	e := &wireEncoder{ar: pr.ar, resolver: pr.resolver, recursion: pr.recursion}
	mp := pr.conv.Mapping()
	if !pr.own || mp.UsesMessageSet() {
		return e, nil
	}
	root, err := compileWireMsg(mp.Root, pr.ar.root.w, pr.ar.cols)
	if err != nil {
		return nil, err
	}
	e.root = root
	return e, nil
}

// compileWireMsg compiles the encoder of record r at layout position n,
// whose columns cols reads.
func compileWireMsg(r *protoschema.Record, n *layout.Node, cols []*format.ColumnReader) (*wireMsg, error) {
	bad := func(field string) error {
		return fmt.Errorf("assemble: the layout of %s.%s does not match its protobuf mapping", r.Name, field)
	}
	column := func(i int) *format.ColumnReader {
		if i < 0 || i >= len(cols) {
			return nil
		}
		return cols[i]
	}
	nf := len(r.Fields)
	if r.Unknown != "" {
		nf++
	}
	if n.Kind != schema.Record || len(n.Fields) != nf {
		return nil, bad("")
	}
	m := &wireMsg{desc: r.Desc, fields: make([]wireField, len(r.Fields)), reparse: r.Desc.ExtensionRanges().Len() > 0}
	for i := range r.Fields {
		f := &r.Fields[i]
		fd := f.Desc
		wf := &m.fields[i]
		wf.fd, wf.name, wf.kind, wf.shape, wf.oneof = fd, f.Name, f.Value.Kind(), f.Shape, -1
		if f.Oneof != nil {
			wf.oneof = f.Oneof.Index()
		}
		num := fd.Number()
		fn := n.Fields[i]
		items, ok := f.ValueNode(fn) // the node of one value
		if !ok {
			return nil, bad(f.Name)
		}
		switch f.Shape {
		case protoschema.Map:
			wf.col, wf.keys = column(fn.Col), column(fn.KeyCol)
			wf.keyKind = fd.MapKey().Kind()
			wf.tag = uint64(protowire.EncodeTag(num, protowire.BytesType))
			wf.keyTag = uint64(protowire.EncodeTag(1, protoschema.WireType(wf.keyKind)))
			wf.valTag = uint64(protowire.EncodeTag(2, protoschema.WireType(wf.kind)))
			if wf.keys == nil {
				return nil, bad(f.Name)
			}
		case protoschema.List:
			wf.col = column(fn.Col)
			wf.packed = fd.IsPacked()
		case protoschema.Optional:
			if wf.node = fn; column(fn.BranchCols[1]) == nil {
				return nil, bad(f.Name)
			}
		}
		if wf.shape != protoschema.Map {
			wf.tag = uint64(protowire.EncodeTag(num, protoschema.WireType(wf.kind)))
			wf.packedTag = uint64(protowire.EncodeTag(num, protowire.BytesType))
			wf.endTag = uint64(protowire.EncodeTag(num, protowire.EndGroupType))
		}
		if (wf.shape == protoschema.List || wf.shape == protoschema.Map) && wf.col == nil {
			return nil, bad(f.Name)
		}
		switch {
		case f.Record != nil:
			c, err := compileWireMsg(f.Record, items, cols)
			if err != nil {
				return nil, err
			}
			wf.msg = c
		case f.Serialized:
			wf.ser = f.Value.Message()
			fallthrough
		default:
			if items.Kind == schema.Record || column(items.Col) == nil {
				return nil, bad(f.Name)
			}
			wf.items = column(items.Col)
		}
	}
	if r.Unknown != "" {
		u := n.Fields[len(r.Fields)]
		if m.unknown = column(u.Col); m.unknown == nil || u.Type != format.Bytes {
			return nil, bad(r.Unknown)
		}
	}
	// protobuf-go's deterministic order: fields outside oneofs by
	// number, then each oneof's members, the oneofs in declaration order.
	slices.SortStableFunc(m.fields, func(a, b wireField) int {
		if c := cmp.Compare(a.oneof, b.oneof); c != 0 {
			return c
		}
		return cmp.Compare(a.fd.Number(), b.fd.Number())
	})
	return m, nil
}

// message appends the encoding of the next message of type m.
func (e *wireEncoder) message(b []byte, m *wireMsg) ([]byte, error) {
	if err := e.ar.charge(recordCost + valueCost*int64(len(m.fields))); err != nil {
		return b, err
	}
	start := len(b)
	oneof := -1 // the oneof whose member was written last
	for i := range m.fields {
		f := &m.fields[i]
		var set bool
		var err error
		if b, set, err = e.field(b, f); err != nil {
			return b, fieldpath.At(err, f.name)
		}
		if set && f.oneof >= 0 {
			if f.oneof == oneof {
				od := f.fd.ContainingOneof()
				return b, fieldpath.At(fmt.Errorf("oneof %s has more than one member set", od.Name()), f.name)
			}
			oneof = f.oneof
		}
	}
	if m.unknown == nil {
		return b, nil
	}
	u, err := m.unknown.ReadBytes()
	if err != nil {
		return b, err
	}
	if m.reparse && len(u) > 0 {
		return e.reparse(b, start, m, u)
	}
	return append(b, u...), nil
}

// reparse re-encodes the message encoded from b[start:] together with its
// unknown fields u as Read does: parsed with the resolver, so that
// extensions it knows become extension fields, which sort first.
func (e *wireEncoder) reparse(b []byte, start int, m *wireMsg, u []byte) ([]byte, error) {
	msg := dynamicpb.NewMessage(m.desc)
	o := proto.UnmarshalOptions{AllowPartial: true, Resolver: e.resolver, RecursionLimit: e.recursion}
	if err := protosafe.Unmarshal(o, b[start:], msg); err != nil {
		return b, err
	}
	o.Merge = true
	if err := protosafe.Unmarshal(o, u, msg); err != nil {
		return b, err
	}
	return wireOpts.MarshalAppend(b[:start], msg)
}

// field appends the encoding of field f, if set, and reports whether it
// was.
func (e *wireEncoder) field(b []byte, f *wireField) ([]byte, bool, error) {
	switch f.shape {
	case protoschema.Implicit:
		u, v, err := e.scalar(f.items, f.kind)
		if err != nil || (u == 0 && len(v) == 0) { // unset: the zero value
			return b, false, err
		}
		b = protowire.AppendVarint(b, f.tag)
		return appendScalar(b, f.kind, u, v), true, nil
	case protoschema.Optional:
		br, err := e.ar.branch(f.node)
		if err != nil || f.node.Branches[br] == nil {
			return b, false, err
		}
		b, err = e.value(b, f, f.tag)
		return b, true, err
	case protoschema.List:
		n, err := e.ar.length(f.col)
		if err != nil || n == 0 {
			return b, false, err
		}
		if f.packed {
			b = protowire.AppendVarint(b, f.packedTag)
			pos := len(b)
			b = append(b, 0)
			for range n {
				u, v, err := e.scalar(f.items, f.kind)
				if err != nil {
					return b, false, err
				}
				b = appendScalar(b, f.kind, u, v)
			}
			return finishLength(b, pos), true, nil
		}
		for i := range n {
			if b, err = e.value(b, f, f.tag); err != nil {
				if f.msg != nil || f.ser != nil {
					err = fieldpath.At(err, fieldpath.Index(i))
				}
				return b, false, err
			}
		}
		return b, true, nil
	}
	return e.mapField(b, f)
}

// value appends one value of f with its tag: the field's, a list
// element, or a map value.
func (e *wireEncoder) value(b []byte, f *wireField, tag uint64) ([]byte, error) {
	b = protowire.AppendVarint(b, tag)
	switch {
	case f.msg != nil:
		if f.kind == protoreflect.GroupKind {
			b, err := e.message(b, f.msg)
			return protowire.AppendVarint(b, f.endTag), err
		}
		pos := len(b)
		b, err := e.message(append(b, 0), f.msg)
		if err != nil {
			return b, err
		}
		return finishLength(b, pos), nil
	case f.ser != nil:
		return e.serialized(b, f)
	}
	u, v, err := e.scalar(f.items, f.kind)
	if err != nil {
		return b, err
	}
	return appendScalar(b, f.kind, u, v), nil
}

// serialized appends a message stored serialized, where recursion was
// cut, as Read parses it and proto marshals it.
func (e *wireEncoder) serialized(b []byte, f *wireField) ([]byte, error) {
	data, err := f.items.ReadBytes()
	if err == nil {
		err = e.ar.charge(int64(len(data)))
	}
	if err != nil {
		return b, err
	}
	m := dynamicpb.NewMessage(f.ser)
	o := proto.UnmarshalOptions{Merge: true, AllowPartial: true, Resolver: e.resolver, RecursionLimit: e.recursion}
	if err := protosafe.Unmarshal(o, data, m); err != nil {
		return b, err
	}
	if f.kind == protoreflect.GroupKind {
		b, err := wireOpts.MarshalAppend(b, m)
		return protowire.AppendVarint(b, f.endTag), err
	}
	pos := len(b)
	if b, err = wireOpts.MarshalAppend(append(b, 0), m); err != nil {
		return b, err
	}
	return finishLength(b, pos), nil
}

var lengthPad [9]byte

// finishLength writes at b[pos] the length of what follows it, moving that
// along when the length takes more than the one byte kept for it.
func finishLength(b []byte, pos int) []byte {
	n := len(b) - pos - 1
	if n < 0x80 {
		b[pos] = byte(n)
		return b
	}
	k := protowire.SizeVarint(uint64(n))
	b = append(b, lengthPad[:k-1]...)
	copy(b[pos+k:], b[pos+1:pos+1+n])
	protowire.AppendVarint(b[:pos], uint64(n))
	return b
}

// scalar reads one value of kind k from c: a number as the wire carries
// it, or the bytes of a string or bytes value. It checks what Read checks.
func (e *wireEncoder) scalar(c *format.ColumnReader, k protoreflect.Kind) (uint64, []byte, error) {
	switch k {
	case protoreflect.BoolKind:
		v, err := c.ReadBool()
		if v {
			return 1, nil, err
		}
		return 0, nil, err
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind, protoreflect.EnumKind:
		v, err := c.ReadInt()
		return uint64(int64(v)), nil, err
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		v, err := c.ReadLong()
		if err == nil && (v < 0 || v > math.MaxUint32) {
			err = fmt.Errorf("%d out of range [0, %d]", v, math.MaxUint32)
		}
		return uint64(v), nil, err
	case protoreflect.FloatKind:
		v, err := c.ReadFloat()
		// protoreflect holds a float as a float64, which quiets a
		// signalling NaN: convert the same way.
		f := float32(protoreflect.ValueOfFloat32(v).Float())
		return uint64(math.Float32bits(f)), nil, err
	case protoreflect.DoubleKind:
		v, err := c.ReadDouble()
		return math.Float64bits(v), nil, err
	case protoreflect.StringKind:
		v, err := c.ReadBytes()
		if err == nil && !utf8check.Valid(v) {
			err = fmt.Errorf("%w: string is not valid UTF-8", format.ErrFormat)
		}
		if err == nil {
			err = e.ar.charge(int64(len(v)))
		}
		return 0, v, err
	case protoreflect.BytesKind:
		v, err := c.ReadBytes()
		if err == nil {
			err = e.ar.charge(int64(len(v)))
		}
		return 0, v, err
	}
	v, err := c.ReadLong() // the 64-bit kinds
	return uint64(v), nil, err
}

// appendScalar appends a value read by scalar, as proto marshals it.
func appendScalar(b []byte, k protoreflect.Kind, u uint64, v []byte) []byte {
	switch k {
	case protoreflect.Sint32Kind:
		return protowire.AppendVarint(b, protowire.EncodeZigZag(int64(int32(u))))
	case protoreflect.Sint64Kind:
		return protowire.AppendVarint(b, protowire.EncodeZigZag(int64(u)))
	case protoreflect.Sfixed32Kind, protoreflect.Fixed32Kind, protoreflect.FloatKind:
		return protowire.AppendFixed32(b, uint32(u))
	case protoreflect.Sfixed64Kind, protoreflect.Fixed64Kind, protoreflect.DoubleKind:
		return protowire.AppendFixed64(b, u)
	case protoreflect.StringKind, protoreflect.BytesKind:
		return protowire.AppendBytes(b, v)
	}
	return protowire.AppendVarint(b, u)
}

// mapField appends the entries of a map field in protobuf-go's
// deterministic order: by key, false before true, numbers by value,
// strings bytewise.
func (e *wireEncoder) mapField(b []byte, f *wireField) ([]byte, bool, error) {
	n, err := e.ar.length(f.col)
	if err != nil || n == 0 {
		return b, false, err
	}
	start, eb := len(b), len(e.ents)
	for range n {
		k, err := f.keys.ReadBytes()
		if err == nil {
			err = e.ar.charge(int64(len(k)))
		}
		if err != nil {
			return b, false, err
		}
		if !utf8check.Valid(k) {
			return b, false, fmt.Errorf("%w: map key is not valid UTF-8", format.ErrFormat)
		}
		num, err := parseMapKey(k, f.keyKind)
		if err != nil {
			return b, false, fieldpath.At(err, fieldpath.Key(string(k)))
		}
		ent := wireEnt{key: k, num: num, start: len(b)}
		b = protowire.AppendVarint(b, f.tag)
		pos := len(b)
		b = protowire.AppendVarint(append(b, 0), f.keyTag)
		b = appendScalar(b, f.keyKind, num, k)
		if b, err = e.value(b, f, f.valTag); err != nil {
			return b, false, fieldpath.At(err, fieldpath.Key(string(k)))
		}
		b = finishLength(b, pos)
		ent.end = len(b)
		e.ents = append(e.ents, ent)
	}
	ents := e.ents[eb:]
	less := func(x, y wireEnt) int { return compareKeys(f.keyKind, x, y) }
	if !slices.IsSortedFunc(ents, less) || hasEqualNeighbours(ents, less) {
		slices.SortStableFunc(ents, less)
		e.tmp = append(e.tmp[:0], b[start:]...)
		b = b[:start]
		for i, ent := range ents {
			if i+1 < len(ents) && less(ent, ents[i+1]) == 0 {
				continue // as in a map, the last of equal keys wins
			}
			b = append(b, e.tmp[ent.start-start:ent.end-start]...)
		}
	}
	e.ents = e.ents[:eb]
	return b, true, nil
}

func hasEqualNeighbours(ents []wireEnt, cmp func(x, y wireEnt) int) bool {
	for i := 1; i < len(ents); i++ {
		if cmp(ents[i-1], ents[i]) == 0 {
			return true
		}
	}
	return false
}

// compareKeys orders map keys of kind k as protobuf-go's deterministic
// marshal does.
func compareKeys(k protoreflect.Kind, x, y wireEnt) int {
	switch k {
	case protoreflect.StringKind:
		return bytes.Compare(x.key, y.key)
	case protoreflect.BoolKind, protoreflect.Uint32Kind, protoreflect.Fixed32Kind,
		protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return cmp.Compare(x.num, y.num)
	}
	return cmp.Compare(int64(x.num), int64(y.num))
}

// parseMapKey parses the Avro text of a map key of kind k, accepting only
// what protoschema.MapKeyText makes (see protoschema.ParseMapKey). Numbers
// come back as scalar reads them.
func parseMapKey(s []byte, k protoreflect.Kind) (uint64, error) {
	switch k {
	case protoreflect.StringKind:
		return 0, nil
	case protoreflect.BoolKind:
		switch string(s) {
		case "true":
			return 1, nil
		case "false":
			return 0, nil
		}
		return 0, mapKeyError(s, k)
	}
	signed := true
	lo, hi := int64(math.MinInt64), uint64(math.MaxInt64)
	switch k {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		lo, hi = math.MinInt32, math.MaxInt32
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		signed, lo, hi = false, 0, math.MaxUint32
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		signed, lo, hi = false, 0, math.MaxUint64
	}
	d := s
	neg := signed && len(d) > 0 && d[0] == '-'
	if neg {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 20 || d[0] == '0' && (len(d) > 1 || neg) {
		return 0, mapKeyError(s, k)
	}
	var u uint64
	for _, c := range d {
		if c < '0' || c > '9' || u > (math.MaxUint64-uint64(c-'0'))/10 {
			return 0, mapKeyError(s, k)
		}
		u = u*10 + uint64(c-'0')
	}
	if !neg {
		if u > hi {
			return 0, mapKeyError(s, k)
		}
		return u, nil
	}
	if u > uint64(-(lo+1))+1 {
		return 0, mapKeyError(s, k)
	}
	return -u, nil
}

// mapKeyError returns ParseMapKey's error for a key that does not parse.
func mapKeyError(s []byte, k protoreflect.Kind) error {
	if _, err := protoschema.ParseMapKey(string(s), k); err != nil {
		return err
	}
	return errors.New("assemble: map key " + strconv.Quote(string(s)) + " does not parse")
}
