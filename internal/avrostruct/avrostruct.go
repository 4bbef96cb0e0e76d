// Package avrostruct compiles a pairing of an Avro schema and a Go struct
// type into a program that decodes the schema's Avro binary encoding into
// values of the type, or encodes values of the type into it. Packages
// assemble (StructReader) and shred (StructWriter) use it.
//
// Struct fields are matched to record fields by the `avro:"name"` tag
// (the tag github.com/hamba/avro uses), then by exact name, then by name
// ignoring case; a field tagged `avro:"-"` and unexported fields are
// ignored. The Go types that fit each Avro type are:
//
//	boolean            bool
//	int                int, int32, int64
//	long               int64, int; time.Time for timestamp-millis/micros/nanos
//	                   and local-timestamp-*; int: time.Time for date
//	float, double      float32, float64 (double only into float64)
//	string             string, []byte
//	bytes              []byte, string
//	fixed              [N]byte of the fixed's size, []byte
//	enum               string (the symbol), int (the index)
//	array              []T
//	map                map[string]T
//	record             struct, or a pointer to one
//	["null", T]        *T (nil for null), in either branch order
//
// Other unions have no Go type here.
package avrostruct

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"
	"unicode"
	"unsafe"

	"github.com/trevni-go/trevni/internal/avrobin"
	"github.com/trevni-go/trevni/schema"
)

// maxDepth bounds how deeply Go types may nest (recursive types are refused).
const maxDepth = 64

type op uint8

const (
	opBool op = iota
	opIntToInt
	opIntToInt32
	opIntToInt64
	opLongToInt64
	opLongToInt
	opFloatToFloat32
	opFloatToFloat64
	opDoubleToFloat64
	opString     // string or bytes into string
	opBytes      // string or bytes into []byte
	opFixedArray // fixed into [N]byte
	opFixedSlice // fixed into []byte
	opEnumString // enum into its symbol
	opEnumInt    // enum into its index
	opTimeMillis // long into time.Time
	opTimeMicros // long into time.Time
	opTimeNanos  // long into time.Time
	opDate       // int into time.Time
	opNullable   // ["null", T] into *T
	opRecord     // record into struct
	opRecordPtr  // record into *struct (never nil once read)
	opSlice      // array into []T
	opMap        // map into map[string]T
)

// Prog is a compiled pairing of an Avro schema node and a Go type.
type Prog struct {
	op      op
	off     uintptr      // the value's offset within its parent struct
	typ     reflect.Type // the Go type
	size    int          // fixed: its size
	nullIdx int          // opNullable: the null branch's index
	valIdx  int          // opNullable: the other branch's index
	symbols []string     // enum
	fields  []*Prog      // opRecord: the record's fields, in schema order
	elem    *Prog        // opNullable, opSlice, opMap: the inner value
	path    string       // for errors: the Go field path
}

// FieldError reports a Go type that does not fit an Avro schema.
type FieldError struct {
	Path   string       // the field path ("Pts[].X"), empty for the root
	GoType reflect.Type // the Go type at fault
	Avro   string       // what the schema has there
	Reason string
}

func (e *FieldError) Error() string {
	p := e.Path
	if p == "" {
		p = "(record)"
	}
	return fmt.Sprintf("field %s: Go type %s does not fit Avro %s: %s", p, e.GoType, e.Avro, e.Reason)
}

var (
	timeType  = reflect.TypeFor[time.Time]()
	bytesType = reflect.TypeFor[[]byte]()
)

// Mode says how a struct is compiled against a schema.
type Mode uint8

const (
	// Read compiles for decoding: record fields the struct lacks are
	// projected away (Compile returns the projected schema), and every
	// struct field must have a record field.
	Read Mode = iota
	// Write compiles for encoding: every record field must have a struct
	// field, and every struct field a record field.
	Write
)

type compiler struct {
	mode  Mode
	depth int
	named map[string]reflect.Type // projected named types: the Go type each was projected for
}

