package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMetadataAsJavaMeta compares trevni_metadata with the metadata the
// interop vectors carry beside each Java-written file (*.meta.json: what
// trevni meta --blocks prints, checked against Java's trevni_meta): the
// file's length, rows, columns, codec and checksum, and per column its
// name, type, array flag, parent, codec, checksum, offset, blocks and the
// stored and uncompressed bytes of its blocks.
func TestMetadataAsJavaMeta(t *testing.T) {
	files := []string{
		"nested_records/nested_records.deflate.crc32",
		"maps/maps.null.none",
		"unions/unions.snappy.crc32",
		"nested_records/nested_records.bzip2.crc32",
	}
	sqls := []string{load(t)}
	for _, f := range files {
		sqls = append(sqls, fmt.Sprintf(`SELECT file_size, row_count, column_count, codec, checksum, column_id, column_name,
  column_type, is_array, parent, column_codec, column_checksum, column_start, block_count, compressed_bytes, uncompressed_bytes,
  file_name = %s AS named, file_format
FROM trevni_metadata(%s) ORDER BY column_id`, quote(abs(t, filepath.Join("..", "..", "testdata", "interop", f+".trv"))), quote(abs(t, filepath.Join("..", "..", "testdata", "interop", f+".trv")))))
	}
	rs := runDuckDB(t, step{SQLs: sqls})
	must(t, rs[0])
	for k, f := range files {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "interop", f+".meta.json"))
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			FileLength, RowCount, ColumnCount int64
			Metadata                          map[string]any
			Columns                           []struct {
				Number            int64
				Name, Type        string
				Array             bool
				Parent            any
				Codec, Checksum   string
				Start, BlockCount int64
				Blocks            []struct{ Compressed, Uncompressed int64 }
			}
		}
		if err := json.Unmarshal(b, &meta); err != nil {
			t.Fatal(err)
		}
		fileCodec, fileChecksum := "null", "null"
		if c, ok := meta.Metadata["trevni.codec"].(string); ok {
			fileCodec = c
		}
		if c, ok := meta.Metadata["trevni.checksum"].(string); ok {
			fileChecksum = c
		}
		var want []string
		for _, c := range meta.Columns {
			var comp, unc int64
			for _, b := range c.Blocks {
				comp += b.Compressed
				unc += b.Uncompressed
			}
			want = append(want, fmt.Sprint([]any{meta.FileLength, meta.RowCount, meta.ColumnCount, fileCodec, fileChecksum,
				c.Number, c.Name, c.Type, c.Array, c.Parent, c.Codec, c.Checksum, c.Start, c.BlockCount, comp, unc, true, "trevni"}))
		}
		var got []string
		for _, row := range must(t, rs[1+k]).Rows {
			for i, v := range row {
				if s, ok := v.(string); ok && s != "" && strings.Trim(s, "0123456789") == "" {
					var n int64
					fmt.Sscan(s, &n)
					row[i] = n // BIGINTs come as JSON strings
				}
			}
			got = append(got, fmt.Sprint(row))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: trevni_metadata:\n%s\nwant (from %s.meta.json):\n%s", f, strings.Join(got, "\n"), f, strings.Join(want, "\n"))
		}
	}
}

// TestSchemaAsAvsc compares trevni_schema with the Avro schema each
// interop vector was written with (schema.avsc), walked here from its
// JSON: a row per node, depth first.
func TestSchemaAsAvsc(t *testing.T) {
	vectors := []string{"nested_records", "maps", "unions", "primitives", "enum_fixed_bytes", "medium"}
	sqls := []string{load(t)}
	var paths []string
	for _, v := range vectors {
		matches, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "interop", v, "*.trv"))
		if len(matches) == 0 {
			t.Fatalf("no file of %s", v)
		}
		p := abs(t, matches[0])
		paths = append(paths, p)
		sqls = append(sqls, fmt.Sprintf("SELECT file_name, name, type, logical_type, nullable, num_children, type_name FROM trevni_schema(%s)", quote(p)))
	}
	rs := runDuckDB(t, step{SQLs: sqls})
	must(t, rs[0])
	for k, v := range vectors {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "interop", v, "schema.avsc"))
		if err != nil {
			t.Fatal(err)
		}
		var js any
		if err := json.Unmarshal(b, &js); err != nil {
			t.Fatal(err)
		}
		w := &avscWalker{file: paths[k], named: map[string]any{}}
		w.walk("", js, "", 0)
		var got []string
		for _, row := range must(t, rs[1+k]).Rows {
			if len(row) > 5 {
				if s, ok := row[5].(string); ok {
					var n int64
					fmt.Sscan(s, &n)
					row[5] = n
				}
			}
			got = append(got, fmt.Sprint(row))
		}
		if strings.Join(got, "\n") != strings.Join(w.rows, "\n") {
			t.Errorf("%s: trevni_schema:\n%s\nwant (from schema.avsc):\n%s", v, strings.Join(got, "\n"), strings.Join(w.rows, "\n"))
		}
	}
}

