package protoschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// MetaOptions is the key of the Trevni file metadata that holds the
// mapping options a file was written with (see [Options.String]); the
// message's descriptors are stored beside it (package protoload).
const MetaOptions = "protobuf.options"

// Options configure the mapping. A nil *Options, like the zero value, is
// the default. A file's reader must use the options its writer used; see
// [MetaOptions].
type Options struct {
	// RecursionLimit is how many times a message type may be expanded inside
	// itself before a nested occurrence is stored as serialized bytes. Zero
	// stores the first recurrence as bytes.
	RecursionLimit int
	// DropUnknown leaves out the field that keeps unknown fields and
	// extensions. The mapping is then lossy for messages that have them.
	DropUnknown bool
	// Limits bounds the mapping as it bounds the column layout made from
	// it (nil means the defaults): the mapping stops with an error
	// wrapping layout.ErrTooLarge once its records have more than
	// Limits.MaxColumns fields in all, or nest more than Limits.MaxDepth
	// deep, before it allocates more. Every field is a node of the
	// layout, so a mapping stopped here would not have a layout within
	// the same limits either. Limits are not part of the mapping and are
	// not stored in files.
	Limits *layout.Options
}

// String returns the options in the form that [ParseStoredOptions] reads,
// for storing under [MetaOptions].
func (o Options) String() string {
	return "recursion_limit=" + strconv.Itoa(o.RecursionLimit) +
		",drop_unknown=" + strconv.FormatBool(o.DropUnknown)
}

// ParseStoredOptions parses the text of [Options.String], as a file stores
// it under [MetaOptions]. Unknown keys are errors; missing keys keep their
// zero value, and "" is the default options.
func ParseStoredOptions(s string) (*Options, error) {
	o := new(Options)
	if s == "" {
		return o, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("protoschema: options %q: %q is not key=value", s, kv)
		}
		var err error
		switch k {
		case "recursion_limit":
			o.RecursionLimit, err = strconv.Atoi(v)
			if err == nil && o.RecursionLimit < 0 {
				err = errors.New("negative")
			}
		case "drop_unknown":
			o.DropUnknown, err = strconv.ParseBool(v)
		default:
			err = errors.New("unknown option")
		}
		if err != nil {
			return nil, fmt.Errorf("protoschema: options %q: %s: %w", s, k, err)
		}
	}
	return o, nil
}

// Mapping is the Avro form of one protobuf message type: the Avro schema,
// and the record tree that annotates it with the protobuf descriptors, which
// the value converter and the wire compilers walk. A Mapping is immutable
// and safe for concurrent use.
type Mapping struct {
	// Root is the record of the message type; Root.Schema is Schema.
	Root *Record
	// Schema is the Avro schema. Its JSON text, as files store it, is
	// Schema.String().
	Schema  *schema.Schema
	Options Options
}

// Record is the Avro record for a message type at one place in the tree. A
// message type has more than one Record when recursion is cut at different
// depths in different places; each then has its own Avro name.
type Record struct {
	Name string // Avro full name
	Desc protoreflect.MessageDescriptor
	// Schema is the record's node in the Avro schema, shared by every
	// place the Record occurs. Its fields are Fields' Avro fields in
	// order, then the unknown-fields field, if any.
	Schema *schema.Schema
	// Fields are the message's fields in declaration order.
	Fields []Field
	// Unknown is the name of the bytes field holding the message's unknown
	// fields and extensions in wire format, or "" with Options.DropUnknown.
	Unknown string
}

// Field is one protobuf field of a Record.
type Field struct {
	Name string // Avro field name, the protobuf field name
	Desc protoreflect.FieldDescriptor
	// Avro is the field in the Avro schema.
	Avro *schema.Field
	// Shape is how the field's values stand in the Avro field.
	Shape Shape
	// Value describes one value of the field: Desc itself, or the value
	// of a map's entries.
	Value protoreflect.FieldDescriptor
	// Oneof is the oneof the field is a member of, nil if none: the
	// synthetic oneof of a proto3 optional field is none.
	Oneof protoreflect.OneofDescriptor
	// Branch is the name of T in the union ["null", T] of an Optional
	// field, "" for other shapes.
	Branch string
	// Record describes the message of a message field, a list element or a
	// map value. It is nil for other kinds and when Serialized.
	Record *Record
	// Serialized is set when recursion was cut here: the message (each
	// element, each map value) is stored as its protobuf wire encoding in an
	// Avro bytes value.
	Serialized bool
}

// UnknownFieldName is the preferred name of the field that holds unknown
// fields. When a message has a field of that name, underscores are prepended
// until the name is free.
const UnknownFieldName = "_unknown"

