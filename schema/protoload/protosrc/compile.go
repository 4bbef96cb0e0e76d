// Package protosrc compiles .proto sources without protoc, confined to
// their import directories, into the descriptors package protoload hands
// out. It is apart from protoload so that a program that reads Trevni
// files, or protobuf descriptor sets, never links the .proto compiler
// (github.com/bufbuild/protocompile).
package protosrc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/trevni-go/trevni/internal/limitfile"
	"github.com/trevni-go/trevni/schema/protoload"
)

// CompileProto compiles .proto files without protoc. Each name is a path
// relative to one of importPaths (or to the working directory when there are
// none); imports are looked up the same way, and the well-known types and
// other files that ship with protoc are always available. The result holds
// the named files and all their imports.
//
// Files are confined to the import paths: a name that is absolute or
// climbs out with "..", or that leads out of its import path through a
// symbolic link, is an error; so is a file of more than [protoload.MaxFileSize]
// bytes.
func CompileProto(ctx context.Context, importPaths []string, names ...string) (*protoregistry.Files, error) {
	if len(names) == 0 {
		return nil, errors.New("protosrc: no .proto files to compile")
	}
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(confined(importPaths)),
	}
	compiled, err := c.Compile(ctx, names...)
	if err != nil {
		return nil, fmt.Errorf("protosrc: %w", err)
	}
	// Rebuild the descriptors with protodesc, as ParseDescriptorSet would,
	// so that every loader hands out the same kind of descriptor; files
	// that ship with the protobuf module are the linked-in ones.
	var set descriptorpb.FileDescriptorSet
	seen := make(map[string]bool)
	var collect func(fd protoreflect.FileDescriptor)
	collect = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		imports := fd.Imports()
		for i := range imports.Len() {
			collect(imports.Get(i).FileDescriptor)
		}
		if g, err := protoregistry.GlobalFiles.FindFileByPath(fd.Path()); err == nil && g == fd {
			return // found again by NewFiles in the global registry
		}
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	for _, f := range compiled {
		collect(f)
	}
	return protoload.NewFiles(&set)
}

// confined resolves .proto names within the import paths (the working
// directory when there are none), reading each file with a size bound.
func confined(importPaths []string) protocompile.Resolver {
	if len(importPaths) == 0 {
		importPaths = []string{"."}
	}
	return protocompile.ResolverFunc(func(name string) (protocompile.SearchResult, error) {
		if filepath.IsAbs(name) || strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) {
			return protocompile.SearchResult{}, fmt.Errorf("%s: an absolute path: files are looked up in the import paths", name)
		}
		rel := filepath.Clean(filepath.FromSlash(name))
		if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return protocompile.SearchResult{}, fmt.Errorf("%s: leads out of the import paths", name)
		}
		var first error
		for _, dir := range importPaths {
			b, err := readWithin(dir, rel)
			if err == nil {
				return protocompile.SearchResult{Source: bytes.NewReader(b)}, nil
			}
			if !errors.Is(err, fs.ErrNotExist) {
				return protocompile.SearchResult{}, fmt.Errorf("%s: %w", name, err)
			}
			if first == nil {
				first = err
			}
		}
		return protocompile.SearchResult{}, first
	})
}

// readWithin reads file rel of directory dir, which must lie within dir
// once symbolic links are resolved.
func readWithin(dir, rel string) ([]byte, error) {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	if root, err = filepath.Abs(root); err != nil {
		return nil, err
	}
	path, err := filepath.EvalSymlinks(filepath.Join(dir, rel))
	if err != nil {
		return nil, err
	}
	if path, err = filepath.Abs(path); err != nil {
		return nil, err
	}
	if r, err := filepath.Rel(root, path); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("a link to %s, outside the import path %s", path, dir)
	}
	return limitfile.ReadFile(path, protoload.MaxFileSize)
}