// avscWalker lists the nodes of an Avro schema in its JSON form as
// trevni_schema's rows: (file, name, type, logical type, nullable,
// children, full name of a named type).
type avscWalker struct {
	file  string
	named map[string]any // full name: definition
	rows  []string
}

// fullName returns the full name of name in namespace ns.
func fullName(name, ns string) string {
	if strings.Contains(name, ".") || ns == "" {
		return name
	}
	return ns + "." + name
}

func (w *avscWalker) walk(path string, js any, ns string, depth int) {
	nullable := false
	if u, ok := js.([]any); ok && len(u) == 2 {
		for i, b := range u {
			if b == "null" && u[1-i] != "null" {
				nullable, js = true, u[1-i]
				break
			}
		}
	}
	typ, logical, typeName := "", any(nil), any(nil)
	var def map[string]any
	switch x := js.(type) {
	case string:
		switch x {
		case "null", "boolean", "int", "long", "float", "double", "bytes", "string":
			typ = x
		default:
			fn := fullName(x, ns)
			def = w.named[fn].(map[string]any)
			typ = def["type"].(string)
		}
	case []any:
		typ = "union"
	case map[string]any:
		def = x
		typ = x["type"].(string)
		if l, ok := x["logicalType"].(string); ok {
			logical = l
		}
	}
	if def != nil && (typ == "record" || typ == "enum" || typ == "fixed") {
		if n, ok := def["namespace"].(string); ok {
			ns = n
		}
		fn := fullName(def["name"].(string), ns)
		if i := strings.LastIndex(fn, "."); i >= 0 {
			ns = fn[:i]
		}
		w.named[fn] = def
		typeName = fn
		if l, ok := def["logicalType"].(string); ok {
			logical = l
		}
	}
	if path == "" {
		path = typ
		if typeName != nil {
			path = typeName.(string)
		}
	}
	join := func(n string) string {
		if depth == 0 {
			return n
		}
		return path + "." + n
	}
	children := int64(0)
	switch typ {
	case "record":
		children = int64(len(def["fields"].([]any)))
	case "union":
		children = int64(len(js.([]any)))
	case "array", "map":
		children = 1
	}
	w.rows = append(w.rows, fmt.Sprint([]any{w.file, path, typ, logical, nullable, children, typeName}))
	switch typ {
	case "record":
		for _, f := range def["fields"].([]any) {
			fm := f.(map[string]any)
			w.walk(join(fm["name"].(string)), fm["type"], ns, depth+1)
		}
	case "array":
		w.walk(join("item"), def["items"], ns, depth+1)
	case "map":
		w.walk(join("value"), def["values"], ns, depth+1)
	case "union":
		for _, b := range js.([]any) {
			n := ""
			switch x := b.(type) {
			case string:
				n = x
				switch x {
				case "null", "boolean", "int", "long", "float", "double", "bytes", "string":
				default:
					n = fullName(x, ns)
				}
			case map[string]any:
				n = x["type"].(string)
				if name, ok := x["name"].(string); ok && (n == "record" || n == "enum" || n == "fixed") {
					bns := ns
					if s, ok := x["namespace"].(string); ok {
						bns = s
					}
					n = fullName(name, bns)
				}
			}
			w.walk(join(n), b, ns, depth+1)
		}
	}
}
