package layout

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
)

// tsvLine renders a column as the interop vectors' columns.tsv does.
func tsvLine(c Column) string {
	m := c.Meta()
	array, parent := "-", "-"
	if m.Array {
		array = "array"
	}
	if m.Parent != "" {
		parent = "parent=" + m.Parent
	}
	meta := []string{
		pyString("trevni.name") + ": " + pyString(m.Name),
		pyString("trevni.type") + ": " + pyString(m.Type.String()),
	}
	if m.Parent != "" {
		meta = append(meta, pyString("trevni.parent")+": "+pyString(m.Parent))
	}
	if m.Array {
		meta = append(meta, pyString("trevni.array")+": "+pyString(""))
	}
	return fmt.Sprintf("%d\t%s\t%s\t%s\t%s\twidth=%d\tmeta={%s}",
		c.Index, m.Name, m.Type, array, parent, c.Width, strings.Join(meta, ", "))
}

// pyString quotes s as Python's json.dumps does by default (ASCII only).
func pyString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r > 0x7e:
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(&b, `\u%04x`, u)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func TestInteropColumns(t *testing.T) {
	dirs, err := filepath.Glob("../../testdata/interop/*/schema.avsc")
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 9 {
		t.Fatalf("found only %d interop schemas", len(dirs))
	}
	for _, avsc := range dirs {
		dir := filepath.Dir(avsc)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			text, err := os.ReadFile(avsc)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(dir, "columns.tsv"))
			if err != nil {
				t.Fatal(err)
			}
			s, err := schema.Parse(string(text))
			if err != nil {
				t.Fatal(err)
			}
			cols, err := Columns(s, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range cols {
				got = append(got, tsvLine(c))
			}
			wantLines := strings.Split(strings.TrimRight(string(want), "\n"), "\n")
			if len(got) != len(wantLines) {
				t.Errorf("got %d columns, want %d", len(got), len(wantLines))
			}
			for i := 0; i < len(got) || i < len(wantLines); i++ {
				var g, w string
				if i < len(got) {
					g = got[i]
				}
				if i < len(wantLines) {
					w = wantLines[i]
				}
				if g != w {
					t.Errorf("column %d:\n got %s\nwant %s", i, g, w)
				}
			}
			checkLayout(t, cols)
		})
	}
}

// checkLayout checks the invariants that tie parents, widths and indexes.
func checkLayout(t *testing.T, cols []Column) {
	t.Helper()
	seen := map[string]bool{}
	for i, c := range cols {
		if c.Index != i {
			t.Errorf("column %d has Index %d", i, c.Index)
		}
		if seen[c.Name] {
			t.Errorf("duplicate column name %q", c.Name)
		}
		seen[c.Name] = true
		if c.Schema == nil {
			t.Errorf("column %q has no schema node", c.Name)
		}
		if c.Width < 1 || i+c.Width > len(cols) {
			t.Errorf("column %q has width %d", c.Name, c.Width)
		}
		for j := i + 1; j < i+c.Width; j++ {
			p := cols[j].Parent
			if p < i || p >= j {
				t.Errorf("column %q lies in the subtree of %q but its parent is %d", cols[j].Name, c.Name, p)
			}
		}
		if c.Parent >= 0 {
			p := cols[c.Parent]
			if !p.Array || p.Type != format.Null || c.Parent >= i || i >= c.Parent+p.Width {
				t.Errorf("column %q has a bad parent %q", c.Name, p.Name)
			}
			if c.ParentName != p.Name {
				t.Errorf("column %q: ParentName %q, want %q", c.Name, c.ParentName, p.Name)
			}
		} else if c.ParentName != "" {
			t.Errorf("column %q: ParentName %q without a parent", c.Name, c.ParentName)
		}
	}
}

// layout renders columns compactly: "name type[ array][ <parent]".
func describeLayout(cols []Column) []string {
	var out []string
	for _, c := range cols {
		s := c.Name + " " + c.Type.String()
		if c.Array {
			s += " array"
		}
		if c.Parent >= 0 {
			s += " <" + c.ParentName
		}
		s += " w" + strconv.Itoa(c.Width)
		out = append(out, s)
	}
	return out
}

