// Package protovalue converts protobuf messages to and from goavro "native"
// values following the mapping of package protoschema, so that a message
// becomes a record of the Avro schema protoschema gives for its type, and
// that record becomes the same message again (proto.Equal, and the same
// deterministic wire bytes).
//
// Native values are those of github.com/linkedin/goavro/v2: a record is a
// map[string]any holding every field, an array []any, a map map[string]any,
// a union nil or a map[string]any with one entry keyed by the branch name,
// and int32, int64, float32, float64, bool, string and []byte.
//
// [ToAvro] and [FromAvro] build the mapping of a message type on every call;
// a [Converter] holds one, for converting many messages. [Converter.ToAvroInto]
// reuses the maps and slices of a record the caller is done with, which
// saves most of the allocations when records are encoded one at a time.
//
// FromAvro accepts what goavro's decoder returns and a little more: any Go
// integer type for int and long, a float64 that is exactly a float32 for
// float, []byte for string and string for bytes, a bare value for a
// nullable scalar, and a missing field for an unset one. Errors are
// *[PathError]s that name the field path.
package protovalue

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/trevni-go/trevni/schema/protoschema"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Resolver finds message and extension types. It is used to decode messages
// stored serialized (where recursion was cut) and the extensions kept with
// unknown fields. *protoregistry.Types and *dynamicpb.Types implement it.
type Resolver interface {
	protoregistry.MessageTypeResolver
	protoregistry.ExtensionTypeResolver
}

// Options configure a conversion. The zero value uses the default mapping
// and protoregistry.GlobalTypes.
type Options struct {
	// Schema must be the options the Avro schema was made with.
	Schema protoschema.Options
	// Resolver resolves extensions when decoding; nil means
	// protoregistry.GlobalTypes. Extensions it does not know stay unknown
	// fields.
	Resolver Resolver
}

// ToAvro converts m to the native value of an Avro record with the default
// options. See [Options.ToAvro].
func ToAvro(m protoreflect.Message) (map[string]any, error) {
	return Options{}.ToAvro(m)
}

// ToAvroInto is ToAvro reusing dst; see [Converter.ToAvroInto].
func ToAvroInto(m protoreflect.Message, dst map[string]any) (map[string]any, error) {
	return Options{}.ToAvroInto(m, dst)
}

// FromAvro fills m from a native Avro record with the default options. See
// [Options.FromAvro].
func FromAvro(v map[string]any, m protoreflect.Message) error {
	return Options{}.FromAvro(v, m)
}

// ToAvro converts m to the native value of an Avro record. The mapping of
// m's type is built on every call; hold a [Converter] to convert many. The result shares byte slices
// with m.
func (o Options) ToAvro(m protoreflect.Message) (map[string]any, error) {
	return o.ToAvroInto(m, nil)
}

// ToAvroInto is ToAvro reusing dst; see [Converter.ToAvroInto].
func (o Options) ToAvroInto(m protoreflect.Message, dst map[string]any) (map[string]any, error) {
	c, err := o.converter(m.Descriptor())
	if err != nil {
		return nil, err
	}
	return c.ToAvroInto(m, dst)
}

// FromAvro resets m and fills it from v, a native Avro record of the schema
// of m's type. The mapping of m's type is built on every call.
func (o Options) FromAvro(v map[string]any, m protoreflect.Message) error {
	c, err := o.converter(m.Descriptor())
	if err != nil {
		return err
	}
	return c.FromAvro(v, m)
}

// converter builds the converter of md's type. Nothing is cached: code that
// converts many messages of one type should hold a [Converter].
func (o Options) converter(md protoreflect.MessageDescriptor) (*Converter, error) {
	mp, err := protoschema.New(md, o.Schema)
	if err != nil {
		return nil, err
	}
	return NewConverter(mp, o.Resolver), nil
}

// Converter converts the messages of one type. It is safe for concurrent use.
type Converter struct {
	mapping  *protoschema.Mapping
	resolver Resolver
}

// NewConverter returns a converter for the messages of mp's type. A nil
// resolver means protoregistry.GlobalTypes.
func NewConverter(mp *protoschema.Mapping, r Resolver) *Converter {
	if r == nil {
		r = protoregistry.GlobalTypes
	}
	return &Converter{mapping: mp, resolver: r}
}

// Mapping returns the mapping the converter follows.
func (c *Converter) Mapping() *protoschema.Mapping { return c.mapping }

func (c *Converter) check(m protoreflect.Message) error {
	if md := m.Descriptor(); md != c.mapping.Root.Desc {
		return &PathError{Err: fmt.Errorf("message %s does not have the descriptor of the mapping of %s",
			md.FullName(), c.mapping.Root.Desc.FullName())}
	}
	return nil
}

// ToAvro converts m to the native value of an Avro record. m must have the
// very descriptor the mapping was built from. The result shares byte slices
// with m.
func (c *Converter) ToAvro(m protoreflect.Message) (map[string]any, error) {
	return c.ToAvroInto(m, nil)
}

// ToAvroInto is ToAvro reusing dst, a record that an earlier call for the
// same mapping returned and that the caller no longer uses: its maps and
// slices are overwritten and returned. A nil dst is allowed. On error, dst
// is left in an unspecified state.
func (c *Converter) ToAvroInto(m protoreflect.Message, dst map[string]any) (map[string]any, error) {
	if err := c.check(m); err != nil {
		return nil, err
	}
	if dst != nil && len(dst) != len(c.mapping.Root.Fields)+btoi(c.mapping.Root.Unknown != "") {
		clear(dst) // not a record of this mapping
	}
	v, err := c.toRecord(c.mapping.Root, m, dst)
	if err != nil {
		return nil, wrap(err, "")
	}
	return v, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// FromAvro resets m and fills it from v. m must have the very descriptor the
// mapping was built from; it may be a generated or a dynamicpb message.
// Byte values are copied. A field missing from v is left unset.
func (c *Converter) FromAvro(v map[string]any, m protoreflect.Message) error {
	if err := c.check(m); err != nil {
		return err
	}
	proto.Reset(m.Interface())
	if err := c.fromRecord(c.mapping.Root, v, m); err != nil {
		return wrap(err, "")
	}
	return nil
}

// PathError is a conversion error at a field path such as
// "resource_spans[0].scope_spans[2].spans[1].attributes[0].value".
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string {
	if e.Path == "" {
		return "protovalue: " + e.Err.Error()
	}
	return "protovalue: " + e.Path + ": " + e.Err.Error()
}

func (e *PathError) Unwrap() error { return e.Err }

// wrap prepends a path element to err's path; elements starting with '['
// are indices.
func wrap(err error, elem string) error {
	var pe *PathError
	if !errors.As(err, &pe) {
		pe = &PathError{Err: err}
	}
	switch {
	case elem == "":
	case pe.Path == "":
		pe.Path = elem
	case pe.Path[0] == '[':
		pe.Path = elem + pe.Path
	default:
		pe.Path = elem + "." + pe.Path
	}
	return pe
}

func index(i int) string { return "[" + strconv.Itoa(i) + "]" }

func key(k string) string { return "[" + strconv.Quote(k) + "]" }