// Compile pairs schema s (a record) with Go struct type t. In Read mode it
// also returns the schema projected to t's fields, to use as a reader
// schema; in Write mode it returns s.
func Compile(s *schema.Schema, t reflect.Type, mode Mode) (*Prog, *schema.Schema, error) {
	if t.Kind() != reflect.Struct {
		return nil, nil, &FieldError{GoType: t, Avro: s.Kind.String(), Reason: "the record type must be a struct"}
	}
	if s.Kind != schema.Record {
		return nil, nil, &FieldError{GoType: t, Avro: s.Kind.String(), Reason: "the schema is not a record"}
	}
	c := &compiler{mode: mode, named: map[string]reflect.Type{}}
	return c.compile(s, t, "")
}

func describe(s *schema.Schema) string {
	if s.Name != "" {
		return s.Kind.String() + " " + s.Name
	}
	if s.Logical != "" {
		return s.Kind.String() + " (" + string(s.Logical) + ")"
	}
	return s.Kind.String()
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func (c *compiler) compile(s *schema.Schema, t reflect.Type, path string) (*Prog, *schema.Schema, error) {
	bad := func(reason string) (*Prog, *schema.Schema, error) {
		return nil, nil, &FieldError{Path: path, GoType: t, Avro: describe(s), Reason: reason}
	}
	if c.depth++; c.depth > maxDepth {
		return bad("the Go type nests too deeply (recursive types are not supported)")
	}
	defer func() { c.depth-- }()
	p := &Prog{typ: t, path: path}
	k := t.Kind()
	switch s.Kind {
	case schema.Boolean:
		if k != reflect.Bool {
			return bad("want bool")
		}
		p.op = opBool
	case schema.Int:
		switch {
		case t == timeType && s.Logical == schema.LogicalDate:
			p.op = opDate
		case k == reflect.Int:
			p.op = opIntToInt
		case k == reflect.Int32:
			p.op = opIntToInt32
		case k == reflect.Int64:
			p.op = opIntToInt64
		default:
			return bad("want int, int32 or int64")
		}
	case schema.Long:
		switch {
		case t == timeType:
			switch s.Logical {
			case schema.LogicalTimestampMillis, schema.LogicalLocalTimestampMillis:
				p.op = opTimeMillis
			case schema.LogicalTimestampMicros, schema.LogicalLocalTimestampMicros:
				p.op = opTimeMicros
			case schema.LogicalTimestampNanos, schema.LogicalLocalTimestampNanos:
				p.op = opTimeNanos
			default:
				return bad("time.Time needs a timestamp logical type")
			}
		case k == reflect.Int64:
			p.op = opLongToInt64
		case k == reflect.Int && strconv64:
			p.op = opLongToInt
		default:
			return bad("want int64 or int")
		}
	case schema.Float:
		switch k {
		case reflect.Float32:
			p.op = opFloatToFloat32
		case reflect.Float64:
			p.op = opFloatToFloat64
		default:
			return bad("want float32 or float64")
		}
	case schema.Double:
		if k != reflect.Float64 {
			return bad("want float64")
		}
		p.op = opDoubleToFloat64
	case schema.String, schema.Bytes:
		switch {
		case k == reflect.String:
			p.op = opString
		case k == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
			p.op = opBytes
		default:
			return bad("want string or []byte")
		}
	case schema.Fixed:
		switch {
		case k == reflect.Array && t.Elem().Kind() == reflect.Uint8:
			if t.Len() != s.Size {
				return bad(fmt.Sprintf("want [%d]byte", s.Size))
			}
			p.op = opFixedArray
		case k == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
			p.op = opFixedSlice
		default:
			return bad(fmt.Sprintf("want [%d]byte or []byte", s.Size))
		}
		p.size = s.Size
	case schema.Enum:
		switch k {
		case reflect.String:
			p.op = opEnumString
		case reflect.Int:
			p.op = opEnumInt
		default:
			return bad("want string or int")
		}
		p.symbols = s.Symbols
	case schema.Array:
		if k != reflect.Slice {
			return bad("want a slice")
		}
		e, items, err := c.compile(s.Items, t.Elem(), path+"[]")
		if err != nil {
			return nil, nil, err
		}
		p.op, p.elem = opSlice, e
		if items != s.Items {
			cp := *s
			cp.Items = items
			s = &cp
		}
	case schema.Map:
		if k != reflect.Map || t.Key().Kind() != reflect.String {
			return bad("want map[string]T")
		}
		e, values, err := c.compile(s.Values, t.Elem(), path+"{}")
		if err != nil {
			return nil, nil, err
		}
		p.op, p.elem = opMap, e
		if values != s.Values {
			cp := *s
			cp.Values = values
			s = &cp
		}
	case schema.Union:
		if len(s.Branches) != 2 || (s.Branches[0].Kind == schema.Null) == (s.Branches[1].Kind == schema.Null) {
			return bad(`only ["null", T] unions have a Go type`)
		}
		if k != reflect.Pointer {
			return bad(`a ["null", T] union needs a pointer`)
		}
		p.op, p.nullIdx, p.valIdx = opNullable, 0, 1
		if s.Branches[1].Kind == schema.Null {
			p.nullIdx, p.valIdx = 1, 0
		}
		e, br, err := c.compile(s.Branches[p.valIdx], t.Elem(), path)
		if err != nil {
			return nil, nil, err
		}
		p.elem = e
		if br != s.Branches[p.valIdx] {
			cp := *s
			cp.Branches = make([]*schema.Schema, 2)
			cp.Branches[p.nullIdx] = s.Branches[p.nullIdx]
			cp.Branches[p.valIdx] = br
			s = &cp
		}
	case schema.Record:
		st := t
		if k == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
			st = t.Elem()
			p.op = opRecordPtr
		} else if k == reflect.Struct {
			p.op = opRecord
		} else {
			return bad("want a struct or a pointer to one")
		}
		return c.record(p, s, st, path)
	default:
		return bad("no Go type is supported for it")
	}
	return p, s, nil
}