// The layouts Java's TestShredder checks, and a few more.
func TestColumnsLayouts(t *testing.T) {
	const rec = `{"type":"record","name":"R","fields":[{"name":"x","type":"int"},{"name":"y","type":"string"}]}`
	tests := []struct {
		name, schema string
		want         []string
	}{
		{"null", `"null"`, []string{"null null w1"}},
		{"boolean", `"boolean"`, []string{"boolean boolean w1"}},
		{"int", `"int"`, []string{"int int w1"}},
		{"long", `"long"`, []string{"long long w1"}},
		{"float", `"float"`, []string{"float float w1"}},
		{"double", `"double"`, []string{"double double w1"}},
		{"bytes", `"bytes"`, []string{"bytes bytes w1"}},
		{"string", `"string"`, []string{"string string w1"}},
		{"logical", `{"type":"long","logicalType":"timestamp-millis"}`, []string{"long long w1"}},
		{"enum", `{"type":"enum","name":"E","namespace":"n","symbols":["A","B"]}`, []string{"n.E int w1"}},
		{"fixed", `{"type":"fixed","name":"F","size":3}`, []string{"F bytes w1"}},
		{"simple record", rec, []string{"x int w1", "y string w1"}},
		{"empty record", `{"type":"record","name":"R","fields":[]}`, nil},
		{"nested record", `{"type":"record","name":"O","fields":[
			{"name":"x","type":"int"},
			{"name":"r","type":` + rec + `},
			{"name":"z","type":"long"}]}`,
			[]string{"x int w1", "r#x int w1", "r#y string w1", "z long w1"}},
		{"named record reused", `{"type":"record","name":"O","fields":[
			{"name":"a","type":` + rec + `},
			{"name":"b","type":"R"}]}`,
			[]string{"a#x int w1", "a#y string w1", "b#x int w1", "b#y string w1"}},
		{"simple array", `{"type":"array","items":"long"}`, []string{"[] long array w1"}},
		{"array of records", `{"type":"array","items":` + rec + `}`,
			[]string{"[] null array w3", "[]#x int <[] w1", "[]#y string <[] w1"}},
		{"array of arrays", `{"type":"array","items":{"type":"array","items":"int"}}`,
			[]string{"[] null array w2", "[][] int array <[] w1"}},
		{"simple union", `["null","int"]`, []string{"int int array w1"}},
		{"union", `["int","string",` + rec + `]`,
			[]string{"int int array w1", "string string array w1", "R null array w3", "R#x int <R w1", "R#y string <R w1"}},
		{"optional field", `{"type":"record","name":"O","fields":[{"name":"x","type":["null","int"]}]}`,
			[]string{"x/int int array w1"}},
		{"only null", `{"type":"record","name":"O","fields":[{"name":"n","type":["null"]},{"name":"i","type":"int"}]}`,
			[]string{"i int w1"}},
		{"nested union", `{"type":"record","name":"O","fields":[{"name":"u","type":["int",` + rec + `]}]}`,
			[]string{"u/int int array w1", "u/R null array w3", "u/R#x int <u/R w1", "u/R#y string <u/R w1"}},
		{"union in array", `{"type":"record","name":"O","fields":[
			{"name":"a","type":{"type":"array","items":["null","int",` + rec + `]}}]}`,
			[]string{"a[] null array w5", "a[]/int int array <a[] w1", "a[]/R null array <a[] w3",
				"a[]/R#x int <a[]/R w1", "a[]/R#y string <a[]/R w1"}},
		{"array in union", `{"type":"record","name":"O","fields":[
			{"name":"a","type":["int",{"type":"array","items":` + rec + `}]}]}`,
			[]string{"a/int int array w1", "a/array null array w4", "a/array[] null array <a/array w3",
				"a/array[]#x int <a/array[] w1", "a/array[]#y string <a/array[] w1"}},
		{"simple map", `{"type":"map","values":"long"}`,
			[]string{"> null array w3", ">key string <> w1", ">value long <> w1"}},
		{"map of records", `{"type":"map","values":` + rec + `}`,
			[]string{"> null array w4", ">key string <> w1", ">value#x int <> w1", ">value#y string <> w1"}},
		{"map in map", `{"type":"map","values":{"type":"map","values":"int"}}`,
			[]string{"> null array w5", ">key string <> w1", ">value> null array <> w3",
				">value>key string <>value> w1", ">value>value int <>value> w1"}},
		{"top union with map", `["null",{"type":"map","values":"int"}]`,
			[]string{"map null array w4", "map> null array <map w3", "map>key string <map> w1", "map>value int <map> w1"}},
		{"array of null", `{"type":"array","items":"null"}`, []string{"[] null array w1"}},
		{"array of empty record", `{"type":"array","items":{"type":"record","name":"E","fields":[]}}`,
			[]string{"[] null array w1"}},
		{"enum and fixed in union", `["null",{"type":"enum","name":"a.E","symbols":["X"]},{"type":"fixed","name":"F","namespace":"b","size":2}]`,
			[]string{"a.E int array w1", "b.F bytes array w1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := schema.Parse(tt.schema)
			if err != nil {
				t.Fatal(err)
			}
			cols, err := Columns(s, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := describeLayout(cols)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"))
			}
			checkLayout(t, cols)
		})
	}
}

