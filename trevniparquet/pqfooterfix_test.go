package trevniparquet_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	pqgo "github.com/parquet-go/parquet-go"

	"github.com/trevni-go/trevni/internal/testing/ducktest"
	"github.com/trevni-go/trevni/schema"

	"github.com/trevni-go/trevni/trevniparquet"
)

// optionalKeyMap is a MAP group whose keys are optional, as Hive and old
// parquet-java wrote them (parquet-go's Map makes them required).
type optionalKeyMap struct{ pqgo.Group }

func (optionalKeyMap) Type() pqgo.Type { return pqgo.Map(pqgo.String(), pqgo.String()).Type() }

// writeOptionalKeyMap writes a file of one column, an optional MAP of
// optional string keys and values, of the rows given as key-value pairs
// (a nil row is a null map, a nil key a null key).
func writeOptionalKeyMap(t *testing.T, name string, rows [][][2]*string) {
	t.Helper()
	m := optionalKeyMap{pqgo.Group{"key_value": pqgo.Repeated(pqgo.Group{
		"key":   pqgo.Optional(pqgo.String()),
		"value": pqgo.Optional(pqgo.String()),
	})}}
	sch := pqgo.NewSchema("hive_schema", pqgo.Group{"my_map": pqgo.Optional(m)})
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := pqgo.NewWriter(f, sch)
	leaf := func(v *string, rep, def, col int) pqgo.Value {
		if v == nil {
			return pqgo.Value{}.Level(rep, def, col)
		}
		return pqgo.ValueOf(*v).Level(rep, def+1, col)
	}
	for _, r := range rows {
		var keys, vals pqgo.Row
		switch {
		case r == nil:
			keys, vals = pqgo.Row{pqgo.Value{}.Level(0, 0, 0)}, pqgo.Row{pqgo.Value{}.Level(0, 0, 1)}
		case len(r) == 0:
			keys, vals = pqgo.Row{pqgo.Value{}.Level(0, 1, 0)}, pqgo.Row{pqgo.Value{}.Level(0, 1, 1)}
		}
		for i, kv := range r {
			rep := min(i, 1)
			keys = append(keys, leaf(kv[0], rep, 2, 0))
			vals = append(vals, leaf(kv[1], rep, 2, 1))
		}
		if _, err := w.WriteRows([]pqgo.Row{append(keys, vals...)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// A MAP of optional keys (incorrect_map_schema.parquet's schema, which
// arrow-go refuses) reads as a map, its entries in the file's order and
// its null maps null, as DuckDB reads it; a null key, which no map can
// hold, is refused naming the column.
func TestParquetMapOfOptionalKeys(t *testing.T) {
	s := func(v string) *string { return &v }
	name := filepath.Join(t.TempDir(), "optkeys.parquet")
	writeOptionalKeyMap(t, name, [][][2]*string{
		{{s("b"), s("x")}, {s("a"), nil}},
		nil,
		{},
		{{s("z"), s("1")}, {s("c"), s("2")}, {s("m"), s("3")}},
	})
	sch, got, err := fromParquetSuite(t, name, &trevniparquet.ReadOptions{BatchRows: 3})
	if err != nil {
		t.Fatal(err)
	}
	f := sch.Fields[0]
	if f.Name != "my_map" || f.Type.Kind != schema.Union || f.Type.Branches[1].Kind != schema.Map {
		t.Fatalf("read as %s, want a nullable map", sch)
	}
	if len(got) != 4 || got[1].(map[string]any)["my_map"] != nil {
		t.Fatalf("read %v", got)
	}
	checkDuck(t, name, sch, got, ducktest.ReadParquet(t, name)[name])
	// The order: the way back, as DuckDB prints both.
	_, trv, err := fromParquetSuiteFile(t, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	back := toParquetSuite(t, trv)
	reads := ducktest.ReadParquet(t, name, back)
	for i, row := range reads[name].Rows {
		if i >= len(reads[back].Rows) || reads[back].Rows[i] != row {
			t.Errorf("row %d: %s, the way back %v", i, row, reads[back].Rows)
		}
	}
	if !strings.Contains(reads[name].Rows[3], `"z":"1","c":"2","m":"3"`) {
		t.Errorf("DuckDB reads %s, not in the file's order", reads[name].Rows[3])
	}

	bad := filepath.Join(t.TempDir(), "nullkey.parquet")
	writeOptionalKeyMap(t, bad, [][][2]*string{{{s("a"), s("x")}}, {{nil, s("y")}}})
	_, _, err = fromParquetSuite(t, bad, nil)
	if err == nil || !strings.Contains(err.Error(), "my_map") || !strings.Contains(err.Error(), "null key") {
		t.Fatalf("a null key: %v", err)
	}
}

// A logical type arrow-go does not know (unknown-logical-type.parquet's
// second column) reads as its physical type, bytes, as DuckDB reads it
// (BLOB), beside a known one (a string).
func TestParquetUnknownLogicalType(t *testing.T) {
	sch, got, err := fromParquetSuite(t, "testdata/realwriters/parquet-testing/unknown-logical-type.parquet", nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]schema.Kind{}
	for _, f := range sch.Fields {
		kinds[f.Name] = f.Type.Branches[1].Kind
	}
	if kinds["column_with_known_type"] != schema.String || kinds["column_with_unknown_type"] != schema.Bytes {
		t.Fatalf("read as %s", sch)
	}
	v := got[0].(map[string]any)["column_with_unknown_type"].(map[string]any)["bytes"]
	if !bytes.Equal(v.([]byte), []byte("unknown string 1")) {
		t.Fatalf("row 0: %v", got[0])
	}
}

// Footers damaged anywhere are refused or read, never a panic or a
// hang, and the refusal has no Go runtime text: the footer rewriting
// walks only what is there. 60 flips a file (200 with TREVNI_LONG_TESTS,
// the same first 60 among them).
func TestParquetFooterFixDamaged(t *testing.T) {
	t.Parallel()
	flips := 60
	if os.Getenv("TREVNI_LONG_TESTS") != "" {
		flips = 200
	}
	for i, base := range []string{"unknown-logical-type.parquet", "incorrect_map_schema.parquet", "nullable.impala.parquet"} {
		r := rand.New(rand.NewPCG(38, uint64(i)))
		data, err := os.ReadFile("testdata/realwriters/parquet-testing/" + base)
		if err != nil {
			t.Fatal(err)
		}
		n := int(uint32(data[len(data)-8]) | uint32(data[len(data)-7])<<8 | uint32(data[len(data)-6])<<16 | uint32(data[len(data)-5])<<24)
		for range flips {
			d := bytes.Clone(data)
			at := len(d) - 8 - n + r.IntN(n)
			d[at] ^= byte(1 + r.IntN(255))
			name := filepath.Join(t.TempDir(), base)
			if err := os.WriteFile(name, d, 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := fromParquetSuite(t, name, nil)
			for _, leak := range []string{"runtime error", "goroutine", "panic"} {
				if err != nil && strings.Contains(err.Error(), leak) {
					t.Errorf("%s, byte %d flipped: %v", base, at, err)
				}
			}
		}
	}
}

// ARROW-17100.parquet (pyarrow 2: version 2 data pages flagged
// uncompressed whose values are compressed) reads as Arrow C++ reads it:
// its records are what DuckDB reads from a copy with those flags set
// (DuckDB, like arrow-go, believes the flags and refuses the original);
// a file of another writer has no flag read otherwise.
func TestParquetMislabelledV2Pages(t *testing.T) {
	orig := "testdata/realwriters/arrow-testing/ARROW-17100.parquet"
	data, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	flips, err := trevniparquet.MislabelledV2Flags(bytes.NewReader(data))
	if err != nil || len(flips) == 0 {
		t.Fatalf("%d flags found: %v", len(flips), err)
	}
	fixed := bytes.Clone(data)
	for _, at := range flips {
		if fixed[at]&0x0f != 2 {
			t.Fatalf("byte %d is %#x, not a false boolean field's header", at, fixed[at])
		}
		fixed[at] = fixed[at]&^0x0f | 1
	}
	copyName := filepath.Join(t.TempDir(), "ARROW-17100-flagged.parquet")
	if err := os.WriteFile(copyName, fixed, 0o644); err != nil {
		t.Fatal(err)
	}
	sch, got, err := fromParquetSuite(t, orig, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Fatalf("%d rows, want 5", len(got))
	}
	reads := ducktest.ReadParquetEach(t, orig, copyName)
	if reads[orig].Error == "" {
		t.Logf("DuckDB now reads %s", orig)
	}
	if reads[copyName].Error != "" {
		t.Fatalf("DuckDB refuses the flagged copy: %s", reads[copyName].Error)
	}
	if err := duckDiff(sch, got, reads[copyName]); err != nil {
		t.Fatal(err)
	}
	// Another writer's version 2 pages (parquet-mr's) are not flagged.
	other, err := os.ReadFile("testdata/realwriters/parquet-testing/datapage_v2.snappy.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if flips, err := trevniparquet.MislabelledV2Flags(bytes.NewReader(other)); err != nil || len(flips) != 0 {
		t.Fatalf("datapage_v2.snappy.parquet: %d flags, %v", len(flips), err)
	}
}
