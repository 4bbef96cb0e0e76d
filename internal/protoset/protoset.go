// Package protoset is the seam between the packages that read and write
// files made from protobuf messages (the root, assemble, shred) and the
// protobuf runtime's descriptor and JSON packages (descriptorpb, protodesc,
// protojson). Those cost a program about 3 MB of binary and 2 MiB resident
// at start, so a program that reads Avro-written files should not link them.
// Package schema/protoload links them and registers them here in its init
// (our own registry, as database/sql's drivers do); a program that reads or
// writes protobuf imports it, and every call here fails with an error
// wrapping [ErrNotLinked], naming that import, when it has not.
//
// What needs no descriptor package is here too: the metadata keys, the
// lookup of a message by name, the message type of a descriptor.
package protoset

import (
	"errors"
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Keys of the Trevni file metadata under which a file made from protobuf
// messages stores what is needed to turn it back into messages.
const (
	// MetaDescriptorSet holds a serialized FileDescriptorSet with the
	// message's file and all its dependencies.
	MetaDescriptorSet = "protobuf.descriptor_set"
	// MetaMessage holds the message's full name.
	MetaMessage = "protobuf.message"
)

// Import is the package a program imports to read or write protobuf.
const Import = "github.com/trevni-go/trevni/schema/protoload"

// ErrNotLinked is wrapped by every error of a call made in a program that
// does not link [Import].
var ErrNotLinked = errors.New(`protobuf descriptors are not linked into this program: add import _ "` + Import + `"`)

// Resolver finds message and extension types, as protojson's resolver.
type Resolver interface {
	protoregistry.MessageTypeResolver
	protoregistry.ExtensionTypeResolver
}

// JSONOptions are the protojson options the readers and writers use.
type JSONOptions struct {
	AllowPartial bool   // write messages with required fields unset
	Indent       string // if not empty, write multiline JSON indented by it
}

// Impl is what the descriptor packages provide.
type Impl struct {
	// ParseSet builds the files of a serialized FileDescriptorSet.
	ParseSet func(b []byte) (*protoregistry.Files, error)
	// SetFor serializes the FileDescriptorSet of md's file and its
	// imports.
	SetFor func(md protoreflect.MessageDescriptor) ([]byte, error)
	// AppendJSON appends m as protojson writes it.
	AppendJSON func(dst []byte, m proto.Message, o JSONOptions) ([]byte, error)
	// UnmarshalJSON decodes protojson b into m, resolving types with r
	// (nil: the global registry).
	UnmarshalJSON func(b []byte, m proto.Message, r Resolver) error
}

var impl *Impl

// Register installs the descriptor packages; schema/protoload calls it in
// its init. It is not for other callers.
func Register(i *Impl) { impl = i }

// Linked reports whether the descriptor packages are linked.
func Linked() bool { return impl != nil }

func notLinked(what string) error { return fmt.Errorf("%s: %w", what, ErrNotLinked) }

// ParseSet builds the files of a serialized FileDescriptorSet.
func ParseSet(b []byte) (*protoregistry.Files, error) {
	if impl == nil {
		return nil, notLinked("reading protobuf descriptors")
	}
	return impl.ParseSet(b)
}

// SetFor returns the serialized FileDescriptorSet of md's file and the
// files it imports.
func SetFor(md protoreflect.MessageDescriptor) ([]byte, error) {
	if impl == nil {
		return nil, notLinked("storing the descriptors of " + string(md.FullName()))
	}
	return impl.SetFor(md)
}

// AppendJSON appends m to dst as protojson writes it.
func AppendJSON(dst []byte, m proto.Message, o JSONOptions) ([]byte, error) {
	if impl == nil {
		return dst, notLinked("protobuf JSON")
	}
	return impl.AppendJSON(dst, m, o)
}

// UnmarshalJSON decodes the protojson b into m.
func UnmarshalJSON(b []byte, m proto.Message, r Resolver) error {
	if impl == nil {
		return notLinked("protobuf JSON")
	}
	return impl.UnmarshalJSON(b, m, r)
}

// DescriptorResolver finds descriptors by full name. *protoregistry.Files,
// including protoregistry.GlobalFiles, implements it.
type DescriptorResolver interface {
	FindDescriptorByName(protoreflect.FullName) (protoreflect.Descriptor, error)
}

// FindMessage finds the message type name (a full name, with or without a
// leading dot) in files.
func FindMessage(files DescriptorResolver, name string) (protoreflect.MessageDescriptor, error) {
	fn := protoreflect.FullName(strings.TrimPrefix(name, "."))
	if !fn.IsValid() {
		return nil, fmt.Errorf("protoload: %q is not a valid full name", name)
	}
	d, err := files.FindDescriptorByName(fn)
	if err != nil {
		return nil, fmt.Errorf("protoload: message %s: %w", fn, err)
	}
	md, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		return nil, fmt.Errorf("protoload: %s is not a message", fn)
	}
	return md, nil
}

// MessageType returns the generated type of md when one is linked into the
// program with that very descriptor, and a dynamicpb type otherwise.
func MessageType(md protoreflect.MessageDescriptor) protoreflect.MessageType {
	if mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName()); err == nil && mt.Descriptor() == md {
		return mt
	}
	return dynamicpb.NewMessageType(md)
}
