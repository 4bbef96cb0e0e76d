package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/format/stats"
)

// columnsLongName is a field name longer than the table shows.
const columnsLongName = "a_field_whose_name_is_much_longer_than_the_table_allows_end"

// columnsSchema has a column of every kind columns treats apart: ordered
// types, NaN, strings longer than the statistics keep, a union of null
// and one type, a union of null and two, an array, a null field.
const columnsSchema = `{"type":"record","name":"R","fields":[
 {"name":"id","type":"long"},
 {"name":"flag","type":"boolean"},
 {"name":"score","type":"double"},
 {"name":"f","type":"float"},
 {"name":"name","type":"string"},
 {"name":"data","type":"bytes"},
 {"name":"opt","type":["null","int"]},
 {"name":"u","type":["null","string","long"]},
 {"name":"tags","type":{"type":"array","items":"string"}},
 {"name":"nothing","type":"null"},
 {"name":"` + columnsLongName + `","type":"int"}
]}`

// columnsTruth is what the test computes from the values it writes, per
// column name: the values, the nulls, and the bounds (nil for none).
type columnsTruth struct {
	values, nulls int64
	lengths       int64 // array columns: lengths, and how many not zero
	nonEmpty      int64
	nan           bool
	lo, hi        any // int64, bool, float64 (float32 widened), string or []byte
}

// columnsRecord is one written record's values, kept to compute truths.
type columnsRecord struct {
	id       int64
	flag     bool
	score    float64
	f        float32
	name     string
	data     []byte
	opt      *int32
	uStr     *string
	uLong    *int64
	tags     []string
	longName int32
}

// writeColumnsFile writes n random records (seeded) in small blocks and
// returns them.
func writeColumnsFile(t *testing.T, path string, n int, seed uint64) []columnsRecord {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed+1))
	randString := func(maxLen int) string {
		b := make([]byte, rng.IntN(maxLen+1))
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		if rng.IntN(20) == 0 {
			return string(b) + "é" // not ASCII
		}
		return string(b)
	}
	w, err := trevni.Create(context.Background(), path, columnsSchema, &trevni.WriteOptions{Codec: trevni.Deflate, BlockSize: 700})
	if err != nil {
		t.Fatal(err)
	}
	recs := make([]columnsRecord, n)
	for i := range recs {
		r := &recs[i]
		r.id = rng.Int64() - math.MaxInt64/2
		r.flag = rng.IntN(3) == 0
		r.score = rng.NormFloat64() * 1000
		if rng.IntN(50) == 0 {
			r.score = math.NaN()
		}
		r.f = float32(rng.NormFloat64())
		// Longer than the 64 bytes kept, at times; the first record's
		// is the least and the second's the greatest, both cut.
		r.name = string(rune('b'+rng.IntN(24))) + randString(89)
		switch i {
		case 0:
			r.name = strings.Repeat("a", 80)
		case 1:
			r.name = strings.Repeat("z", 100)
		}
		r.data = []byte(randString(8))
		if rng.IntN(3) > 0 {
			v := rng.Int32() - math.MaxInt32/2
			r.opt = &v
		}
		switch rng.IntN(4) {
		case 0:
			s := randString(6)
			r.uStr = &s
		case 1:
			v := rng.Int64N(1000) - 500
			r.uLong = &v
		}
		for range rng.IntN(4) {
			r.tags = append(r.tags, randString(5))
		}
		r.longName = rng.Int32N(100)

		rec := map[string]any{
			"id": r.id, "flag": r.flag, "score": r.score, "f": r.f, "name": r.name, "data": r.data,
			"opt": nil, "u": nil, "nothing": nil, columnsLongName: r.longName,
		}
		if r.opt != nil {
			rec["opt"] = map[string]any{"int": *r.opt}
		}
		switch {
		case r.uStr != nil:
			rec["u"] = map[string]any{"string": *r.uStr}
		case r.uLong != nil:
			rec["u"] = map[string]any{"long": *r.uLong}
		}
		tags := make([]any, len(r.tags))
		for j, s := range r.tags {
			tags[j] = s
		}
		rec["tags"] = tags
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return recs
}

