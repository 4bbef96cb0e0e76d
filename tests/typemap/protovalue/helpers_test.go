package protovalue_test

import (
	"testing"

	"github.com/trevni-go/trevni/typemap/protovalue"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// converter returns the converter of md's type with options o.
func converter(tb testing.TB, md protoreflect.MessageDescriptor, o *protovalue.Options) *protovalue.Converter {
	tb.Helper()
	c, err := protovalue.NewConverter(md, o)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// toAvro converts m with the default options.
func toAvro(m protoreflect.Message) (map[string]any, error) {
	return toAvroWith(nil, m)
}

func toAvroWith(o *protovalue.Options, m protoreflect.Message) (map[string]any, error) {
	c, err := protovalue.NewConverter(m.Descriptor(), o)
	if err != nil {
		return nil, err
	}
	return c.ToAvro(m)
}

// fromAvro fills m from v with the default options.
func fromAvro(v map[string]any, m protoreflect.Message) error {
	return fromAvroWith(nil, v, m)
}

func fromAvroWith(o *protovalue.Options, v map[string]any, m protoreflect.Message) error {
	c, err := protovalue.NewConverter(m.Descriptor(), o)
	if err != nil {
		return err
	}
	return c.FromAvro(v, m)
}

// toAvroIntoDefault converts m reusing dst, with the default options.
func toAvroIntoDefault(m protoreflect.Message, dst map[string]any) (map[string]any, error) {
	c, err := protovalue.NewConverter(m.Descriptor(), nil)
	if err != nil {
		return nil, err
	}
	return c.ToAvroInto(m, dst)
}
