package trevniarrow_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/trevniarrow"
)

// The parts' schemas: an old one, and the reader's, which adds fields
// of defaults (a record of default null, an int, a [string, null], an
// enum, a record, a field within an array's records), promotes (int to long,
// float to double, string to bytes, within a ["null", T] and a map),
// reorders fields and a ["null", T], renames a field by alias, makes a
// field nullable, reads a union with its branches reordered and one
// promoted, an int and a ["null", int] as unions of more branches, and
// an enum of other symbols with a default, and a union read as one of its
// branches (the reader's part always takes it; the old parts' error where
// they take the other); unions whose branches it merges (an int and a
// long read as a long, in a ["null", T], a union of others and alone; a
// record read as another by its aliases, with a field of a default), and
// fields of defaults holding levels (an array of a union, a map of
// arrays, a union of several branches, a record of an array).
const (
	oldParts = `{"type":"record","name":"R","fields":[
	{"name":"id","type":"long"},
	{"name":"n","type":"int"},
	{"name":"f","type":"float"},
	{"name":"s","type":"string"},
	{"name":"opt","type":["null","int"]},
	{"name":"arr","type":{"type":"array","items":{"type":"record","name":"P","fields":[
		{"name":"x","type":"int"},{"name":"y","type":["null","string"]}]}}},
	{"name":"m","type":{"type":"map","values":"long"}},
	{"name":"u","type":["null","int","string"]},
	{"name":"old","type":"string"},
	{"name":"plain","type":"long"},
	{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}},
	{"name":"w","type":"int"},
	{"name":"v","type":["null","int"]},
	{"name":"e2","type":{"type":"enum","name":"E2","symbols":["A","B","C"]}},
	{"name":"un","type":["string","long"]},
	{"name":"mg","type":["null","int","long"]},
	{"name":"mu","type":["int","long","string"]},
	{"name":"mn","type":["int","long"]},
	{"name":"mr","type":["null",{"type":"record","name":"MA","fields":[{"name":"x","type":"int"}]},
		{"type":"record","name":"MB","fields":[{"name":"x","type":"long"},{"name":"z","type":["int","string"]}]}]}]}`
	readerParts = `{"type":"record","name":"R","fields":[
	{"name":"id","type":"long"},
	{"name":"u","type":["string","null","long"]},
	{"name":"n","type":"long"},
	{"name":"f","type":"double"},
	{"name":"s","type":"bytes"},
	{"name":"opt","type":["long","null"]},
	{"name":"arr","type":{"type":"array","items":{"type":"record","name":"P","fields":[
		{"name":"x","type":"double"},{"name":"y","type":["null","string"]},
		{"name":"z","type":"string","default":"zz"}]}}},
	{"name":"m","type":{"type":"map","values":"double"}},
	{"name":"renamed","aliases":["old"],"type":"string"},
	{"name":"plain","type":["null","long"]},
	{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}},
	{"name":"w","type":["null","string","long"]},
	{"name":"v","type":["null",{"type":"array","items":"int"},"int"]},
	{"name":"e2","type":{"type":"enum","name":"E2","symbols":["C","A","D"],"default":"D"}},
	{"name":"un","type":"string"},
	{"name":"added","type":["null",{"type":"record","name":"Q","fields":[
		{"name":"a","type":{"type":"array","items":"int"}},{"name":"b","type":["null","int","string"]}]}],"default":null},
	{"name":"k","type":"int","default":7},
	{"name":"rec","type":{"type":"record","name":"RD","fields":[{"name":"p","type":"int"},{"name":"q","type":["null","string"]},
		{"name":"r","type":{"type":"record","name":"RE","fields":[{"name":"s","type":"string"}]}}]},"default":{"p":4,"q":null,"r":{"s":"t"}}},
	{"name":"t","type":["string","null"],"default":"d"},
	{"name":"g","type":{"type":"enum","name":"G","symbols":["X","Y"]},"default":"Y"},
	{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2},"default":"\u0001\u0000"},
	{"name":"mg","type":["null","long"]},
	{"name":"mu","type":["string","double"]},
	{"name":"mn","type":"long"},
	{"name":"mr","type":[{"type":"record","name":"MB","aliases":["MA"],"fields":[{"name":"x","type":"double"},
		{"name":"z","type":["int","string"],"default":5}]},"null"]},
	{"name":"da","type":{"type":"array","items":["null","string"]},"default":[null,"x"]},
	{"name":"dm","type":{"type":"map","values":{"type":"array","items":"int"}},"default":{"b":[1,2],"a":[]}},
	{"name":"du","type":["int","string","null"],"default":3},
	{"name":"dr","type":{"type":"record","name":"DR","fields":[{"name":"l","type":{"type":"array","items":"long"}},
		{"name":"u","type":["null","int","string"]}]},"default":{"l":[7],"u":null}}]}`
)

