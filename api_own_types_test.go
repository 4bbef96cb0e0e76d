package trevni_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
)

// foreignAllowed are the types of other packages of the module that the
// root's exported API may name, each with why: what a program hands in
// (an interface it implements or gets from a driver), and the names the
// root gives what it re-exports.
var foreignAllowed = map[string]string{
	"remote.HTTPClient":   "HTTPClient: an interface a program hands in (httpread.New)",
	"store.Store":         "Store: an interface a program hands in (a driver's New)",
	"format.Error":        "FileError: the error type errors.As finds, named by the root",
	"schema.Error":        "RecordError: the error type errors.As finds, named by the root",
	"protoschema.Framing": "Framing: the root's name for the framing constants it re-exports",
	"protovalue.Resolver": "ProtoOptions.Resolver: an interface a program hands in (protoregistry's types)",
}

// TestAPIHasItsOwnTypes checks that the root's exported API (functions,
// methods of exported types, exported fields, type declarations) names no
// type of another package of the module but those foreignAllowed lists:
// a program of the root package reads and writes with the root's types
// and imports no package beneath (Dataset.Columns is []trevni.Column, not
// []layout.Column; PartReport.Scan a trevni.ScanReport). Plumbing that
// needs another package's types lives in internal/frontdoor.
func TestAPIHasItsOwnTypes(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	const module = "github.com/trevni-go/trevni/"
	seen := map[string]bool{}
	for name, f := range pkgs["trevni"].Files {
		imports := map[string]string{}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			local := path[strings.LastIndex(path, "/")+1:]
			if im.Name != nil {
				local = im.Name.Name
			}
			imports[local] = path
		}
		check := func(where string, n ast.Node) {
			ast.Inspect(n, func(n ast.Node) bool {
				se, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				id, ok := se.X.(*ast.Ident)
				if !ok || !strings.HasPrefix(imports[id.Name], module) {
					return true
				}
				typ := id.Name + "." + se.Sel.Name
				seen[typ] = true
				if foreignAllowed[typ] == "" {
					t.Errorf("%s: %s names %s (%s): give the root a type of its own, or move it to internal/frontdoor", filepath.Base(name), where, typ, imports[id.Name])
				}
				return true
			})
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				where := d.Name.Name
				if d.Recv != nil {
					recv := d.Recv.List[0].Type
					if s, ok := recv.(*ast.StarExpr); ok {
						recv = s.X
					}
					if ix, ok := recv.(*ast.IndexExpr); ok {
						recv = ix.X
					}
					if id, ok := recv.(*ast.Ident); !ok || !id.IsExported() {
						continue
					}
					where = recv.(*ast.Ident).Name + "." + where
				}
				check(where, d.Type)
			case *ast.GenDecl:
				if d.Tok != token.TYPE {
					continue
				}
				for _, s := range d.Specs {
					ts := s.(*ast.TypeSpec)
					if !ts.Name.IsExported() {
						continue
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						check(ts.Name.Name, ts.Type)
						continue
					}
					for _, fl := range st.Fields.List {
						exported := len(fl.Names) == 0 // embedded
						for _, n := range fl.Names {
							exported = exported || n.IsExported()
						}
						if exported {
							check(ts.Name.Name+" field", fl.Type)
						}
					}
				}
			}
		}
	}
	for typ := range foreignAllowed {
		if !seen[typ] {
			t.Errorf("foreignAllowed lists %s, which the root's API no longer names: strike it off", typ)
		}
	}
}

// TestDatasetColumnsAreTheFiles checks Dataset.Columns against the
// columns Java's trevni-avro wrote into the interop files (their own
// column metadata, read by package format): the same names, types,
// arrays and parents, in the same order.
func TestDatasetColumnsAreTheFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/interop/*/*.null.none.trv")
	if err != nil || len(files) < 5 {
		t.Fatalf("interop files: %v, %v", files, err)
	}
	ctx := context.Background()
	for _, name := range files {
		ds, err := trevni.Open(ctx, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		cols, err := ds.Columns()
		ds.Close()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		obj, err := trevni.OpenObject(ctx, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := format.NewReader(obj, obj.Size(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(cols) != rd.NumColumns() {
			t.Errorf("%s: %d columns, the file has %d", name, len(cols), rd.NumColumns())
		}
		var names []string
		for i := range min(len(cols), rd.NumColumns()) {
			m, err := rd.Column(i)
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, m.Name)
			parent := -1
			if m.Parent != "" {
				parent = slices.Index(names, m.Parent)
			}
			c := cols[i]
			if c.Name != m.Name || c.Type != m.Type.String() || c.Array != m.Array || c.Parent != parent {
				t.Errorf("%s: column %d is %+v; the file's %q %s array=%v parent %q (%d)", name, i, c, m.Name, m.Type, m.Array, m.Parent, parent)
			}
		}
		obj.Close()
	}
}
