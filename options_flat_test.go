package trevni_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/trevni-go/trevni"
)

// optionTypes are the front door's options, by name; TestOptionsAreFlat
// fails on an exported struct of the root named ...Options missing here.
var optionTypes = map[string]reflect.Type{
	"OpenOptions":       reflect.TypeFor[trevni.OpenOptions](),
	"ReadOptions":       reflect.TypeFor[trevni.ReadOptions](),
	"WriteOptions":      reflect.TypeFor[trevni.WriteOptions](),
	"ProtoOptions":      reflect.TypeFor[trevni.ProtoOptions](),
	"ProtoWriteOptions": reflect.TypeFor[trevni.ProtoWriteOptions](),
	"AvroOptions":       reflect.TypeFor[trevni.AvroOptions](),
	"JSONOptions":       reflect.TypeFor[trevni.JSONOptions](),
}

// TestOptionsAreFlat checks that the front door's options are its own and
// flat: no field of an options struct (nor of the root's structs it
// embeds) holds a struct of another package of the module, as
// `WriteOptions{Options: shred.Options{WriterOptions: format.WriterOptions{...}}}`
// or `OpenOptions.Reader *format.ReaderOptions` did, so that a program of
// the root package configures everything with no other import. Interfaces
// (a store, an HTTP client, a resolver) are what a program hands in and
// may be another package's. A codec is the root's typed Codec, never a
// bare string.
func TestOptionsAreFlat(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, f := range pkgs["trevni"].Files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				if _, isStruct := ts.Type.(*ast.StructType); isStruct && ts.Name.IsExported() && strings.HasSuffix(ts.Name.Name, "Options") {
					declared = append(declared, ts.Name.Name)
				}
			}
		}
	}
	if len(declared) == 0 {
		t.Fatal("no options struct found in the root package's files")
	}
	for _, name := range declared {
		if optionTypes[name] == nil {
			t.Errorf("%s: an options struct of the root that this test does not check: add it to optionTypes", name)
		}
	}
	root := reflect.TypeFor[trevni.Dataset]().PkgPath()
	for name, typ := range optionTypes {
		if !slices.Contains(declared, name) {
			t.Errorf("%s: listed in optionTypes but no longer declared", name)
		}
		for _, p := range nestedFrom(typ, root, name) {
			t.Errorf("%s: not flat: %s", name, p)
		}
	}
}

// nestedFrom returns the fields of the struct typ (path names them) whose
// types hold a struct of another package of the module, or a codec that
// is not the root's Codec.
func nestedFrom(typ reflect.Type, root, path string) []string {
	var bad []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		fp := path + "." + f.Name
		if strings.Contains(f.Name, "Codec") && f.Type != reflect.TypeFor[trevni.Codec]() {
			bad = append(bad, fp+" is a "+f.Type.String()+", not a trevni.Codec")
		}
		t := f.Type
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			continue
		}
		switch pkg := t.PkgPath(); {
		case pkg == root && f.Anonymous:
			bad = append(bad, nestedFrom(t, root, fp)...)
		case pkg != root && strings.HasPrefix(pkg, root+"/"):
			bad = append(bad, fp+" holds a "+t.String()+" of package "+pkg)
		}
	}
	return bad
}
