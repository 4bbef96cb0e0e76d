package trevni_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
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
	"CSVOptions":        reflect.TypeFor[trevni.CSVOptions](),
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

// TestParseCodec writes a file with each codec and checksum the command's
// flags name, parsed by ParseCodec and ParseChecksum, and reads back the
// names the file's header stores; XZ, an Avro container's codec only, is
// refused by a Trevni writer, and unknown names by the parsers.
func TestParseCodec(t *testing.T) {
	ctx := t.Context()
	const text = `{"type":"record","name":"R","fields":[{"name":"a","type":"long"}]}`
	for _, c := range []struct{ name, codec, checksum string }{
		{"null", "null", "null"}, {"deflate", "deflate", "crc32"}, {"snappy", "snappy", "crc-32"},
		{"bzip2", "bzip2", "crc32"}, {"zstd", "zstd", "crc32"}, {"zstandard", "zstd", "null"},
	} {
		codec, err := trevni.ParseCodec(c.name)
		if err != nil {
			t.Fatalf("ParseCodec(%q): %v", c.name, err)
		}
		sum, err := trevni.ParseChecksum(c.checksum)
		if err != nil {
			t.Fatalf("ParseChecksum(%q): %v", c.checksum, err)
		}
		var buf bytes.Buffer
		w, err := trevni.NewWriter(&buf, text, &trevni.WriteOptions{Codec: codec, Checksum: sum})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 100 {
			if err := w.Write(map[string]any{"a": int64(i)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		ds, err := trevni.OpenReaderAt(ctx, bytes.NewReader(buf.Bytes()), int64(buf.Len()), c.name, nil)
		if err != nil {
			t.Fatal(err)
		}
		f, err := ds.Parts()[0].Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wantSum := "crc32"
		if c.checksum == "null" {
			wantSum = "null"
		}
		if got, gotSum := frontdoor.TrevniReader(f).Codec(), frontdoor.TrevniReader(f).Checksum(); got != c.codec || gotSum != wantSum {
			t.Errorf("%s, %s: the file stores codec %q, checksum %q; want %q, %q", c.name, c.checksum, got, gotSum, c.codec, wantSum)
		}
		if n, err := ds.Count(ctx, nil); err != nil || n != 100 {
			t.Errorf("%s: %d records, %v; want 100", c.name, n, err)
		}
		f.Close()
		ds.Close()
	}
	if c, err := trevni.ParseCodec("xz"); err != nil || c != trevni.XZ {
		t.Fatalf("ParseCodec(xz) = %q, %v", c, err)
	}
	if _, err := trevni.NewWriter(io.Discard, text, &trevni.WriteOptions{Codec: trevni.XZ}); err == nil {
		t.Error("a Trevni writer took the xz codec")
	}
	for _, bad := range []string{"", "gzip", "Deflate", "lz4"} {
		if _, err := trevni.ParseCodec(bad); err == nil || !strings.Contains(err.Error(), strconv.Quote(bad)) {
			t.Errorf("ParseCodec(%q): %v, want an error naming it", bad, err)
		}
	}
	if _, err := trevni.ParseChecksum("md5"); err == nil {
		t.Error("ParseChecksum(md5) took it")
	}
}