func TestColumnsRoles(t *testing.T) {
	s := schema.MustParse(`{"type":"record","name":"O","fields":[
		{"name":"a","type":{"type":"array","items":"int"}},
		{"name":"m","type":{"type":"map","values":{"type":"enum","name":"E","symbols":["X"]}}},
		{"name":"u","type":["null","string",{"type":"array","items":"int"}]}]}`)
	l, err := New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	cols := l.Columns
	a, m, u := s.Fields[0].Type, s.Fields[1].Type, s.Fields[2].Type
	want := []struct {
		role Role
		node *schema.Schema
	}{
		{RoleArray, a},
		{RoleMap, m},
		{RoleMapKey, m},
		{RoleValue, m.Values},
		{RoleBranch, u.Branches[1]},
		{RoleBranch, u.Branches[2]},
		{RoleArray, u.Branches[2]},
	}
	if len(cols) != len(want) {
		t.Fatalf("got %d columns: %v", len(cols), describeLayout(cols))
	}
	for i, w := range want {
		if cols[i].Role != w.role || cols[i].Schema != w.node {
			t.Errorf("column %s: role %v node %v, want %v %v", cols[i].Name, cols[i].Role, cols[i].Schema, w.role, w.node)
		}
	}
	metas := l.Metas()
	if metas[3].Name != "m>value" || metas[3].Parent != "m>" || metas[3].Type != format.Int || metas[3].Array {
		t.Errorf("meta 3 = %+v", metas[3])
	}
}

func TestColumnsRecursive(t *testing.T) {
	tests := []struct {
		schema, want string
	}{
		{`{"type":"record","name":"a.LongList","fields":[{"name":"v","type":"long"},{"name":"next","type":["null","LongList"]}]}`,
			`cannot shred recursive schema: a.LongList -> a.LongList (again at "next/a.LongList")`},
		{`{"type":"record","name":"A","fields":[{"name":"b","type":{"type":"record","name":"B","fields":[
			{"name":"as","type":{"type":"array","items":"A"}}]}}]}`,
			`cannot shred recursive schema: A -> B -> A (again at "b#as[]")`},
		{`{"type":"record","name":"T","fields":[{"name":"kids","type":{"type":"map","values":"T"}}]}`,
			`cannot shred recursive schema: T -> T (again at "kids>value")`},
	}
	for _, tt := range tests {
		s, err := schema.Parse(tt.schema)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Columns(s, nil)
		if err == nil || err.Error() != tt.want {
			t.Errorf("got error %v, want %s", err, tt.want)
		}
		if !errors.Is(err, ErrRecursive) {
			t.Errorf("error %v is not ErrRecursive", err)
		}
		// The schema itself is fine and writes back as it was read.
		if _, err := schema.Parse(s.String()); err != nil {
			t.Errorf("reparse %s: %v", s, err)
		}
	}
}

// TestErrorTypeLayout lays out a record declared as an error, as Java
// does, like any record.
func TestErrorTypeLayout(t *testing.T) {
	s := schema.MustParse(`{"type":"error","name":"Oops","fields":[{"name":"code","type":"int"},{"name":"why","type":"string"}]}`)
	cols, err := Columns(s, nil)
	if err != nil || len(cols) != 2 || cols[0].Name != "code" || cols[1].Name != "why" {
		t.Fatalf("columns %v, %v", cols, err)
	}
	if Role(9).String() != "Role(9)" || RoleBranch.String() != "union branch" {
		t.Error("Role.String")
	}
}