// strconv64 is whether int holds 64 bits.
const strconv64 = math.MaxInt == math.MaxInt64

// structField is a Go struct field that takes part in matching.
type structField struct {
	f    reflect.StructField
	name string // the tag's name, or ""
	used bool
}

func (c *compiler) record(p *Prog, s *schema.Schema, st reflect.Type, path string) (*Prog, *schema.Schema, error) {
	var sfs []*structField
	for i := range st.NumField() {
		f := st.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, _, _ := strings.Cut(f.Tag.Get("avro"), ",")
		if tag == "-" {
			continue
		}
		sfs = append(sfs, &structField{f: f, name: tag})
	}
	find := func(name string) *structField {
		for _, sf := range sfs {
			if sf.name == name {
				return sf
			}
		}
		for _, sf := range sfs {
			if sf.name == "" && sf.f.Name == name {
				return sf
			}
		}
		for _, sf := range sfs {
			if sf.name == "" && !sf.used && strings.EqualFold(sf.f.Name, name) {
				return sf
			}
		}
		return nil
	}
	var kept []*schema.Field
	for _, fd := range s.Fields {
		sf := find(fd.Name)
		if sf == nil {
			if c.mode == Write {
				return nil, nil, &FieldError{Path: join(path, fd.Name), GoType: st, Avro: describe(fd.Type), Reason: "the struct has no field for it"}
			}
			continue
		}
		if sf.used {
			return nil, nil, &FieldError{Path: join(path, sf.f.Name), GoType: sf.f.Type, Avro: describe(fd.Type), Reason: "the Go field matches two record fields"}
		}
		sf.used = true
		fp, ft, err := c.compile(fd.Type, sf.f.Type, join(path, sf.f.Name))
		if err != nil {
			return nil, nil, err
		}
		fp.off = sf.f.Offset
		p.fields = append(p.fields, fp)
		if ft != fd.Type {
			cp := *fd
			cp.Type = ft
			fd = &cp
		}
		kept = append(kept, fd)
	}
	for _, sf := range sfs {
		if !sf.used {
			return nil, nil, &FieldError{Path: join(path, sf.f.Name), GoType: sf.f.Type, Avro: describe(s), Reason: "the record has no field of that name"}
		}
	}
	if c.mode == Write {
		return p, s, nil
	}
	// A named record is defined once in a schema: every place that reads
	// it must read it into the same Go type, with the same projection.
	if prev, ok := c.named[s.Name]; ok && prev != st {
		return nil, nil, &FieldError{Path: path, GoType: st, Avro: describe(s), Reason: "the record type is read into two different Go types, " + prev.String() + " too"}
	}
	c.named[s.Name] = st
	changed := len(kept) != len(s.Fields)
	for i := 0; !changed && i < len(kept); i++ {
		changed = kept[i] != s.Fields[i]
	}
	if changed {
		cp := *s
		cp.Fields = kept
		s = &cp
	}
	return p, s, nil
}

