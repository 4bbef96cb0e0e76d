package shred_test

import (
	"bytes"
	"testing"

	"github.com/trevni-go/trevni/shred"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Write and WriteWire agree on proto2 required fields: a message missing
// one, at the top or deep inside (a child, a map value, a oneof's
// message), is refused by both with the same error naming the field and
// the record, and neither writes it; the messages around it are written,
// and both files are the same bytes.
func TestWriteRefusesUnsetRequiredAsWriteWire(t *testing.T) {
	files := wireTestFiles(t)
	md := wireMessage(t, files, "trevni.test.p2.Scalars")
	fields := md.Fields()
	req, child, children, choice := fields.ByName("req_int32"), fields.ByName("child"), fields.ByName("children"), fields.ByName("choice_msg")
	full := func(v int32) *dynamicpb.Message {
		m := dynamicpb.NewMessage(md)
		m.Set(req, protoreflect.ValueOfInt32(v))
		return m
	}
	bad := map[string]func() *dynamicpb.Message{
		"top": func() *dynamicpb.Message { return dynamicpb.NewMessage(md) },
		"child": func() *dynamicpb.Message {
			m := full(1)
			m.Set(child, protoreflect.ValueOfMessage(dynamicpb.NewMessage(md)))
			return m
		},
		"map value": func() *dynamicpb.Message {
			m := full(1)
			mp := m.Mutable(children).Map()
			mp.Set(protoreflect.ValueOfString("k").MapKey(), protoreflect.ValueOfMessage(dynamicpb.NewMessage(md)))
			return m
		},
		"oneof": func() *dynamicpb.Message {
			m := full(1)
			m.Set(choice, protoreflect.ValueOfMessage(full(2).ProtoReflect()))
			inner := m.Mutable(choice).Message()
			inner.Set(child, protoreflect.ValueOfMessage(dynamicpb.NewMessage(md)))
			return m
		},
	}
	for name, mk := range bad {
		var a, b bytes.Buffer
		wa, err := shred.NewProtoWriter(&a, md, nil)
		if err != nil {
			t.Fatal(err)
		}
		wb, err := shred.NewProtoWriter(&b, md, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := wa.Write(full(7)); err != nil {
			t.Fatal(err)
		}
		if err := wb.Write(full(7)); err != nil {
			t.Fatal(err)
		}
		m := mk()
		werr := wa.Write(m)
		wire, err := proto.MarshalOptions{AllowPartial: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		wwerr := wb.WriteWire(wire)
		if werr == nil || wwerr == nil || werr.Error() != wwerr.Error() {
			t.Fatalf("%s: Write: %v; WriteWire: %v", name, werr, wwerr)
		}
		if !bytes.Contains([]byte(werr.Error()), []byte("required field trevni.test.p2.Scalars.req_int32 not set")) || !bytes.Contains([]byte(werr.Error()), []byte("record 1")) {
			t.Fatalf("%s: %v", name, werr)
		}
		for _, w := range []*shred.ProtoWriter{wa, wb} {
			if err := w.Write(full(8)); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if w.RowCount() != 2 {
				t.Fatalf("%s: %d rows written, want the 2 whole messages", name, w.RowCount())
			}
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("%s: the files differ", name)
		}
	}
}