// widen returns the running minimum and maximum with v added.
func widen(lo, hi, v any) (any, any) {
	if lo == nil {
		return v, v
	}
	less := func(a, b any) bool {
		switch a := a.(type) {
		case int64:
			return a < b.(int64)
		case bool:
			return !a && b.(bool)
		case float64:
			return a < b.(float64)
		case string:
			return a < b.(string)
		case []byte:
			return bytes.Compare(a, b.([]byte)) < 0
		}
		panic("unknown kind")
	}
	if less(v, lo) {
		lo = v
	}
	if less(hi, v) {
		hi = v
	}
	return lo, hi
}

// columnsTruths computes each column's truth from the records.
func columnsTruths(recs []columnsRecord) map[string]*columnsTruth {
	tr := map[string]*columnsTruth{}
	for _, name := range []string{"id", "flag", "score", "f", "name", "data", "opt/int", "u/string", "u/long", "tags[]", "nothing", columnsLongName} {
		tr[name] = &columnsTruth{}
	}
	add := func(name string, v any) {
		c := tr[name]
		c.values++
		c.lo, c.hi = widen(c.lo, c.hi, v)
	}
	for _, r := range recs {
		add("id", r.id)
		add("flag", r.flag)
		if math.IsNaN(r.score) {
			tr["score"].values++
			tr["score"].nan = true
		} else {
			add("score", r.score)
		}
		add("f", float64(r.f))
		add("name", r.name)
		add("data", r.data)
		add(columnsLongName, int64(r.longName))
		tr["nothing"].nulls++ // the statistics count no values of type null
		tr["opt/int"].lengths++
		if r.opt != nil {
			tr["opt/int"].nonEmpty++
			add("opt/int", int64(*r.opt))
		} else {
			tr["opt/int"].nulls++
		}
		for _, b := range []string{"u/string", "u/long"} {
			tr[b].lengths++
			if r.uStr == nil && r.uLong == nil {
				tr[b].nulls++
			}
		}
		if r.uStr != nil {
			tr["u/string"].nonEmpty++
			add("u/string", *r.uStr)
		}
		if r.uLong != nil {
			tr["u/long"].nonEmpty++
			add("u/long", *r.uLong)
		}
		tr["tags[]"].lengths++
		if len(r.tags) > 0 {
			tr["tags[]"].nonEmpty++
		}
		for _, s := range r.tags {
			add("tags[]", s)
		}
	}
	return tr
}

