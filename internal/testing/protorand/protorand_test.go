package protorand_test

import (
	"context"
	"testing"

	"github.com/trevni-go/trevni/internal/testing/protorand"
	"github.com/trevni-go/trevni/schema/protoload"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

func everything(t *testing.T) protoreflect.MessageDescriptor {
	t.Helper()
	files, err := protoload.CompileProto(context.Background(), []string{"../../../testdata/proto"}, "trevni/test/proto3.proto")
	if err != nil {
		t.Fatal(err)
	}
	md, err := protoload.FindMessage(files, "trevni.test.p3.Everything")
	if err != nil {
		t.Fatal(err)
	}
	return md
}

func TestDeterministic(t *testing.T) {
	md := everything(t)
	fill := func(seed uint64) []byte {
		m := dynamicpb.NewMessage(md)
		protorand.New(seed).Fill(m)
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if a, b := fill(7), fill(7); string(a) != string(b) {
		t.Error("same seed, different messages")
	}
	if a, b := fill(7), fill(8); string(a) == string(b) {
		t.Error("different seeds, same message")
	}
}

// TestCoverage checks that over a few seeds every field gets set, oneofs
// hold at most one member, open enums get undeclared numbers, and unknown
// fields appear.
func TestCoverage(t *testing.T) {
	md := everything(t)
	set := make(map[protoreflect.Name]bool)
	var unknown, undeclared, negZero bool
	for seed := range uint64(200) {
		m := dynamicpb.NewMessage(md)
		protorand.New(seed).Fill(m)
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			set[fd.Name()] = true
			if fd.Kind() == protoreflect.EnumKind && !fd.IsList() && !fd.IsMap() && fd.Enum().Values().ByNumber(v.Enum()) == nil {
				undeclared = true
			}
			if fd.Name() == "db" && v.Float() == 0 {
				negZero = true // implicit presence: only -0 is set
			}
			return true
		})
		if len(m.GetUnknown()) > 0 {
			unknown = true
		}
		oneofs := md.Oneofs()
		for i := range oneofs.Len() {
			n := 0
			fields := oneofs.Get(i).Fields()
			for j := range fields.Len() {
				if m.Has(fields.Get(j)) {
					n++
				}
			}
			if n > 1 {
				t.Fatalf("seed %d: oneof %s has %d members set", seed, oneofs.Get(i).Name(), n)
			}
		}
	}
	fields := md.Fields()
	for i := range fields.Len() {
		if !set[fields.Get(i).Name()] {
			t.Errorf("field %s never set", fields.Get(i).Name())
		}
	}
	if !unknown || !undeclared || !negZero {
		t.Errorf("unknown fields %v, undeclared enum numbers %v, -0 %v", unknown, undeclared, negZero)
	}
}

func TestMaxDepth(t *testing.T) {
	files, err := protoload.CompileProto(context.Background(), []string{"../../../testdata/proto"}, "trevni/test/proto3.proto")
	if err != nil {
		t.Fatal(err)
	}
	md, err := protoload.FindMessage(files, "trevni.test.p3.Tree")
	if err != nil {
		t.Fatal(err)
	}
	var depth func(m protoreflect.Message) int
	depth = func(m protoreflect.Message) int {
		d := 0
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			var sub []protoreflect.Message
			switch {
			case fd.IsList() && fd.Message() != nil:
				for i := range v.List().Len() {
					sub = append(sub, v.List().Get(i).Message())
				}
			case fd.IsMap() && fd.MapValue().Message() != nil:
				v.Map().Range(func(_ protoreflect.MapKey, v protoreflect.Value) bool {
					sub = append(sub, v.Message())
					return true
				})
			case !fd.IsMap() && fd.Message() != nil:
				sub = append(sub, v.Message())
			}
			for _, s := range sub {
				d = max(d, 1+depth(s))
			}
			return true
		})
		return d
	}
	deepest := 0
	for seed := range uint64(20) {
		f := protorand.New(seed)
		f.MaxDepth = 3
		m := dynamicpb.NewMessage(md)
		f.Fill(m)
		d := depth(m)
		if d > 3 {
			t.Fatalf("seed %d: depth %d > 3", seed, d)
		}
		deepest = max(deepest, d)
	}
	if deepest != 3 {
		t.Errorf("deepest message %d, want 3", deepest)
	}
}

// TestUnknownBelowOpenExtensionRange fills descriptor.proto's FieldOptions,
// whose extension range runs from 1000 to the largest number: its unknown
// fields have numbers below 1000 that it does not declare, and they take
// many of those numbers.
func TestUnknownBelowOpenExtensionRange(t *testing.T) {
	md := (&descriptorpb.FieldOptions{}).ProtoReflect().Descriptor()
	seen := make(map[protowire.Number]bool)
	for seed := range uint64(400) {
		f := protorand.New(seed)
		f.MaxDepth = 0
		m := dynamicpb.NewMessage(md)
		f.Fill(m)
		b := m.GetUnknown()
		for len(b) > 0 {
			num, typ, n := protowire.ConsumeField(b)
			if n < 0 {
				t.Fatalf("seed %d: unknown fields do not parse: %v", seed, protowire.ParseError(n))
			}
			if num >= 1000 || md.Fields().ByNumber(num) != nil || md.ExtensionRanges().Has(num) {
				t.Fatalf("seed %d: unknown field %d (wire type %d) is declared or in an extension range", seed, num, typ)
			}
			seen[num] = true
			b = b[n:]
		}
	}
	if len(seen) < 100 {
		t.Errorf("%d distinct unknown field numbers over 400 messages", len(seen))
	}
}