// New builds the mapping of md. A nil opts means the defaults.
func New(md protoreflect.MessageDescriptor, opts *Options) (*Mapping, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if md == nil {
		return nil, errors.New("protoschema: nil message descriptor")
	}
	if md.IsMapEntry() {
		return nil, fmt.Errorf("protoschema: %s is a map entry", md.FullName())
	}
	if o.RecursionLimit < 0 {
		return nil, errors.New("protoschema: negative RecursionLimit")
	}
	b := &builder{
		opts:      o,
		maxFields: layout.DefaultMaxColumns,
		maxDepth:  layout.DefaultMaxDepth,
		onPath:    make(map[protoreflect.FullName]int),
		memo:      make(map[string]*Record),
		reach:     make(map[protoreflect.FullName]map[protoreflect.FullName]bool),
		interned:  make(map[string]*Record),
		ids:       make(map[*Record]int),
		reserved:  make(map[string]bool),
	}
	if l := o.Limits; l != nil {
		if l.MaxColumns > 0 {
			b.maxFields = l.MaxColumns
		}
		if l.MaxDepth > 0 {
			b.maxDepth = l.MaxDepth
		}
	}
	for _, p := range primitiveNames {
		b.reserved[p] = true
	}
	root, err := b.record(md)
	if err != nil {
		return nil, err
	}
	b.assignNames(root)
	buildSchema(root)
	return &Mapping{Root: root, Schema: root.Schema, Options: o}, nil
}

// AvroSchema returns the Avro schema of md: New's Mapping.Schema. A nil
// opts means the defaults.
func AvroSchema(md protoreflect.MessageDescriptor, opts *Options) (*schema.Schema, error) {
	mp, err := New(md, opts)
	if err != nil {
		return nil, err
	}
	return mp.Schema, nil
}

var primitiveNames = []string{
	"null", "boolean", "int", "long", "float", "double", "bytes", "string",
	"record", "enum", "array", "map", "fixed", "error",
}

type builder struct {
	opts     Options
	onPath   map[protoreflect.FullName]int // message types on the way from the root
	memo     map[string]*Record            // by message and the part of onPath it can see
	reach    map[protoreflect.FullName]map[protoreflect.FullName]bool
	interned map[string]*Record // by shape signature
	ids      map[*Record]int
	reserved map[string]bool // message full names and primitive names

	fields    int // fields of the records expanded so far
	depth     int // records being expanded
	maxFields int
	maxDepth  int
}

// record expands md at the current position. Records of the same message
// type and the same shape (the same places cut) are shared.
func (b *builder) record(md protoreflect.MessageDescriptor) (*Record, error) {
	name := md.FullName()
	b.reserved[string(name)] = true
	// The shape depends only on how often the types md can reach are on
	// the path; expand each such state once.
	state := b.state(md)
	if r, ok := b.memo[state]; ok {
		return r, nil
	}
	// Count before allocating: a small descriptor can claim an
	// exponential tree (RecursionLimit multiplies the shapes of mutually
	// recursive types).
	b.fields += md.Fields().Len() + 1
	if b.fields > b.maxFields {
		return nil, fmt.Errorf("protoschema: %s: %w: the mapping has more than %d fields (lower the recursion limit, or raise the column limit)", name, layout.ErrTooLarge, b.maxFields)
	}
	if b.depth >= b.maxDepth {
		return nil, fmt.Errorf("protoschema: %s: %w: messages nest more than %d deep (lower the recursion limit, or raise the depth limit)", name, layout.ErrTooLarge, b.maxDepth)
	}
	b.depth++
	r, err := b.expand(md)
	b.depth--
	if err != nil {
		return nil, err
	}
	b.memo[state] = r
	return r, nil
}

// state names md together with the counts on the path of the message types
// reachable from md.
func (b *builder) state(md protoreflect.MessageDescriptor) string {
	reach := b.reachable(md)
	var seen []string
	for n, c := range b.onPath {
		if c > 0 && reach[n] {
			seen = append(seen, string(n)+"="+strconv.Itoa(c))
		}
	}
	slices.Sort(seen)
	return string(md.FullName()) + "|" + strings.Join(seen, ",")
}

// reachable returns the message types that md's fields lead to, directly or
// not.
func (b *builder) reachable(md protoreflect.MessageDescriptor) map[protoreflect.FullName]bool {
	if r, ok := b.reach[md.FullName()]; ok {
		return r
	}
	r := make(map[protoreflect.FullName]bool)
	var walk func(md protoreflect.MessageDescriptor)
	walk = func(md protoreflect.MessageDescriptor) {
		fields := md.Fields()
		for i := range fields.Len() {
			vd := fields.Get(i)
			if vd.IsMap() {
				vd = vd.MapValue()
			}
			if m := vd.Message(); m != nil && !r[m.FullName()] {
				r[m.FullName()] = true
				walk(m)
			}
		}
	}
	walk(md)
	b.reach[md.FullName()] = r
	return r
}