// jsonBound converts a bound as the JSON forms write it (decoded with
// UseNumber) to the truth's kind for column type typ.
func jsonBound(t *testing.T, typ string, v any) any {
	t.Helper()
	if v == nil {
		return nil
	}
	switch typ {
	case "boolean":
		return v.(bool)
	case "int", "long":
		n, err := v.(json.Number).Int64()
		if err != nil {
			t.Fatal(err)
		}
		return n
	case "float", "double":
		bits := 64
		if typ == "float" {
			bits = 32
		}
		f, err := strconv.ParseFloat(string(v.(json.Number)), bits)
		if err != nil {
			t.Fatal(err)
		}
		return f
	case "string":
		return v.(string)
	case "bytes":
		b, err := hex.DecodeString(v.(string))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	t.Fatalf("type %s has no bounds", typ)
	return nil
}

// checkBound checks a bound from the statistics against the data's: equal
// when exact; when not (strings longer than the statistics keep), a
// prefix of the minimum, or a maximum no smaller than the data's.
func checkBound(t *testing.T, col string, upper, exact bool, got, want any) {
	t.Helper()
	if !exact {
		g, w := got.(string), want.(string)
		if upper && g < w || !upper && !strings.HasPrefix(w, g) {
			t.Errorf("%s: inexact bound (upper %v) %q does not bound %q", col, upper, g, w)
		}
		return
	}
	switch w := want.(type) {
	case []byte:
		if !bytes.Equal(got.([]byte), w) {
			t.Errorf("%s: bound (upper %v) %x, want %x", col, upper, got, w)
		}
	default:
		if got != want {
			t.Errorf("%s: bound (upper %v) %v, want %v", col, upper, got, want)
		}
	}
}

// TestColumnsAgainstData writes a file of random values and checks every
// form of columns against what the test computes from those values and
// against the file's block descriptors.
func TestColumnsAgainstData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.trv")
	recs := writeColumnsFile(t, path, 3000, 7)
	truth := columnsTruths(recs)

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	rd, err := format.NewReader(f, fi.Size(), nil)
	if err != nil {
		t.Fatal(err)
	}

	r := runIn(t, nil, "columns", "--format", "json", path)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit status %d, stderr %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != rd.NumColumns() {
		t.Fatalf("%d lines for %d columns", len(lines), rd.NumColumns())
	}
	inexact := 0
	objs := make([]map[string]any, len(lines))
	for i, line := range lines {
		d := json.NewDecoder(strings.NewReader(line))
		d.UseNumber()
		if err := d.Decode(&objs[i]); err != nil {
			t.Fatalf("line %d: %v: %s", i, err, line)
		}
		o := objs[i]
		c, _ := rd.Column(i)
		bl, _ := rd.Blocks(i)
		var comp, uncomp, rows int64
		for _, b := range bl {
			comp += int64(b.CompressedSize)
			uncomp += int64(b.UncompressedSize)
			rows += b.Rows
		}
		num := func(k string) int64 {
			t.Helper()
			n, err := o[k].(json.Number).Int64()
			if err != nil {
				t.Fatalf("%s: %s: %v", c.Name, k, o[k])
			}
			return n
		}
		if o["column"] != c.Name || o["type"] != c.Type.String() || o["codec"] != "deflate" || o["part"] != path || o["array"] != c.Array {
			t.Errorf("column %d: %v", i, o)
		}
		if num("number") != int64(i) || num("blocks") != int64(len(bl)) || num("compressed") != comp || num("uncompressed") != uncomp || num("rows") != rows {
			t.Errorf("%s: sizes %v, want %d blocks, %d and %d bytes, %d rows", c.Name, o, len(bl), comp, uncomp, rows)
		}
		if ratio, _ := strconv.ParseFloat(string(o["ratio"].(json.Number)), 64); math.Abs(ratio-float64(uncomp)/float64(comp)) > 0.005 {
			t.Errorf("%s: ratio %v", c.Name, o["ratio"])
		}
		want := truth[c.Name]
		if want == nil {
			t.Fatalf("unexpected column %s", c.Name)
		}
		if num("values") != want.values || num("nulls") != want.nulls {
			t.Errorf("%s: %v values, %v nulls; want %d, %d", c.Name, o["values"], o["nulls"], want.values, want.nulls)
		}
		if c.Array && (num("lengths") != want.lengths || num("nonEmpty") != want.nonEmpty) {
			t.Errorf("%s: lengths %v, nonEmpty %v; want %d, %d", c.Name, o["lengths"], o["nonEmpty"], want.lengths, want.nonEmpty)
		}
		if !c.Array && (o["lengths"] != nil || o["nonEmpty"] != nil) {
			t.Errorf("%s: lengths of a column that is not an array", c.Name)
		}
		if nan, isFloat := o["nan"], c.Type == format.Float || c.Type == format.Double; isFloat && nan != want.nan || !isFloat && nan != nil {
			t.Errorf("%s: nan %v, want %v", c.Name, nan, want.nan)
		}
		lo, hi := jsonBound(t, c.Type.String(), o["min"]), jsonBound(t, c.Type.String(), o["max"])
		if (lo == nil) != (want.lo == nil) || (hi == nil) != (want.hi == nil) {
			t.Fatalf("%s: bounds %v, %v; want %v, %v", c.Name, lo, hi, want.lo, want.hi)
		}
		if lo != nil {
			checkBound(t, c.Name, false, o["minExact"] == true, lo, want.lo)
			checkBound(t, c.Name, true, o["maxExact"] == true, hi, want.hi)
			if o["minExact"] != true || o["maxExact"] != true {
				inexact++
			}
		} else if o["minExact"] != nil || o["maxExact"] != nil {
			t.Errorf("%s: exactness of absent bounds", c.Name)
		}
	}
	if inexact == 0 {
		t.Error("no bound is inexact: the strings longer than 64 bytes were meant to make one")
	}

	// CSV: the same fields, as text.
	r = runIn(t, nil, "columns", "--format", "csv", path)
	if r.code != 0 {
		t.Fatalf("csv: exit status %d, %s", r.code, r.stderr)
	}
	records, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != len(objs)+1 {
		t.Fatalf("csv: %d records", len(records))
	}
	header := records[0]
	for i, rec := range records[1:] {
		o := objs[i]
		for j, k := range header {
			v, ok := o[k]
			if !ok {
				t.Fatalf("csv field %q is not a JSON key", k)
			}
			var want string
			switch v := v.(type) {
			case nil:
			case string:
				want = v
			case bool:
				want = strconv.FormatBool(v)
			case json.Number:
				want = string(v)
			}
			if k == "min" || k == "max" {
				typ := o["type"].(string)
				if typ == "float" || typ == "double" {
					// The same number, in Go's shortest form rather than Java's.
					if (want == "") != (rec[j] == "") {
						t.Errorf("csv %s %s: %q, JSON %q", o["column"], k, rec[j], want)
					} else if want != "" && jsonBound(t, typ, json.Number(rec[j])) != jsonBound(t, typ, v) {
						t.Errorf("csv %s %s: %q, JSON %q", o["column"], k, rec[j], want)
					}
					continue
				}
			}
			if rec[j] != want {
				t.Errorf("csv %s %s: %q, JSON %q", o["column"], k, rec[j], want)
			}
		}
	}

	// The table: a heading, a header row and one row per column, aligned.
	r = runIn(t, nil, "columns", path)
	if r.code != 0 {
		t.Fatalf("table: exit status %d, %s", r.code, r.stderr)
	}
	rows := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(rows) != rd.NumColumns()+2 || !strings.HasPrefix(rows[0], path+": 3,000 rows, 12 columns, ") {
		t.Fatalf("table:\n%s", r.stdout)
	}
	head := rows[1]
	if strings.Fields(head)[0] != "column" {
		t.Fatalf("table header %q", head)
	}
	typeAt := strings.Index(head, "type")
	valuesEnd := utf8.RuneCountInString(head[:strings.Index(head, "values")+len("values")])
	for i, row := range rows[2:] {
		o := objs[i]
		name := o["column"].(string)
		cell := []rune(row)[:typeAt]
		shown := strings.TrimSpace(string(cell))
		if name == columnsLongName {
			if len([]rune(shown)) != columnsMaxName || !strings.Contains(shown, "…") || !strings.HasPrefix(name, strings.Split(shown, "…")[0]) || !strings.HasSuffix(name, strings.Split(shown, "…")[1]) {
				t.Errorf("long name shown as %q", shown)
			}
		} else if shown != name {
			t.Errorf("row %d: name %q, want %q", i, shown, name)
		}
		if !strings.HasPrefix(string([]rune(row)[typeAt:]), o["type"].(string)+" ") {
			t.Errorf("row %d: type not under its header: %q", i, row)
		}
		if name == "name" {
			// Both bounds cut by the statistics (64 bytes kept), then
			// by the table (24 characters shown).
			a, z := strings.Repeat("a", columnsMaxValue), strings.Repeat("z", columnsMaxValue)
			if !strings.HasSuffix(row, `>="`+a+`"…  <="`+z+`"…`) {
				t.Errorf("name's bounds shown as %q", row)
			}
		}
		values := formatCount(mustInt(t, o["values"]))
		if got := string([]rune(row)[valuesEnd-len(values) : valuesEnd]); got != values {
			t.Errorf("row %d: values %q not right-aligned under the header (%q)", i, got, row)
		}
	}
}

