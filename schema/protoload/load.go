// Package protoload loads protobuf descriptors: from binary
// FileDescriptorSet files ([LoadDescriptorSet], [ParseDescriptorSet]) or
// from the global registry ([FindMessage] with protoregistry.GlobalFiles); and it packs a
// message's descriptors into a FileDescriptorSet to store in a file's
// metadata ([DescriptorSetFor], [MessageFromDescriptorSet], under
// [MetaDescriptorSet] and [MetaMessage]).
//
// The readers and writers of files made from protobuf (the root package's
// CreateProto, NewProtoWriter, Dataset.NewProtoReader, Messages, WriteProto,
// and WriteJSON of such files; assemble's and shred's) work only in a
// program that links this package, which brings the protobuf runtime's
// descriptor and JSON packages (about 3 MB of binary): a program that reads
// only Avro-written files does without them. A program that uses them
// imports this package, if only for its effect:
//
//	import _ "github.com/trevni-go/trevni/schema/protoload"
//
// Without it those calls fail with an error that names this import.
//
// Compiling .proto sources is package protosrc's job (apart, so that a
// reader never links the .proto compiler); mapping the loaded message
// types to Avro is package protoschema's.
package protoload

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/trevni-go/trevni/internal/limitfile"
	"github.com/trevni-go/trevni/internal/protoset"
)

// Keys of the Trevni file metadata under which a file made from protobuf
// messages stores what is needed to turn it back into messages.
const (
	// MetaDescriptorSet holds a serialized FileDescriptorSet with the
	// message's file and all its dependencies (see [DescriptorSetFor]).
	MetaDescriptorSet = protoset.MetaDescriptorSet
	// MetaMessage holds the message's full name.
	MetaMessage = protoset.MetaMessage
)

// DescriptorResolver finds descriptors by full name. *protoregistry.Files,
// including protoregistry.GlobalFiles, implements it.
type DescriptorResolver = protoset.DescriptorResolver

// FindMessage finds the message type name (a full name, with or without a
// leading dot) in files. Use protoregistry.GlobalFiles for the messages
// linked into the program.
func FindMessage(files DescriptorResolver, name string) (protoreflect.MessageDescriptor, error) {
	return protoset.FindMessage(files, name)
}

// MessageType returns the generated type of md when one is linked into the
// program with that very descriptor, and a dynamicpb type otherwise.
func MessageType(md protoreflect.MessageDescriptor) protoreflect.MessageType {
	return protoset.MessageType(md)
}

// The protobuf readers and writers of the root package, assemble and shred
// reach the descriptor packages this package links (descriptorpb,
// protodesc, protojson) through internal/protoset, so that a program that
// reads no protobuf links none of them: importing this package is what
// makes them work.
func init() {
	protoset.Register(&protoset.Impl{
		ParseSet: ParseDescriptorSet,
		SetFor:   DescriptorSetFor,
		AppendJSON: func(dst []byte, m proto.Message, o protoset.JSONOptions) ([]byte, error) {
			js := protojson.MarshalOptions{AllowPartial: o.AllowPartial}
			if o.Indent != "" {
				js.Multiline, js.Indent = true, o.Indent
			}
			return js.MarshalAppend(dst, m)
		},
		UnmarshalJSON: func(b []byte, m proto.Message, r protoset.Resolver) error {
			return protojson.UnmarshalOptions{Resolver: r}.Unmarshal(b, m)
		},
	})
}

// MaxFileSize bounds the size of a descriptor set file and of each .proto
// source the package reads; a larger one is an error wrapping
// [ErrTooLarge].
const MaxFileSize = limitfile.DefaultLimit

// ErrTooLarge is wrapped by the error of a file over [MaxFileSize].
var ErrTooLarge = limitfile.ErrTooLarge