func (b *builder) expand(md protoreflect.MessageDescriptor) (*Record, error) {
	name := md.FullName()
	b.onPath[name]++
	defer func() { b.onPath[name]-- }()

	fields := md.Fields()
	rec := &Record{Desc: md, Fields: make([]Field, fields.Len())}
	var sig strings.Builder
	sig.WriteString(string(name))
	taken := make(map[string]bool, fields.Len())
	for i := range fields.Len() {
		fd := fields.Get(i)
		f := &rec.Fields[i]
		f.Name = string(fd.Name())
		f.Desc = fd
		f.Shape, f.Value = shapeOf(fd), fd
		if f.Shape == Map {
			f.Value = fd.MapValue()
		}
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			f.Oneof = od
		}
		taken[f.Name] = true
		vd := f.Value
		if vd.Message() == nil {
			continue
		}
		sig.WriteByte('|')
		sig.WriteString(strconv.Itoa(i))
		if b.onPath[vd.Message().FullName()] > b.opts.RecursionLimit {
			f.Serialized = true
			sig.WriteString("s")
			continue
		}
		child, err := b.record(vd.Message())
		if err != nil {
			return nil, err
		}
		f.Record = child
		sig.WriteString(":" + strconv.Itoa(b.ids[child]))
	}
	if !b.opts.DropUnknown {
		rec.Unknown = UnknownFieldName
		for taken[rec.Unknown] {
			rec.Unknown = "_" + rec.Unknown
		}
	}
	key := sig.String()
	if r, ok := b.interned[key]; ok {
		return r, nil
	}
	b.interned[key] = rec
	b.ids[rec] = len(b.ids)
	return rec, nil
}

// assignNames names the records in depth-first order: the first record of a
// message type takes the type's full name, later shapes of the same type
// take the full name with a suffix _2, _3... that no message type uses.
func (b *builder) assignNames(root *Record) {
	used := make(map[string]bool)
	var visit func(r *Record)
	visit = func(r *Record) {
		if r.Name != "" {
			return
		}
		base := string(r.Desc.FullName())
		n := base
		if used[n] || isPrimitive(n) {
			for k := 2; ; k++ {
				n = base + "_" + strconv.Itoa(k)
				if !used[n] && !b.reserved[n] {
					break
				}
			}
		}
		used[n] = true
		r.Name = n
		for i := range r.Fields {
			if c := r.Fields[i].Record; c != nil {
				visit(c)
			}
		}
	}
	visit(root)

	done := make(map[*Record]bool)
	var branches func(r *Record)
	branches = func(r *Record) {
		if done[r] {
			return
		}
		done[r] = true
		for i := range r.Fields {
			f := &r.Fields[i]
			if f.Shape == Optional {
				f.Branch = branchName(f)
			}
			if f.Record != nil {
				branches(f.Record)
			}
		}
	}
	branches(root)
}

func isPrimitive(n string) bool {
	for _, p := range primitiveNames {
		if p == n {
			return true
		}
	}
	return false
}

// branchName is the union branch name of a nullable field's value.
func branchName(f *Field) string {
	if f.Record != nil {
		return f.Record.Name
	}
	if f.Serialized {
		return "bytes"
	}
	return scalarKind(f.Desc.Kind()).String()
}

// scalarKind is the Avro primitive type of a non-message kind.
func scalarKind(k protoreflect.Kind) schema.Kind {
	switch k {
	case protoreflect.BoolKind:
		return schema.Boolean
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind, protoreflect.EnumKind:
		return schema.Int
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind,
		protoreflect.Uint32Kind, protoreflect.Fixed32Kind,
		protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return schema.Long
	case protoreflect.FloatKind:
		return schema.Float
	case protoreflect.DoubleKind:
		return schema.Double
	case protoreflect.StringKind:
		return schema.String
	}
	return schema.Bytes // bytes; messages where recursion was cut
}

// UsesMessageSet reports whether a message type of the mapping uses the
// legacy message set wire format, which the wire fast paths do not handle.
func (mp *Mapping) UsesMessageSet() bool {
	seen := make(map[*Record]bool)
	var walk func(r *Record) bool
	walk = func(r *Record) bool {
		if seen[r] {
			return false
		}
		seen[r] = true
		// The runtime's descriptors answer IsMessageSet (its option
		// message_set_wire_format), as the runtime itself asks them:
		// asking so rather than through descriptorpb's MessageOptions
		// keeps descriptorpb out of a reader's program.
		if m, ok := r.Desc.(interface{ IsMessageSet() bool }); ok && m.IsMessageSet() {
			return true
		}
		for i := range r.Fields {
			if c := r.Fields[i].Record; c != nil && walk(c) {
				return true
			}
		}
		return false
	}
	return walk(mp.Root)
}

// MatchFieldNumber finds the field of the writer record that the reader
// field reads by protobuf field number, which is how protobuf itself
// matches fields: a field renamed since the file was written is the same
// field. It returns the writer field's index, or -1 if either field has no
// [PropNumber] or no writer field has the reader's. It has the signature of
// assemble.Options.MatchField, which schema resolution consults after
// names and aliases.
func MatchFieldNumber(reader *schema.Field, writer *schema.Schema) int {
	n, ok := fieldNumber(reader)
	if !ok || writer == nil {
		return -1
	}
	for i, f := range writer.Fields {
		if m, ok := fieldNumber(f); ok && m == n {
			return i
		}
	}
	return -1
}

// fieldNumber returns the PropNumber of f as text.
func fieldNumber(f *schema.Field) (string, bool) {
	v, ok := f.Prop(PropNumber)
	if !ok {
		return "", false
	}
	switch n := v.(type) {
	case json.Number:
		return string(n), true
	case string:
		return n, true
	}
	return fmt.Sprint(v), true
}
