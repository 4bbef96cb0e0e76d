package protoschema_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/schema/protoload"
	"github.com/trevni-go/trevni/schema/protoschema"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// messageSet builds a serialized descriptor set of one proto3 file,
// package x, whose messages each have the given fields: fields[m] lists
// the message types of m's fields, in order.
func messageSet(names []string, fields map[string][]string) []byte {
	fd := &descriptorpb.FileDescriptorProto{Name: proto.String("x.proto"), Package: proto.String("x"), Syntax: proto.String("proto3")}
	for _, n := range names {
		m := &descriptorpb.DescriptorProto{Name: proto.String(n)}
		if len(fields[n]) == 0 {
			m.Field = append(m.Field, &descriptorpb.FieldDescriptorProto{
				Name: proto.String("v"), Number: proto.Int32(1),
				Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
				Type:  descriptorpb.FieldDescriptorProto_TYPE_INT32.Enum(),
			})
		}
		for i, t := range fields[n] {
			m.Field = append(m.Field, &descriptorpb.FieldDescriptorProto{
				Name: proto.String(fmt.Sprintf("f%d", i)), Number: proto.Int32(int32(i + 1)),
				Label:    descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
				Type:     descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(),
				TypeName: proto.String(".x." + t),
			})
		}
		fd.MessageType = append(fd.MessageType, m)
	}
	b, err := proto.Marshal(&descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{fd}})
	if err != nil {
		panic(err)
	}
	return b
}

// doublingSet is issue 10's exponential schema as a descriptor set: M_k
// has two fields of type M_{k-1}, 26 levels deep.
func doublingSet() []byte {
	names := []string{"M0"}
	fields := map[string][]string{}
	for i := 1; i <= 26; i++ {
		n := fmt.Sprintf("M%d", i)
		names = append(names, n)
		prev := fmt.Sprintf("M%d", i-1)
		fields[n] = []string{prev, prev}
	}
	return messageSet(names, fields)
}

// mutualSet has four message types that each have a field of every one
// of them: under a recursion limit N, the mapping has a record shape for
// every combination of how often each type is on the path, about
// (N+1)^4.
func mutualSet() []byte {
	all := []string{"A", "B", "C", "D"}
	fields := map[string][]string{}
	for _, n := range all {
		fields[n] = all
	}
	return messageSet(all, fields)
}

func findIn(t testing.TB, set []byte, name string) protoreflect.MessageDescriptor {
	t.Helper()
	md, err := protoload.MessageFromDescriptorSet(set, name)
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// TestMappingLimits checks that the mapping counts the fields of the
// records it expands and stops at the column limit, and stops at the
// depth limit, with layout.ErrTooLarge, before doing much work.
func TestMappingLimits(t *testing.T) {
	mutual := findIn(t, mutualSet(), "x.A")
	for _, tc := range []struct {
		name string
		opts *protoschema.Options
		ok   bool
	}{
		{"recursion limit 2", &protoschema.Options{RecursionLimit: 2}, true},
		{"recursion limit 40", &protoschema.Options{RecursionLimit: 40}, false},
		{"recursion limit 40, 1000 fields", &protoschema.Options{RecursionLimit: 40, Limits: &layout.Options{MaxColumns: 1000}}, false},
		{"recursion limit 1e9", &protoschema.Options{RecursionLimit: 1e9}, false},
		{"recursion limit 40, depth 10", &protoschema.Options{RecursionLimit: 40, Limits: &layout.Options{MaxColumns: 1 << 30, MaxDepth: 10}}, false},
	} {
		start := time.Now()
		_, err := protoschema.New(mutual, tc.opts)
		if elapsed := time.Since(start); elapsed > 60*time.Second {
			t.Errorf("%s: took %v", tc.name, elapsed)
		}
		if tc.ok != (err == nil) || (err != nil && !errors.Is(err, layout.ErrTooLarge)) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	// A limit just above what the mapping needs lets it through, one
	// below stops it: the count is of the mapping's own size.
	var need int
	for lim := 1; lim < 1<<20; lim *= 2 {
		if _, err := protoschema.New(mutual, &protoschema.Options{RecursionLimit: 1, Limits: &layout.Options{MaxColumns: lim}}); err == nil {
			need = lim
			break
		}
	}
	if need < 2 {
		t.Fatalf("recursion limit 1 needs a limit of %d", need)
	}
	if _, err := protoschema.New(mutual, &protoschema.Options{RecursionLimit: 1, Limits: &layout.Options{MaxColumns: need / 2}}); !errors.Is(err, layout.ErrTooLarge) {
		t.Errorf("limit %d: %v", need/2, err)
	}
	// The mapping of the doubling schema is small (one record per
	// level): its layout is what is too large.
	dbl, err := protoschema.New(findIn(t, doublingSet(), "x.M26"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := layout.New(dbl.Schema, nil); !errors.Is(err, layout.ErrTooLarge) {
		t.Errorf("layout of the doubling schema: %v", err)
	}
}

// FuzzDescriptorSet runs the protobuf loader on any bytes: the descriptor
// set is parsed, each message type (the first few) mapped and its mapping
// laid out. Errors are expected; panics, hangs and unbounded memory are
// not. A mapping that succeeds has a schema whose text parses back to it.
func FuzzDescriptorSet(f *testing.F) {
	f.Add(doublingSet(), uint8(0))
	f.Add(mutualSet(), uint8(3))
	f.Add(mutualSet(), uint8(200))
	for _, m := range []string{"google/protobuf/descriptor.proto", "google/protobuf/struct.proto"} {
		fd, err := protoregistry.GlobalFiles.FindFileByPath(m)
		if err != nil {
			f.Fatal(err)
		}
		md := fd.Messages().Get(0)
		set, err := protoload.DescriptorSetFor(md)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(set, uint8(1))
	}
	f.Fuzz(func(t *testing.T, set []byte, limit uint8) {
		files, err := protoload.ParseDescriptorSet(set)
		if err != nil {
			return
		}
		lim := &layout.Options{MaxColumns: 1 << 12, MaxDepth: 64}
		n := 0
		files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
			return visitMessages(fd.Messages(), func(md protoreflect.MessageDescriptor) bool {
				if n++; n > 16 {
					return false
				}
				if md.IsMapEntry() {
					return true
				}
				mp, err := protoschema.New(md, &protoschema.Options{RecursionLimit: int(limit), Limits: lim})
				if err != nil {
					if !errors.Is(err, layout.ErrTooLarge) && !strings.Contains(err.Error(), "protoschema: ") {
						t.Errorf("%s: %v", md.FullName(), err)
					}
					return true
				}
				text := mp.Schema.String()
				back, err := schema.Parse(text)
				if err != nil {
					t.Fatalf("%s: schema does not parse: %v\n%s", md.FullName(), err, text)
				}
				if back.String() != text {
					t.Fatalf("%s: schema text changes when parsed", md.FullName())
				}
				if l, err := layout.New(mp.Schema, lim); err == nil && len(l.Columns) > lim.MaxColumns {
					t.Fatalf("%s: %d columns past the limit", md.FullName(), len(l.Columns))
				}
				return true
			})
		})
	})
}

func visitMessages(mds protoreflect.MessageDescriptors, f func(protoreflect.MessageDescriptor) bool) bool {
	for i := range mds.Len() {
		md := mds.Get(i)
		if !f(md) || !visitMessages(md.Messages(), f) {
			return false
		}
	}
	return true
}