// LoadDescriptorSet reads a binary FileDescriptorSet file, as written by
// protoc --descriptor_set_out or buf build -o, of at most [MaxFileSize]
// bytes. See [ParseDescriptorSet].
func LoadDescriptorSet(path string) (*protoregistry.Files, error) {
	b, err := limitfile.ReadFile(path, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("protoload: %w", err)
	}
	files, err := ParseDescriptorSet(b)
	if err != nil {
		return nil, fmt.Errorf("%w (in %s)", err, path)
	}
	return files, nil
}

// ParseDescriptorSet builds the files of a serialized FileDescriptorSet. The
// files may come in any order. An import missing from the set (protoc
// without --include_imports) is taken from protoregistry.GlobalFiles when it
// is there, which covers the well-known types.
func ParseDescriptorSet(b []byte) (*protoregistry.Files, error) {
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("protoload: descriptor set: %w", err)
	}
	return NewFiles(&set)
}

// NewFiles is [ParseDescriptorSet] for a decoded set.
func NewFiles(set *descriptorpb.FileDescriptorSet) (*protoregistry.Files, error) {
	protos := make(map[string]*descriptorpb.FileDescriptorProto, len(set.GetFile()))
	for _, f := range set.GetFile() {
		if _, dup := protos[f.GetName()]; dup {
			return nil, fmt.Errorf("protoload: descriptor set: file %q appears twice", f.GetName())
		}
		protos[f.GetName()] = f
	}
	files := new(protoregistry.Files)
	building := make(map[string]bool)
	var add func(path string) error
	add = func(path string) error {
		if _, err := files.FindFileByPath(path); err == nil {
			return nil
		}
		fdp, ok := protos[path]
		if !ok {
			fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
			if err != nil {
				return fmt.Errorf("protoload: descriptor set: missing import %q", path)
			}
			return registerFile(files, fd)
		}
		if building[path] {
			return fmt.Errorf("protoload: descriptor set: import cycle through %q", path)
		}
		building[path] = true
		for _, dep := range fdp.GetDependency() {
			if err := add(dep); err != nil {
				return err
			}
		}
		fd, err := protodesc.NewFile(fdp, files)
		if err != nil {
			return fmt.Errorf("protoload: descriptor set: %w", err)
		}
		if err := files.RegisterFile(fd); err != nil {
			return fmt.Errorf("protoload: descriptor set: %w", err)
		}
		return nil
	}
	for _, f := range set.GetFile() {
		if err := add(f.GetName()); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// registerFile registers fd and, first, its imports, skipping files already
// there.
func registerFile(files *protoregistry.Files, fd protoreflect.FileDescriptor) error {
	if _, err := files.FindFileByPath(fd.Path()); err == nil {
		return nil
	}
	imports := fd.Imports()
	for i := range imports.Len() {
		if err := registerFile(files, imports.Get(i).FileDescriptor); err != nil {
			return err
		}
	}
	if err := files.RegisterFile(fd); err != nil {
		return fmt.Errorf("protoload: %w", err)
	}
	return nil
}

// DescriptorSetFor returns a serialized FileDescriptorSet holding the file
// that declares md and all the files it imports, transitively, each after
// its imports. [MessageFromDescriptorSet] reverses it.
func DescriptorSetFor(md protoreflect.MessageDescriptor) ([]byte, error) {
	var set descriptorpb.FileDescriptorSet
	seen := make(map[string]bool)
	var add func(fd protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		imports := fd.Imports()
		for i := range imports.Len() {
			add(imports.Get(i).FileDescriptor)
		}
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	add(md.ParentFile())
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(&set)
	if err != nil {
		return nil, fmt.Errorf("protoload: descriptor set for %s: %w", md.FullName(), err)
	}
	return b, nil
}

// MessageFromDescriptorSet rebuilds the message type name from a serialized
// FileDescriptorSet such as [DescriptorSetFor] returns. With
// dynamicpb.NewMessage (or [MessageType]) it gives messages to fill.
func MessageFromDescriptorSet(set []byte, name string) (protoreflect.MessageDescriptor, error) {
	files, err := ParseDescriptorSet(set)
	if err != nil {
		return nil, err
	}
	return FindMessage(files, name)
}
