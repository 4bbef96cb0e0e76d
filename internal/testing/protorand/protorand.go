// Package protorand fills protobuf messages with random values for tests.
// The same seed gives the same messages.
//
// It sets every kind of field, repeated fields, maps with random keys, at
// most one member of each oneof, fields with presence sometimes unset and
// sometimes set to their zero value, nested and recursive messages down to a
// depth limit, extensions it is given, and unknown fields. Floats include
// -0, infinities and NaN; open enums get numbers they do not declare;
// strings are valid UTF-8 with multi-byte runes.
package protorand

import (
	"math"
	"math/rand/v2"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Filler fills messages. Set its fields before the first Fill.
type Filler struct {
	// MaxDepth is the deepest level of message nesting filled; the message
	// given to Fill is level 0. Deeper message fields stay unset.
	MaxDepth int
	// MaxLen bounds the number of elements of repeated and map fields and
	// the length of strings (in runes) and bytes.
	MaxLen int
	// Unknown adds unknown fields to about one message in four.
	Unknown bool
	// Extensions are set, each with probability 1/2, on the messages they
	// extend.
	Extensions []protoreflect.ExtensionType
	// Partial leaves proto2 required fields unset as often as other fields
	// with presence. Without it they are always set (a required field of a
	// message type below MaxDepth excepted), so the messages are complete,
	// as the protobuf writers require (they refuse a message missing a
	// required field).
	Partial bool

	rnd *rand.Rand
}

// New returns a filler seeded with seed, with MaxDepth 4, MaxLen 4 and
// Unknown set.
func New(seed uint64) *Filler {
	return &Filler{
		MaxDepth: 4,
		MaxLen:   4,
		Unknown:  true,
		rnd:      rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)),
	}
}

// Fill sets random values in m's fields. It does not clear m first.
func (f *Filler) Fill(m protoreflect.Message) {
	f.fill(m, 0)
}

func (f *Filler) fill(m protoreflect.Message, depth int) {
	md := m.Descriptor()
	oneofs := md.Oneofs()
	for i := range oneofs.Len() {
		od := oneofs.Get(i)
		if od.IsSynthetic() {
			continue
		}
		n := od.Fields().Len()
		if k := f.rnd.IntN(n + 1); k < n {
			f.setSingular(m, od.Fields().Get(k), depth)
		}
	}
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			continue
		}
		f.setField(m, fd, depth)
	}
	for _, xt := range f.Extensions {
		xd := xt.TypeDescriptor()
		if xd.ContainingMessage().FullName() == md.FullName() && f.rnd.IntN(2) == 0 {
			f.setField(m, xd, depth)
		}
	}
	if f.Unknown && f.rnd.IntN(4) == 0 {
		m.SetUnknown(f.unknown(md, m.GetUnknown()))
	}
}

func (f *Filler) setField(m protoreflect.Message, fd protoreflect.FieldDescriptor, depth int) {
	switch {
	case fd.IsList():
		n := f.length()
		if n == 0 || (isMessage(fd) && depth >= f.MaxDepth) {
			return
		}
		l := m.Mutable(fd).List()
		for range n {
			if isMessage(fd) {
				v := l.NewElement()
				f.fill(v.Message(), depth+1)
				l.Append(v)
			} else {
				l.Append(f.scalar(fd))
			}
		}
	case fd.IsMap():
		n := f.length()
		vd := fd.MapValue()
		if n == 0 || (isMessage(vd) && depth >= f.MaxDepth) {
			return
		}
		mm := m.Mutable(fd).Map()
		for range n {
			k := f.scalar(fd.MapKey()).MapKey()
			if isMessage(vd) {
				f.fill(mm.Mutable(k).Message(), depth+1)
			} else {
				mm.Set(k, f.scalar(vd))
			}
		}
	case fd.HasPresence():
		if f.rnd.IntN(3) > 0 || (fd.Cardinality() == protoreflect.Required && !f.Partial) {
			f.setSingular(m, fd, depth)
		}
	default:
		f.setSingular(m, fd, depth)
	}
}

func (f *Filler) setSingular(m protoreflect.Message, fd protoreflect.FieldDescriptor, depth int) {
	if !isMessage(fd) {
		m.Set(fd, f.scalar(fd))
		return
	}
	if depth >= f.MaxDepth {
		return
	}
	f.fill(m.Mutable(fd).Message(), depth+1)
}

func isMessage(fd protoreflect.FieldDescriptor) bool {
	return fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind
}

func (f *Filler) length() int { return f.rnd.IntN(f.MaxLen + 1) }