// Derive returns an Avro schema for Go struct type t, as JSON text: records
// named after the Go types (in namespace ns, if not empty), fields named by
// their avro tags or Go names; int64 and int are long, int32 int, float32
// float, float64 double, []byte bytes, [N]byte a fixed of size N, time.Time
// a long of logical type timestamp-micros, *T ["null", T], []T an array,
// map[string]T a map, a struct a record.
func Derive(t reflect.Type, ns string) (string, error) {
	if t.Kind() != reflect.Struct {
		return "", &FieldError{GoType: t, Avro: "record", Reason: "the record type must be a struct"}
	}
	d := &deriver{ns: ns, seen: map[reflect.Type]bool{}}
	var b strings.Builder
	if err := d.derive(&b, t, "", 0); err != nil {
		return "", err
	}
	return b.String(), nil
}

type deriver struct {
	ns    string
	seen  map[reflect.Type]bool
	fixed int
}

func avroName(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r < 128 && (unicode.IsLetter(r) || r == '_' || i > 0 && unicode.IsDigit(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

func (d *deriver) derive(b *strings.Builder, t reflect.Type, path string, depth int) error {
	if depth > maxDepth {
		return &FieldError{Path: path, GoType: t, Avro: "?", Reason: "the Go type nests too deeply (recursive types are not supported)"}
	}
	switch {
	case t == timeType:
		b.WriteString(`{"type":"long","logicalType":"timestamp-micros"}`)
		return nil
	case t == bytesType || t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		b.WriteString(`"bytes"`)
		return nil
	}
	switch t.Kind() {
	case reflect.Bool:
		b.WriteString(`"boolean"`)
	case reflect.Int, reflect.Int64:
		b.WriteString(`"long"`)
	case reflect.Int32:
		b.WriteString(`"int"`)
	case reflect.Float32:
		b.WriteString(`"float"`)
	case reflect.Float64:
		b.WriteString(`"double"`)
	case reflect.String:
		b.WriteString(`"string"`)
	case reflect.Array:
		if t.Elem().Kind() != reflect.Uint8 {
			return &FieldError{Path: path, GoType: t, Avro: "?", Reason: "only byte arrays have an Avro type (fixed)"}
		}
		d.fixed++
		fmt.Fprintf(b, `{"type":"fixed","name":"Fixed%d_%d","size":%d}`, t.Len(), d.fixed, t.Len())
	case reflect.Pointer:
		b.WriteString(`["null",`)
		if err := d.derive(b, t.Elem(), path, depth+1); err != nil {
			return err
		}
		b.WriteString(`]`)
	case reflect.Slice:
		b.WriteString(`{"type":"array","items":`)
		if err := d.derive(b, t.Elem(), path+"[]", depth+1); err != nil {
			return err
		}
		b.WriteString(`}`)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return &FieldError{Path: path, GoType: t, Avro: "map", Reason: "map keys must be strings"}
		}
		b.WriteString(`{"type":"map","values":`)
		if err := d.derive(b, t.Elem(), path+"{}", depth+1); err != nil {
			return err
		}
		b.WriteString(`}`)
	case reflect.Struct:
		name := avroName(t.Name())
		if t.Name() == "" {
			name = fmt.Sprintf("Record%d", len(d.seen))
		}
		if d.seen[t] {
			// A named type already defined: refer to it.
			fmt.Fprintf(b, "%q", d.full(name))
			return nil
		}
		d.seen[t] = true
		fmt.Fprintf(b, `{"type":"record","name":%q,"fields":[`, d.full(name))
		n := 0
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			tag, _, _ := strings.Cut(f.Tag.Get("avro"), ",")
			if tag == "-" {
				continue
			}
			if tag == "" {
				tag = avroName(f.Name)
			}
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			fmt.Fprintf(b, `{"name":%q,"type":`, tag)
			if err := d.derive(b, f.Type, join(path, f.Name), depth+1); err != nil {
				return err
			}
			b.WriteByte('}')
		}
		b.WriteString(`]}`)
	default:
		return &FieldError{Path: path, GoType: t, Avro: "?", Reason: "no Avro type for this Go type"}
	}
	return nil
}

func (d *deriver) full(name string) string {
	if d.ns == "" {
		return name
	}
	return d.ns + "." + name
}

// ErrBinary reports Avro binary data that ends early or is malformed.
var ErrBinary = errors.New("avrostruct: malformed Avro binary")

// Decoder decodes Avro binary into Go values. Its zero value copies
// strings into its own immutable arena.
type Decoder struct {
	b     []byte
	i     int
	arena []byte
	// Alias makes strings point into the data given to Decode instead of
	// copies: valid only as long as that data is not changed.
	Alias bool

	key  reflect.Value           // map keys, set before each entry is stored
	vals map[*Prog]reflect.Value // map values, by map, likewise
}

const arenaChunk = 64 << 10

func (d *Decoder) str(b []byte, old string) string {
	if len(b) == 0 {
		return ""
	}
	if old == string(b) {
		return old
	}
	if d.Alias {
		return unsafe.String(&b[0], len(b))
	}
	if cap(d.arena)-len(d.arena) < len(b) {
		// Strings already returned keep the old chunk alive; it is
		// never written again.
		d.arena = make([]byte, 0, max(arenaChunk, len(b)))
	}
	start := len(d.arena)
	d.arena = append(d.arena, b...)
	return unsafe.String(&d.arena[start], len(b))
}

// binErr returns ErrBinary wrapping the error of avrobin's error code n.
func binErr(n int) error { return fmt.Errorf("%w: %w", ErrBinary, avrobin.ParseError(n)) }

func (d *Decoder) long() (int64, error) {
	v, n := avrobin.ConsumeLong(d.b[d.i:])
	if n < 0 {
		return 0, binErr(n)
	}
	d.i += n
	return v, nil
}

func (d *Decoder) raw(n int) ([]byte, error) {
	if n < 0 || n > len(d.b)-d.i {
		return nil, fmt.Errorf("%w: %w", ErrBinary, avrobin.ErrTruncated)
	}
	b := d.b[d.i : d.i+n : d.i+n]
	d.i += n
	return b, nil
}

func (d *Decoder) lenBytes() ([]byte, error) {
	b, n := avrobin.ConsumeBytes(d.b[d.i:])
	if n < 0 {
		return nil, binErr(n)
	}
	d.i += n
	return b, nil
}

// blockCount reads an array or map block count. A count above what the
// bytes left could hold is refused once past 1<<20 (items of no bytes,
// nulls and empty records, may be many, but not without bound).
func (d *Decoder) blockCount() (int, error) {
	c, n := avrobin.ConsumeBlockCount(d.b[d.i:])
	if n < 0 {
		return 0, binErr(n)
	}
	d.i += n
	if c > int64(len(d.b)-d.i)+1 && c > 1<<20 {
		return 0, fmt.Errorf("%w: block count %d with %d bytes left", ErrBinary, c, len(d.b)-d.i)
	}
	return int(c), nil
}

// Decode decodes one record of p's schema from data into the struct at
// dst, which must be of p's type. Memory dst already points to (slices,
// maps, pointers) is reused.
func (d *Decoder) Decode(data []byte, p *Prog, dst unsafe.Pointer) error {
	d.b, d.i = data, 0
	err := d.decode(p, dst)
	d.b = nil
	if err != nil {
		return err
	}
	return nil
}

func (d *Decoder) decode(p *Prog, v unsafe.Pointer) error {
	switch p.op {
	case opRecord:
		for _, f := range p.fields {
			if err := d.decode(f, unsafe.Add(v, f.off)); err != nil {
				return err
			}
		}
		return nil
	case opRecordPtr:
		pp := (*unsafe.Pointer)(v)
		if *pp == nil {
			*pp = reflect.New(p.typ.Elem()).UnsafePointer()
		}
		for _, f := range p.fields {
			if err := d.decode(f, unsafe.Add(*pp, f.off)); err != nil {
				return err
			}
		}
		return nil
	case opBool:
		if d.i >= len(d.b) {
			return ErrBinary
		}
		*(*bool)(v) = d.b[d.i] != 0
		d.i++
		return nil
	case opFloatToFloat32, opFloatToFloat64:
		f, n := avrobin.ConsumeFloat(d.b[d.i:])
		if n < 0 {
			return binErr(n)
		}
		d.i += n
		if p.op == opFloatToFloat32 {
			*(*float32)(v) = f
		} else {
			*(*float64)(v) = float64(f)
		}
		return nil
	case opDoubleToFloat64:
		f, n := avrobin.ConsumeDouble(d.b[d.i:])
		if n < 0 {
			return binErr(n)
		}
		*(*float64)(v) = f
		d.i += n
		return nil
	case opString:
		b, err := d.lenBytes()
		if err != nil {
			return err
		}
		s := (*string)(v)
		*s = d.str(b, *s)
		return nil
	case opBytes:
		b, err := d.lenBytes()
		if err != nil {
			return err
		}
		s := (*[]byte)(v)
		*s = append((*s)[:0], b...)
		return nil
	case opFixedArray:
		b, err := d.raw(p.size)
		if err != nil {
			return err
		}
		copy(unsafe.Slice((*byte)(v), p.size), b)
		return nil
	case opFixedSlice:
		b, err := d.raw(p.size)
		if err != nil {
			return err
		}
		s := (*[]byte)(v)
		*s = append((*s)[:0], b...)
		return nil
	case opNullable:
		idx, err := d.long()
		if err != nil {
			return err
		}
		pp := (*unsafe.Pointer)(v)
		switch idx {
		case int64(p.nullIdx):
			*pp = nil
			return nil
		case int64(p.valIdx):
		default:
			return ErrBinary
		}
		if *pp == nil {
			*pp = reflect.New(p.typ.Elem()).UnsafePointer()
		}
		return d.decode(p.elem, *pp)
	case opSlice:
		return d.slice(p, v)
	case opMap:
		return d.mapv(p, v)
	}
	// The rest read a long.
	n, err := d.long()
	if err != nil {
		return err
	}
	switch p.op {
	case opIntToInt, opIntToInt32, opIntToInt64:
		if n != int64(int32(n)) {
			return fmt.Errorf("%w: int %d out of range", ErrBinary, n)
		}
	}
	switch p.op {
	case opIntToInt, opLongToInt:
		*(*int)(v) = int(n)
	case opIntToInt32:
		*(*int32)(v) = int32(n)
	case opIntToInt64, opLongToInt64:
		*(*int64)(v) = n
	case opEnumString:
		if n < 0 || n >= int64(len(p.symbols)) {
			return ErrBinary
		}
		*(*string)(v) = p.symbols[n]
	case opEnumInt:
		*(*int)(v) = int(n)
	case opTimeMillis:
		*(*time.Time)(v) = time.UnixMilli(n).UTC()
	case opTimeMicros:
		*(*time.Time)(v) = time.UnixMicro(n).UTC()
	case opTimeNanos:
		*(*time.Time)(v) = time.Unix(0, n).UTC()
	case opDate:
		*(*time.Time)(v) = time.Unix(n*86400, 0).UTC()
	default:
		return fmt.Errorf("avrostruct: unknown op %d", p.op)
	}
	return nil
}

// sliceHeader is the layout of a Go slice.
type sliceHeader struct {
	data unsafe.Pointer
	len  int
	cap  int
}

func (d *Decoder) slice(p *Prog, v unsafe.Pointer) error {
	h := (*sliceHeader)(v)
	size := p.elem.typ.Size()
	n := 0
	for {
		c, err := d.blockCount()
		if err != nil {
			return err
		}
		if c == 0 {
			break
		}
		if n+c > h.cap {
			grown := reflect.MakeSlice(p.typ, n+c, max(n+c, 2*h.cap))
			if n > 0 {
				reflect.Copy(grown, reflect.NewAt(p.typ, v).Elem().Slice(0, n))
			}
			reflect.NewAt(p.typ, v).Elem().Set(grown)
		}
		h.len = n + c
		for i := n; i < n+c; i++ {
			if err := d.decode(p.elem, unsafe.Add(h.data, uintptr(i)*size)); err != nil {
				return err
			}
		}
		n += c
	}
	h.len = n
	return nil
}

func (d *Decoder) mapv(p *Prog, v unsafe.Pointer) error {
	m := reflect.NewAt(p.typ, v).Elem()
	if m.IsNil() {
		m.Set(reflect.MakeMap(p.typ))
	} else {
		m.Clear()
	}
	if !d.key.IsValid() {
		d.key = reflect.New(reflect.TypeFor[string]()).Elem()
		d.vals = map[*Prog]reflect.Value{}
	}
	key := d.key
	val, ok := d.vals[p]
	if !ok {
		val = reflect.New(p.elem.typ).Elem()
		d.vals[p] = val
	}
	for {
		c, err := d.blockCount()
		if err != nil {
			return err
		}
		if c == 0 {
			return nil
		}
		for range c {
			kb, err := d.lenBytes()
			if err != nil {
				return err
			}
			key.SetString(d.str(kb, ""))
			val.SetZero()
			if err := d.decode(p.elem, val.Addr().UnsafePointer()); err != nil {
				return err
			}
			m.SetMapIndex(key, val)
		}
	}
}

// Encode appends the Avro binary encoding of the struct at src, of p's
// type, to dst.
func Encode(dst []byte, p *Prog, src unsafe.Pointer) ([]byte, error) {
	return encode(dst, p, src)
}

func encode(b []byte, p *Prog, v unsafe.Pointer) ([]byte, error) {
	var err error
	switch p.op {
	case opRecord:
		for _, f := range p.fields {
			if b, err = encode(b, f, unsafe.Add(v, f.off)); err != nil {
				return b, err
			}
		}
	case opRecordPtr:
		pp := *(*unsafe.Pointer)(v)
		if pp == nil {
			return b, valueErr(p, "nil %s for a record that is not nullable", p.typ)
		}
		for _, f := range p.fields {
			if b, err = encode(b, f, unsafe.Add(pp, f.off)); err != nil {
				return b, err
			}
		}
	case opBool:
		if *(*bool)(v) {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	case opIntToInt:
		n := *(*int)(v)
		if n != int(int32(n)) {
			return b, valueErr(p, "%d does not fit an Avro int", n)
		}
		b = avrobin.AppendLong(b, int64(n))
	case opIntToInt64:
		n := *(*int64)(v)
		if n != int64(int32(n)) {
			return b, valueErr(p, "%d does not fit an Avro int", n)
		}
		b = avrobin.AppendLong(b, n)
	case opIntToInt32:
		b = avrobin.AppendLong(b, int64(*(*int32)(v)))
	case opLongToInt:
		b = avrobin.AppendLong(b, int64(*(*int)(v)))
	case opLongToInt64:
		b = avrobin.AppendLong(b, *(*int64)(v))
	case opFloatToFloat32:
		b = avrobin.AppendFloat(b, *(*float32)(v))
	case opFloatToFloat64:
		b = avrobin.AppendFloat(b, float32(*(*float64)(v)))
	case opDoubleToFloat64:
		b = avrobin.AppendDouble(b, *(*float64)(v))
	case opString:
		b = avrobin.AppendString(b, *(*string)(v))
	case opBytes:
		b = avrobin.AppendBytes(b, *(*[]byte)(v))
	case opFixedArray:
		b = append(b, unsafe.Slice((*byte)(v), p.size)...)
	case opFixedSlice:
		s := *(*[]byte)(v)
		if len(s) != p.size {
			return b, valueErr(p, "%d bytes for a fixed of size %d", len(s), p.size)
		}
		b = append(b, s...)
	case opEnumString:
		s := *(*string)(v)
		idx := -1
		for i, sym := range p.symbols {
			if sym == s {
				idx = i
				break
			}
		}
		if idx < 0 {
			return b, valueErr(p, "%q is not a symbol of the enum", s)
		}
		b = avrobin.AppendLong(b, int64(idx))
	case opEnumInt:
		n := *(*int)(v)
		if n < 0 || n >= len(p.symbols) {
			return b, valueErr(p, "%d is not an index of the enum's %d symbols", n, len(p.symbols))
		}
		b = avrobin.AppendLong(b, int64(n))
	case opTimeMillis:
		b = avrobin.AppendLong(b, (*time.Time)(v).UnixMilli())
	case opTimeMicros:
		b = avrobin.AppendLong(b, (*time.Time)(v).UnixMicro())
	case opTimeNanos:
		b = avrobin.AppendLong(b, (*time.Time)(v).UnixNano())
	case opDate:
		t := *(*time.Time)(v)
		days := t.Unix() / 86400
		if t.Unix() < 0 && t.Unix()%86400 != 0 {
			days--
		}
		b = avrobin.AppendLong(b, days)
	case opNullable:
		pp := *(*unsafe.Pointer)(v)
		if pp == nil {
			return avrobin.AppendLong(b, int64(p.nullIdx)), nil
		}
		b = avrobin.AppendLong(b, int64(p.valIdx))
		return encode(b, p.elem, pp)
	case opSlice:
		h := (*sliceHeader)(v)
		if h.len > 0 {
			b = avrobin.AppendLong(b, int64(h.len))
			size := p.elem.typ.Size()
			for i := range h.len {
				if b, err = encode(b, p.elem, unsafe.Add(h.data, uintptr(i)*size)); err != nil {
					return b, err
				}
			}
		}
		b = append(b, 0)
	case opMap:
		m := reflect.NewAt(p.typ, v).Elem()
		if n := m.Len(); n > 0 {
			b = avrobin.AppendLong(b, int64(n))
			val := reflect.New(p.elem.typ).Elem()
			var it reflect.MapIter
			it.Reset(m)
			for it.Next() {
				b = avrobin.AppendString(b, it.Key().String())
				val.SetIterValue(&it)
				if b, err = encode(b, p.elem, val.Addr().UnsafePointer()); err != nil {
					return b, err
				}
			}
		}
		b = append(b, 0)
	default:
		return b, fmt.Errorf("avrostruct: unknown op %d", p.op)
	}
	return b, nil
}

// ValueError reports a Go value that cannot be encoded in its schema.
type ValueError struct {
	Path string // the Go field path
	Msg  string
}

func (e *ValueError) Error() string { return e.Msg }

func valueErr(p *Prog, format string, args ...any) error {
	return &ValueError{Path: p.path, Msg: fmt.Sprintf(format, args...)}
}

// FlatField is a field of a record that a reader may fill straight from a
// column of values: its offset in the struct, its Go kind (Bool, Int,
// Int32, Int64, Float32, Float64, String, or Slice for []byte), and the
// Avro kind it is read from.
type FlatField struct {
	Off  uintptr
	Kind reflect.Kind
	Avro schema.Kind
}

// Flat returns the fields of a record Prog in schema order when each is a
// boolean, int, long, float, double, string or bytes read into a Go
// scalar, string or []byte (no time, enum, fixed, pointer, slice of
// values, map or record), and nil otherwise.
func (p *Prog) Flat() []FlatField {
	if p.op != opRecord || len(p.fields) == 0 {
		return nil
	}
	out := make([]FlatField, 0, len(p.fields))
	for _, f := range p.fields {
		ff := FlatField{Off: f.off}
		switch f.op {
		case opBool:
			ff.Kind, ff.Avro = reflect.Bool, schema.Boolean
		case opIntToInt:
			ff.Kind, ff.Avro = reflect.Int, schema.Int
		case opIntToInt32:
			ff.Kind, ff.Avro = reflect.Int32, schema.Int
		case opIntToInt64:
			ff.Kind, ff.Avro = reflect.Int64, schema.Int
		case opLongToInt64:
			ff.Kind, ff.Avro = reflect.Int64, schema.Long
		case opLongToInt:
			ff.Kind, ff.Avro = reflect.Int, schema.Long
		case opFloatToFloat32:
			ff.Kind, ff.Avro = reflect.Float32, schema.Float
		case opFloatToFloat64:
			ff.Kind, ff.Avro = reflect.Float64, schema.Float
		case opDoubleToFloat64:
			ff.Kind, ff.Avro = reflect.Float64, schema.Double
		case opString:
			ff.Kind = reflect.String
		case opBytes:
			ff.Kind = reflect.Slice
		default:
			return nil
		}
		if f.typ.Kind() != ff.Kind {
			return nil // a named type of another kind cannot be
		}
		out = append(out, ff)
	}
	return out
}

// String returns b as a string as Decode stores it: into the decoder's
// arena (or aliasing b with Alias), reusing old when it is equal.
func (d *Decoder) String(b []byte, old string) string { return d.str(b, old) }
