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
// A [Converter], from [NewConverter], holds the mapping of one message type
// and converts its messages both ways. [Converter.ToAvroInto] reuses the
// maps and slices of a record the caller is done with, which saves most of
// the allocations when records are encoded one at a time.
//
// FromAvro accepts what goavro's decoder returns and a little more: any Go
// integer type for int and long, a float64 that is exactly a float32 for
// float, []byte for string and string for bytes, a bare value for a
// nullable scalar, and a missing field for an unset one. Errors name the
// field path ("spans[1].attributes[0].value: ..."); package shred's
// ProtoWriter and package assemble's ProtoReader report them as
// *schema.Error with the record number and that path.
package protovalue

import (
	"fmt"

	"github.com/trevni-go/trevni/schema/layout"
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

// Options configure a [Converter]. A nil *Options means the default
// mapping and protoregistry.GlobalTypes.
type Options struct {
	// Mapping must be the options the Avro schema was made with; nil means
	// the default mapping.
	Mapping *protoschema.Options
	// Resolver resolves extensions, and the types of messages stored
	// serialized, when decoding; nil means protoregistry.GlobalTypes.
	// Extensions it does not know stay unknown fields.
	Resolver Resolver
}

// Converter converts the messages of one type. It is safe for concurrent use.
type Converter struct {
	mapping   *protoschema.Mapping
	resolver  Resolver
	recursion int // the recursion limit of stored messages' unmarshalling
}

// RecursionLimit returns the nesting of messages that unmarshalling
// stored bytes allows under limits l: protobuf's default (10,000), or
// l.MaxDepth where that is larger, so that what a writer accepted under
// the same limits reads back.
func RecursionLimit(l *layout.Options) int {
	const protobufDefault = 10000
	if l != nil && l.MaxDepth > protobufDefault {
		return l.MaxDepth
	}
	return protobufDefault
}

// NewConverter builds the mapping of md (see protoschema.New) and returns a
// converter for the messages of that type.
func NewConverter(md protoreflect.MessageDescriptor, opts *Options) (*Converter, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	mp, err := protoschema.New(md, o.Mapping)
	if err != nil {
		return nil, err
	}
	if o.Resolver == nil {
		o.Resolver = protoregistry.GlobalTypes
	}
	var limits *layout.Options
	if o.Mapping != nil {
		limits = o.Mapping.Limits
	}
	return &Converter{mapping: mp, resolver: o.Resolver, recursion: RecursionLimit(limits)}, nil
}

// Mapping returns the mapping the converter follows; its Schema is the Avro
// schema of the records.
func (c *Converter) Mapping() *protoschema.Mapping { return c.mapping }

func (c *Converter) check(m protoreflect.Message) error {
	if md := m.Descriptor(); md != c.mapping.Root.Desc {
		return fmt.Errorf("protovalue: message %s does not have the descriptor of the mapping of %s",
			md.FullName(), c.mapping.Root.Desc.FullName())
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
	return c.toRecord(c.mapping.Root, m, dst)
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
	return c.fromRecord(c.mapping.Root, v, m)
}
