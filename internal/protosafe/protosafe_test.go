package protosafe

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/structpb"
)

// A map entry whose string key is followed by a key of the wrong wire type
// makes proto.Unmarshal into a dynamicpb message panic; Unmarshal returns
// an error instead, and parses good input as proto.Unmarshal does.
func TestUnmarshalPanic(t *testing.T) {
	var entry []byte
	entry = protowire.AppendTag(entry, 1, protowire.BytesType)
	entry = protowire.AppendString(entry, "a")
	entry = protowire.AppendTag(entry, 1, protowire.Fixed32Type)
	entry = protowire.AppendFixed32(entry, 7)
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, entry)
	md := (&structpb.Struct{}).ProtoReflect().Descriptor()

	panicked := func() (p bool) {
		defer func() { p = recover() != nil }()
		_ = proto.Unmarshal(b, dynamicpb.NewMessage(md))
		return false
	}()
	if !panicked {
		t.Log("proto.Unmarshal no longer panics on this input")
	}
	if err := Unmarshal(proto.UnmarshalOptions{}, b, dynamicpb.NewMessage(md)); err == nil && panicked {
		t.Error("no error for input that makes proto.Unmarshal panic")
	}

	good, err := proto.Marshal(&structpb.Struct{Fields: map[string]*structpb.Value{"k": structpb.NewNumberValue(1)}})
	if err != nil {
		t.Fatal(err)
	}
	m := dynamicpb.NewMessage(md)
	if err := Unmarshal(proto.UnmarshalOptions{}, good, m); err != nil {
		t.Fatal(err)
	}
	want := new(structpb.Struct)
	if err := proto.Unmarshal(good, want); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(m, want) {
		t.Errorf("got %v, want %v", m, want)
	}
}