func mustInt(t *testing.T, v any) int64 {
	t.Helper()
	n, err := v.(json.Number).Int64()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMetaBlocksStats checks the statistics meta --blocks decodes, block by
// block, against the values written in each block's rows.
func TestMetaBlocksStats(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.trv")
	recs := writeColumnsFile(t, path, 2000, 11)
	r := runIn(t, nil, "meta", "--blocks", path)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit status %d, stderr %s", r.code, r.stderr)
	}
	d := json.NewDecoder(strings.NewReader(r.stdout))
	d.UseNumber()
	var meta struct {
		Columns []struct {
			Name, Type string
			Blocks     []struct {
				Rows, FirstRow json.Number
				Stats          map[string]any
			}
		}
	}
	if err := d.Decode(&meta); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, c := range meta.Columns {
		var nBlocks int
		for _, b := range c.Blocks {
			first, _ := b.FirstRow.Int64()
			rows, _ := b.Rows.Int64()
			want := columnsTruths(recs[first : first+rows])[c.Name]
			s := b.Stats
			if s == nil {
				t.Fatalf("%s: a block without stats", c.Name)
			}
			if mustInt(t, s["values"]) != want.values {
				t.Errorf("%s block at row %d: %v values, want %d", c.Name, first, s["values"], want.values)
			}
			lo, hi := jsonBound(t, c.Type, s["min"]), jsonBound(t, c.Type, s["max"])
			if (lo == nil) != (want.lo == nil) {
				t.Fatalf("%s block at row %d: bounds %v, %v; want %v, %v", c.Name, first, lo, hi, want.lo, want.hi)
			}
			if lo != nil {
				checkBound(t, c.Name, false, s["minExact"] == true, lo, want.lo)
				checkBound(t, c.Name, true, s["maxExact"] == true, hi, want.hi)
			}
			if strings.HasSuffix(c.Name, "[]") || strings.Contains(c.Name, "/") {
				if mustInt(t, s["lengths"]) != want.lengths || mustInt(t, s["nonEmpty"]) != want.nonEmpty {
					t.Errorf("%s block at row %d: lengths %v, %v; want %d, %d", c.Name, first, s["lengths"], s["nonEmpty"], want.lengths, want.nonEmpty)
				}
			}
			if c.Type == "double" && s["nan"] != want.nan {
				t.Errorf("%s block at row %d: nan %v, want %v", c.Name, first, s["nan"], want.nan)
			}
			nBlocks++
		}
		if nBlocks > 1 {
			checked++
		}
	}
	if checked < 5 {
		t.Errorf("only %d columns of several blocks: the blocks were meant to be small", checked)
	}
}