// Parts of different schemas resolved to a reader schema are read from
// their columns, through the plan's resolution, and the batches are
// those of the record path, with filters, selections, offsets, limits,
// workers and both mappings of unions.
func TestColumnarEvolution(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for i, text := range []string{oldParts, readerParts, oldParts} {
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		g := avrorand.New(uint64(i), avrorand.Options{MaxLen: 3})
		w, err := trevni.Create(ctx, filepath.Join(dir, fmt.Sprintf("p%d.trv", i)), text, &trevni.WriteOptions{BlockSize: 300})
		if err != nil {
			t.Fatal(err)
		}
		for j := range 700 {
			v := g.Value(s)
			if text == oldParts {
				// The union read as its string branch takes it.
				v.(map[string]any)["un"] = map[string]any{"string": fmt.Sprint("s", j)}
			}
			if err := w.Write(v); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := trevni.Open(ctx, dir, &trevni.OpenOptions{ReaderSchema: readerParts})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	for k, ro := range []trevni.ReadOptions{
		{},
		{Workers: 3},
		{Where: "n > 0", Offset: 500, Limit: 900},
		{Where: "k = 7 and renamed >= 'm'"},
		{Fields: []string{"arr", "added", "t", "rec"}, Offset: 650, Rows: 800},
		{Fields: []string{"g", "d", "opt"}, Workers: 2, Limit: 1000},
		{Fields: []string{"u", "w", "v", "e2"}, Where: "id > 0"},
		{Fields: []string{"id", "un"}, Limit: 3},
		{Fields: []string{"mg", "mu", "mn", "mr"}, Workers: 2},
		{Fields: []string{"da", "dm", "du", "dr", "mr"}, Where: "id > 0", Offset: 100},
	} {
		for _, structs := range []bool{false, true} {
			o := trevniarrow.ReadOptions{ReadOptions: ro, BatchRows: 97}
			o.Schema.UnionsAsStructs = structs
			got := readArrow(t, ctx, ds, o)
			if got.err != nil || got.rows == 0 {
				t.Fatalf("%d %+v structs %v: %d rows, %v", k, ro, structs, got.rows, got.err)
			}
			checkRecords(t, ctx, ds, o, got)
			for _, b := range got.batches {
				b.Release()
			}
		}
	}
}

// A union read as one of its branches fails where the file takes
// another, naming the part and the row, as the record path does.
func TestColumnarUnionReadAsBranch(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const text = `{"type":"record","name":"R","fields":[{"name":"un","type":["string","long"]}]}`
	w, err := trevni.Create(ctx, filepath.Join(dir, "p0.trv"), text, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		v := map[string]any{"un": map[string]any{"string": "x"}}
		if i == 5 {
			v = map[string]any{"un": map[string]any{"long": int64(5)}}
		}
		if err := w.Write(v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ds, err := trevni.Open(ctx, dir, &trevni.OpenOptions{ReaderSchema: `{"type":"record","name":"R","fields":[{"name":"un","type":"string"}]}`})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	for _, limit := range []int64{0, 5} {
		o := trevniarrow.ReadOptions{BatchRows: 3}
		o.Limit = limit
		run := readArrow(t, ctx, ds, o)
		if limit == 5 {
			if run.err != nil || run.rows != 5 {
				t.Fatalf("limit 5: %d rows, %v", run.rows, run.err)
			}
			continue
		}
		if run.err == nil || !strings.Contains(run.err.Error(), "p0.trv: row 5: ") {
			t.Fatalf("%v, want an error naming p0.trv and row 5", run.err)
		}
	}
}
