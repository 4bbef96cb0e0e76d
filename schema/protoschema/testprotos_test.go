package protoschema_test

import (
	"context"
	"testing"

	"github.com/trevni-go/trevni/schema/protoload"
	"github.com/trevni-go/trevni/schema/protoload/protosrc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// The test .proto files of testdata/proto and helpers over them. (The
// tests of the package over OTLP's messages, in the module tests/, have
// their own copy.)

var testProtos = []string{"trevni/test/proto2.proto", "trevni/test/proto3.proto", "trevni/test/editions.proto"}

func compileTestProtos(t testing.TB) *protoregistry.Files {
	t.Helper()
	files, err := protosrc.CompileProto(context.Background(), []string{"../../testdata/proto"}, testProtos...)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func findMessage(t testing.TB, files protoload.DescriptorResolver, name string) protoreflect.MessageDescriptor {
	t.Helper()
	md, err := protoload.FindMessage(files, name)
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// allMessages lists the messages of the files, nested ones included, map
// entries excluded.
func allMessages(files *protoregistry.Files, paths ...string) []protoreflect.MessageDescriptor {
	var out []protoreflect.MessageDescriptor
	var walk func(mds protoreflect.MessageDescriptors)
	walk = func(mds protoreflect.MessageDescriptors) {
		for i := range mds.Len() {
			md := mds.Get(i)
			if !md.IsMapEntry() {
				out = append(out, md)
			}
			walk(md.Messages())
		}
	}
	for _, p := range paths {
		fd, err := files.FindFileByPath(p)
		if err != nil {
			panic(err)
		}
		walk(fd.Messages())
	}
	return out
}