// TestColumnsWithoutStats runs columns on Java's files, which store no
// statistics: the sizes are there, the statistics' cells blank.
func TestColumnsWithoutStats(t *testing.T) {
	path := filepath.Join(interopDir, "email", "email.snappy.crc32.trv")
	r := runIn(t, nil, "columns", path)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit status %d, stderr %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if !strings.HasSuffix(lines[0], ", no statistics stored") || len(lines) != 13 {
		t.Fatalf("table:\n%s", r.stdout)
	}
	for _, l := range lines[2:] {
		// name, type, codec, blocks, sizes, ratio; nothing after.
		if n := len(strings.Fields(l)); n != 7 {
			t.Errorf("%d cells in %q", n, l)
		}
	}
	r = runIn(t, nil, "columns", "--format", "json", path)
	for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		var o map[string]any
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"values", "nulls", "min", "max", "minExact", "maxExact", "nan", "lengths", "nonEmpty"} {
			if v, ok := o[k]; !ok || v != nil {
				t.Errorf("%s: %s is %v, want null", o["column"], k, v)
			}
		}
	}
}

// TestColumnsRefuses checks the errors: a Trevni 1 file, a CLMN file and
// an unknown --format.
func TestColumnsRefuses(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{filepath.Join("..", "..", "testdata", "trevni1", "impala_all_types.trv")}, 1, "a Trevni 1 file: columns reports Trevni 2 files"},
		{[]string{filepath.Join("..", "..", "testdata", "clmn", "last-empty.clmn")}, 1, "a CLMN file: columns reports Trevni 2 files"},
		{[]string{"--format", "xml", filepath.Join(interopDir, "tiny", "tiny_int.trv")}, 2, `--format "xml": want table, json or csv`},
	} {
		r := runIn(t, nil, append([]string{"columns"}, tc.args...)...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("%v: exit status %d, stderr %q; want %d, %q", tc.args, r.code, r.stderr, tc.code, tc.msg)
		}
	}
}

