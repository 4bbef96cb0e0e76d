// Package prototest gives the tests of every module of the repository the
// test .proto files of testdata/proto (proto2, proto3 and editions
// messages of every field kind), compiled, and the messages in them: the
// core's tests and those of the module tests/ (which need OTLP's types)
// share this one copy.
package prototest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/trevni-go/trevni/schema/protoload"
	"github.com/trevni-go/trevni/schema/protoload/protosrc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Files are the test .proto files, by their import paths below Dir: one
// of each syntax.
var Files = []string{"trevni/test/proto2.proto", "trevni/test/proto3.proto", "trevni/test/editions.proto"}

// marker is a file of the repository's testdata/proto, by which Dir finds
// it.
const marker = "testdata/proto/trevni/test/proto3.proto"

// Dir returns the repository's testdata/proto, the import directory of
// the test .proto files, found from the working directory of the test (a
// package's folder, in any module of the repository) upwards.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(marker))); err == nil {
			return filepath.Join(dir, "testdata", "proto")
		}
		up := filepath.Dir(dir)
		if up == dir {
			tb.Fatalf("no %s in the working directory or above it", marker)
		}
		dir = up
	}
}

// Compile compiles the .proto files of Dir named by their import paths,
// Files when none is named.
func Compile(tb testing.TB, paths ...string) *protoregistry.Files {
	tb.Helper()
	if len(paths) == 0 {
		paths = Files
	}
	files, err := protosrc.CompileProto(context.Background(), []string{Dir(tb)}, paths...)
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// Message returns the message of files with the full name name.
func Message(tb testing.TB, files protoload.DescriptorResolver, name string) protoreflect.MessageDescriptor {
	tb.Helper()
	md, err := protoload.FindMessage(files, name)
	if err != nil {
		tb.Fatal(err)
	}
	return md
}

// Messages lists the messages of the files of files named by their import
// paths, nested ones included and map entries excluded, in their order in
// the files.
func Messages(tb testing.TB, files *protoregistry.Files, paths ...string) []protoreflect.MessageDescriptor {
	tb.Helper()
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
			tb.Fatal(err)
		}
		walk(fd.Messages())
	}
	return out
}