// scalar returns a random value of a non-message field.
func (f *Filler) scalar(fd protoreflect.FieldDescriptor) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(f.rnd.IntN(2) == 1)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(f.integer(32)))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(int64(f.integer(64)))
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(f.integer(32)))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(f.integer(64))
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(f.float()))
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(f.float())
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(f.text())
	case protoreflect.BytesKind:
		b := make([]byte, f.rnd.IntN(2*f.MaxLen+1))
		for i := range b {
			b[i] = byte(f.rnd.Uint32())
		}
		return protoreflect.ValueOfBytes(b)
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(f.enum(fd.Enum()))
	}
	panic("protorand: no scalar of kind " + fd.Kind().String())
}

// integer returns the low bits of a number that is often zero, small, or at
// the edge of the range of a signed or unsigned integer of that many bits.
func (f *Filler) integer(bits int) uint64 {
	switch f.rnd.IntN(8) {
	case 0:
		return 0
	case 1:
		return uint64(f.rnd.IntN(10))
	case 2:
		return ^uint64(0) // -1, or the largest unsigned value
	case 3:
		return 1<<(bits-1) - 1 // largest signed
	case 4:
		return ^uint64(0) << (bits - 1) // smallest signed
	case 5:
		return uint64(-int64(f.rnd.IntN(1000)))
	default:
		return f.rnd.Uint64() >> f.rnd.IntN(64)
	}
}

func (f *Filler) float() float64 {
	switch f.rnd.IntN(10) {
	case 0:
		return 0
	case 1:
		return math.Copysign(0, -1)
	case 2:
		return math.NaN()
	case 3:
		return math.Inf(1 - 2*f.rnd.IntN(2))
	case 4:
		return math.SmallestNonzeroFloat32
	case 5:
		return math.MaxFloat32
	default:
		return (f.rnd.Float64() - 0.5) * math.Pow(10, float64(f.rnd.IntN(20)-10))
	}
}

var runes = []rune{'a', 'Z', '0', ' ', '_', '"', '\\', '\n', 'é', 'ß', 'Ж', '€', '中', '😀', '\u0000', '\uffff'}

func (f *Filler) text() string {
	n := f.rnd.IntN(2*f.MaxLen + 1)
	var b strings.Builder
	for range n {
		if f.rnd.IntN(2) == 0 {
			b.WriteByte(byte('a' + f.rnd.IntN(26)))
		} else {
			b.WriteRune(runes[f.rnd.IntN(len(runes))])
		}
	}
	return b.String()
}

// enum returns a declared number, or for an open enum now and then a number
// the enum does not declare.
func (f *Filler) enum(ed protoreflect.EnumDescriptor) protoreflect.EnumNumber {
	vals := ed.Values()
	if !ed.IsClosed() && f.rnd.IntN(5) == 0 {
		for {
			n := protoreflect.EnumNumber(f.integer(32))
			if vals.ByNumber(n) == nil {
				return n
			}
		}
	}
	return vals.Get(f.rnd.IntN(vals.Len())).Number()
}

// unknown appends one to three fields whose numbers md neither declares nor
// reserves for extensions.
func (f *Filler) unknown(md protoreflect.MessageDescriptor, b []byte) []byte {
	// Numbers are drawn until one is neither a field, reserved, nor in an
	// extension range. An extension range that runs to the largest number
	// (descriptor.proto's options: 1000 to max) holds almost every number,
	// so the draws are made below its start instead: the numbers accepted,
	// and their uniform distribution, stay as they were, without millions
	// of draws.
	top := protowire.MaxValidNumber
	ranges := md.ExtensionRanges()
	for i := range ranges.Len() {
		if r := ranges.Get(i); r[1] > protowire.MaxValidNumber && r[0] > 1 {
			top = min(top, r[0]-1)
		}
	}
	for range 1 + f.rnd.IntN(3) {
		var num protowire.Number
		for {
			num = protowire.Number(1 + f.rnd.IntN(int(top)))
			if num >= protowire.FirstReservedNumber && num <= protowire.LastReservedNumber {
				continue
			}
			if md.Fields().ByNumber(num) == nil && !md.ExtensionRanges().Has(num) {
				break
			}
		}
		switch f.rnd.IntN(5) {
		case 0:
			b = protowire.AppendTag(b, num, protowire.VarintType)
			b = protowire.AppendVarint(b, f.integer(64))
		case 1:
			b = protowire.AppendTag(b, num, protowire.Fixed32Type)
			b = protowire.AppendFixed32(b, f.rnd.Uint32())
		case 2:
			b = protowire.AppendTag(b, num, protowire.Fixed64Type)
			b = protowire.AppendFixed64(b, f.rnd.Uint64())
		case 3:
			b = protowire.AppendTag(b, num, protowire.BytesType)
			b = protowire.AppendString(b, f.text())
		case 4:
			b = protowire.AppendTag(b, num, protowire.StartGroupType)
			b = protowire.AppendTag(b, 1, protowire.VarintType)
			b = protowire.AppendVarint(b, f.integer(64))
			b = protowire.AppendTag(b, num, protowire.EndGroupType)
		}
	}
	return b
}