// TestColumnsBadStats stores statistics that contradict the column (of
// two blocks, they describe one): columns and meta --blocks say so and
// show the rest.
func TestColumnsBadStats(t *testing.T) {
	acc, err := stats.NewAccumulator(stats.Long, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	acc.AddLong(5)
	acc.EndBlock(1)
	cols := []format.ColumnMeta{{Name: "x", Type: format.Long}}
	cols[0].Meta.Set(stats.MetaKey, acc.Encode())
	var buf bytes.Buffer
	w, err := format.NewWriter(&buf, cols, &format.WriterOptions{DisableStats: true, BlockSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if err := w.StartRow(); err != nil {
			t.Fatal(err)
		}
		w.WriteLong(0, int64(i)<<40)
		if err := w.EndRow(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bad.trv")
	writeFileT(t, path, buf.Bytes())

	r := runIn(t, nil, "columns", "--format", "json", path)
	if r.code != 0 || !strings.Contains(r.stderr, "statistics ignored") {
		t.Fatalf("exit status %d, stderr %q", r.code, r.stderr)
	}
	var o map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &o); err != nil {
		t.Fatal(err)
	}
	if o["values"] != nil || o["min"] != nil || !strings.Contains(o["statsError"].(string), "blocks") || o["blocks"].(float64) < 2 {
		t.Errorf("%v", o)
	}
	r = runIn(t, nil, "meta", "--blocks", path)
	var meta struct {
		Columns []map[string]any
	}
	if err := json.Unmarshal([]byte(r.stdout), &meta); err != nil {
		t.Fatal(err)
	}
	if c := meta.Columns[0]; c["statsError"] == nil || slices.ContainsFunc(c["blocks"].([]any), func(b any) bool { return b.(map[string]any)["stats"] != nil }) {
		t.Errorf("meta: %v", c)
	}
}

// TestColumnsSeveralFiles checks the forms for several inputs: a heading
// and a table per file; the part named in every JSON object.
func TestColumnsSeveralFiles(t *testing.T) {
	a, b := filepath.Join(interopDir, "email", "email.null.none.trv"), filepath.Join(interopDir, "tiny", "tiny_int.trv")
	r := runIn(t, nil, "columns", a, b)
	if r.code != 0 {
		t.Fatalf("exit status %d, %s", r.code, r.stderr)
	}
	tables := strings.Split(r.stdout, "\n\n")
	if len(tables) != 2 || !strings.HasPrefix(tables[0], a+": 300 rows, 11 columns") || !strings.HasPrefix(tables[1], b+": ") {
		t.Fatalf("tables:\n%s", r.stdout)
	}
	r = runIn(t, nil, "columns", "--format", "json", a, b)
	parts := map[string]int{}
	for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		var o struct{ Part string }
		if err := json.Unmarshal([]byte(line), &o); err != nil {
			t.Fatal(err)
		}
		parts[o.Part]++
	}
	if parts[a] != 11 || parts[b] < 1 || len(parts) != 2 {
		t.Errorf("parts %v", parts)
	}
}

// TestColumnsDamagedHeader flips bytes all over the header of a file with
// statistics (where they are stored): columns and meta --blocks report an
// error or show what they can, and never fail inside.
func TestColumnsDamagedHeader(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "h.trv")
	writeColumnsFile(t, path, 300, 3)
	good := readFile(t, path)
	rd, err := format.NewReader(bytes.NewReader(good), int64(len(good)), nil)
	if err != nil {
		t.Fatal(err)
	}
	header := int(rd.ColumnStart(0))
	bad := filepath.Join(t.TempDir(), "bad.trv")
	for off := 0; off < header; off += 3 {
		data := slices.Clone(good)
		data[off] ^= 0x5a
		writeFileT(t, bad, data)
		for _, args := range [][]string{{"columns", "--format", "json", bad}, {"columns", bad}, {"meta", "--blocks", bad}} {
			r := runIn(t, nil, args...)
			if r.code > 1 || strings.Contains(r.stderr, "internal error") {
				t.Fatalf("byte %d flipped: %v: exit status %d, %s", off, args, r.code, r.stderr)
			}
		}
	}
}
