package protoload_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/internal/testing/prototest"
	"github.com/trevni-go/trevni/schema/protoload"
	"github.com/trevni-go/trevni/schema/protoload/protosrc"
	"github.com/trevni-go/trevni/schema/protoschema"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

func TestCompileProto(t *testing.T) {
	files := prototest.Compile(t)
	for _, p := range append(prototest.Files, "google/protobuf/timestamp.proto", "google/protobuf/struct.proto") {
		if _, err := files.FindFileByPath(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	// Imports that ship with the protobuf module are the linked-in files.
	ts := prototest.Message(t, files, "trevni.test.p3.Everything").Fields().ByName("ts").Message()
	if ts != (&timestamppb.Timestamp{}).ProtoReflect().Descriptor() {
		t.Error("Timestamp is not the linked-in descriptor")
	}
	if mt := protoload.MessageType(ts); mt != (&timestamppb.Timestamp{}).ProtoReflect().Type() {
		t.Errorf("MessageType(Timestamp) = %T", mt)
	}
	ed := prototest.Message(t, files, "trevni.test.ed.Item")
	if ed.ParentFile().Syntax() != protoreflect.Editions {
		t.Errorf("editions file has syntax %v", ed.ParentFile().Syntax())
	}
	if _, ok := protoload.MessageType(ed).New().(*dynamicpb.Message); !ok {
		t.Error("MessageType of a compiled message is not dynamic")
	}

	_, err := protosrc.CompileProto(context.Background(), []string{prototest.Dir(t)}, "trevni/test/missing.proto")
	if err == nil {
		t.Error("missing file compiled")
	}
	if _, err := protosrc.CompileProto(context.Background(), nil); err == nil {
		t.Error("no files compiled")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.proto"), []byte("syntax = \"proto3\"; message M { int32 x = 1; int32 y = 1; }"), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := protosrc.CompileProto(context.Background(), []string{dir}, "bad.proto"); err == nil {
		t.Error("invalid file compiled")
	}
}

func TestFindMessage(t *testing.T) {
	files := prototest.Compile(t)
	if md, err := protoload.FindMessage(files, ".trevni.test.p3.Inner.Deep"); err != nil || md.Name() != "Deep" {
		t.Errorf("leading dot: %v, %v", md, err)
	}
	for _, name := range []string{"trevni.test.p3.Nope", "trevni.test.p3.Kind", "trevni.test.p3", "not a name", ""} {
		if _, err := protoload.FindMessage(files, name); err == nil {
			t.Errorf("FindMessage(%q) succeeded", name)
		}
	}
	md, err := protoload.FindMessage(protoregistry.GlobalFiles, "opentelemetry.proto.trace.v1.Span")
	if err != nil || md != (&tracepb.Span{}).ProtoReflect().Descriptor() {
		t.Errorf("global: %v, %v", md, err)
	}
}

func TestDescriptorSetRoundTrip(t *testing.T) {
	files := prototest.Compile(t)
	for _, md := range []protoreflect.MessageDescriptor{
		prototest.Message(t, files, "trevni.test.p3.Everything"),
		prototest.Message(t, files, "trevni.test.p2.Scalars"),
		prototest.Message(t, files, "trevni.test.ed.Item.Sub"),
		(&tracepb.TracesData{}).ProtoReflect().Descriptor(),
		(&descriptorpb.FileDescriptorSet{}).ProtoReflect().Descriptor(),
	} {
		b, err := protoload.DescriptorSetFor(md)
		if err != nil {
			t.Fatal(err)
		}
		var set descriptorpb.FileDescriptorSet
		if err := proto.Unmarshal(b, &set); err != nil {
			t.Fatal(err)
		}
		// Each file comes after its imports, and the set is complete.
		seen := make(map[string]bool)
		for _, f := range set.File {
			for _, dep := range f.Dependency {
				if !seen[dep] {
					t.Errorf("%s: %s comes before its import %s", md.FullName(), f.GetName(), dep)
				}
			}
			seen[f.GetName()] = true
		}
		if _, err := protodesc.NewFiles(&set); err != nil {
			t.Errorf("%s: protodesc.NewFiles: %v", md.FullName(), err)
		}

		got, err := protoload.MessageFromDescriptorSet(b, string(md.FullName()))
		if err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(protodesc.ToFileDescriptorProto(got.ParentFile()), protodesc.ToFileDescriptorProto(md.ParentFile())) {
			t.Errorf("%s: file differs after the round trip", md.FullName())
		}
		want, _ := protoschema.AvroSchema(md, nil)
		have, _ := protoschema.AvroSchema(got, nil)
		if want.String() != have.String() {
			t.Errorf("%s: Avro schema differs after the round trip", md.FullName())
		}
		b2, _ := protoload.DescriptorSetFor(got)
		if string(b2) != string(b) {
			t.Errorf("%s: descriptor set not stable", md.FullName())
		}
	}
}

func TestLoadDescriptorSet(t *testing.T) {
	files := prototest.Compile(t)
	fd, err := files.FindFileByPath("trevni/test/proto3.proto")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()

	// As protoc writes it without --include_imports: the well-known types
	// come from the global registry.
	only := &descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{protodesc.ToFileDescriptorProto(fd)}}
	b, err := proto.Marshal(only)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "p3.binpb")
	if err := os.WriteFile(path, b, 0o666); err != nil {
		t.Fatal(err)
	}
	loaded, err := protoload.LoadDescriptorSet(path)
	if err != nil {
		t.Fatal(err)
	}
	md := prototest.Message(t, loaded, "trevni.test.p3.Everything")
	if md.Fields().ByName("ts").Message() != (&timestamppb.Timestamp{}).ProtoReflect().Descriptor() {
		t.Error("missing import not taken from the global registry")
	}

	// Files in any order.
	full, err := protoload.DescriptorSetFor(md)
	if err != nil {
		t.Fatal(err)
	}
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(full, &set); err != nil {
		t.Fatal(err)
	}
	for i, j := 0, len(set.File)-1; i < j; i, j = i+1, j-1 {
		set.File[i], set.File[j] = set.File[j], set.File[i]
	}
	if _, err := protoload.NewFiles(&set); err != nil {
		t.Errorf("reversed set: %v", err)
	}

	for name, bad := range map[string]*descriptorpb.FileDescriptorSet{
		"missing import": {File: []*descriptorpb.FileDescriptorProto{{
			Name: proto.String("a.proto"), Dependency: []string{"nowhere.proto"},
		}}},
		"duplicate": {File: []*descriptorpb.FileDescriptorProto{{Name: proto.String("a.proto")}, {Name: proto.String("a.proto")}}},
		"cycle": {File: []*descriptorpb.FileDescriptorProto{
			{Name: proto.String("a.proto"), Dependency: []string{"b.proto"}},
			{Name: proto.String("b.proto"), Dependency: []string{"a.proto"}},
		}},
		"bad type": {File: []*descriptorpb.FileDescriptorProto{{
			Name: proto.String("a.proto"), Package: proto.String("p"),
			MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("M"), Field: []*descriptorpb.FieldDescriptorProto{{
				Name: proto.String("x"), Number: proto.Int32(1), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
				Type: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum(), TypeName: proto.String(".p.Nope"),
			}}}},
		}}},
	} {
		if _, err := protoload.NewFiles(bad); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := protoload.ParseDescriptorSet([]byte{0xff}); err == nil {
		t.Error("garbage accepted")
	}
	if _, err := protoload.LoadDescriptorSet(filepath.Join(dir, "none")); err == nil || !strings.Contains(err.Error(), "none") {
		t.Errorf("missing file: %v", err)
	}
}
