package protoschema_test

import (
	"testing"

	"github.com/trevni-go/trevni/internal/testing/prototest"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/schema/protoschema"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Every field's shape is the shape of its Avro type, ValueNode finds the
// node of one value in the layout of the mapping's schema, and refuses the
// node of a field of another shape.
func TestShapeAndValueNode(t *testing.T) {
	files := prototest.Compile(t)
	avroKind := map[protoschema.Shape]schema.Kind{
		protoschema.Optional: schema.Union, protoschema.List: schema.Array, protoschema.Map: schema.Map,
	}
	seen := make(map[protoschema.Shape]bool)
	for _, md := range prototest.Messages(t, files, prototest.Files...) {
		mp, err := protoschema.New(md, nil)
		if err != nil {
			t.Fatal(err)
		}
		lay, err := layout.New(mp.Schema, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := mp.Root
		for i := range r.Fields {
			f := &r.Fields[i]
			seen[f.Shape] = true
			k := f.Avro.Type.Kind
			if want, ok := avroKind[f.Shape]; ok && k != want || !ok && (k == schema.Union || k == schema.Array || k == schema.Map) {
				t.Errorf("%s.%s: shape %v, Avro type %v", md.FullName(), f.Name, f.Shape, k)
			}
			if (f.Shape == protoschema.Map) != f.Desc.IsMap() || (f.Value != f.Desc) != f.Desc.IsMap() {
				t.Errorf("%s.%s: shape %v, value %v", md.FullName(), f.Name, f.Shape, f.Value.FullName())
			}
			v, ok := f.ValueNode(lay.Root.Fields[i])
			if !ok || (v.Kind == schema.Record) != (f.Record != nil) {
				t.Errorf("%s.%s: ValueNode = %v, %v", md.FullName(), f.Name, v, ok)
			}
			for j := range r.Fields {
				g := &r.Fields[j]
				if g.Shape == f.Shape || f.Shape == protoschema.Implicit && g.Shape != protoschema.Optional {
					continue // an implicit field's node is any simple node
				}
				if _, ok := f.ValueNode(lay.Root.Fields[j]); ok {
					t.Errorf("%s.%s (%v): ValueNode accepts the node of %s (%v)", md.FullName(), f.Name, f.Shape, g.Name, g.Shape)
				}
			}
		}
	}
	for s := range protoschema.Map + 1 {
		if !seen[s] {
			t.Errorf("no field of shape %v in the test protos", s)
		}
	}
}

// WireType is the wire type that proto.Marshal gives one value of each
// kind.
func TestWireType(t *testing.T) {
	files := prototest.Compile(t)
	kinds := make(map[protoreflect.Kind]bool)
	for _, md := range prototest.Messages(t, files, prototest.Files...) {
		fields := md.Fields()
		for i := range fields.Len() {
			fd := fields.Get(i)
			if fd.IsMap() || fd.IsList() {
				continue
			}
			m := dynamicpb.NewMessage(md)
			v := m.NewField(fd)
			if fd.Message() == nil {
				v = fd.Default()
				if !fd.HasPresence() {
					continue // the zero value is not written
				}
			}
			m.Set(fd, v)
			b, err := proto.MarshalOptions{AllowPartial: true}.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			num, typ, n := protowire.ConsumeTag(b)
			if n < 0 || num != fd.Number() {
				t.Fatalf("%s: marshalled as %x", fd.FullName(), b)
			}
			if got := protoschema.WireType(fd.Kind()); got != typ {
				t.Errorf("WireType(%v) = %v, proto.Marshal writes %v", fd.Kind(), got, typ)
			}
			kinds[fd.Kind()] = true
		}
	}
	if len(kinds) != 18 {
		t.Errorf("the test protos have fields with presence of %d kinds, want all 18", len(kinds))
	}
}
