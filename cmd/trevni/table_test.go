package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

var (
	sampleCSV  = "../../testdata/clmn/sample.csv"
	sampleCLMN = "../../testdata/clmn/sample.clmn"
)

func readCSV(t *testing.T, text string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	return recs
}

// sameTable compares CSV tables cell by cell, numbers that parse to the same
// double being the same (the reference writes 137578.0 where we write
// 137578).
func sameTable(t *testing.T, got, want [][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("row %d: %d cells, want %d", i, len(got[i]), len(want[i]))
		}
		for j := range want[i] {
			if got[i][j] == want[i][j] {
				continue
			}
			a, err1 := strconv.ParseFloat(got[i][j], 64)
			b, err2 := strconv.ParseFloat(want[i][j], 64)
			if err1 != nil || err2 != nil || a != b {
				t.Fatalf("row %d cell %d: %q, want %q", i, j, got[i][j], want[i][j])
			}
		}
	}
}

func TestTableCommands(t *testing.T) {
	dir := t.TempDir()
	csvText, err := os.ReadFile(sampleCSV)
	if err != nil {
		t.Fatal(err)
	}
	want := readCSV(t, string(csvText))
	trv := filepath.Join(dir, "s.trv")
	clm := filepath.Join(dir, "s.clmn")
	clm2 := filepath.Join(dir, "s.out")
	for _, args := range [][]string{
		{"fromcsv", sampleCSV, trv},
		{"fromcsv", sampleCSV, clm},
		{"fromcsv", "--format", "clmn", "-", clm2}, // standard input, inferred: read twice
	} {
		var r result
		if args[len(args)-2] == "-" {
			r = runIn(t, strings.NewReader(string(csvText)), args...)
		} else {
			r = runIn(t, nil, args...)
		}
		if r.code != 0 {
			t.Fatalf("%q: %d %s", args, r.code, r.stderr)
		}
	}
	// Every way back gives the sample's cells; the reference's own
	// sample.clmn too.
	for _, in := range []string{trv, clm, clm2, sampleCLMN} {
		r := runIn(t, nil, "tocsv", in)
		if r.code != 0 {
			t.Fatalf("tocsv %s: %s", in, r.stderr)
		}
		sameTable(t, readCSV(t, r.stdout), want)
	}
	// fromclmn then toclmn: the same values again.
	trv2 := filepath.Join(dir, "f.trv")
	clm3 := filepath.Join(dir, "g.clmn")
	for _, args := range [][]string{{"fromclmn", sampleCLMN, trv2}, {"toclmn", trv2, clm3}} {
		if r := runIn(t, nil, args...); r.code != 0 {
			t.Fatalf("%q: %s", args, r.stderr)
		}
	}
	r := runIn(t, nil, "tocsv", "--fields", "city,id", "--delimiter", ";", clm3)
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	lines := strings.Split(r.stdout, "\n")
	if lines[0] != "city;id" || lines[1] != "Novolugovoye;1" || len(lines) != 1002 {
		t.Fatalf("selected columns: %q...", lines[:3])
	}
	// tojson reads CLMN as it reads the Trevni file fromclmn makes.
	a, b := runIn(t, nil, "tojson", sampleCLMN), runIn(t, nil, "tojson", trv2)
	if a.code != 0 || b.code != 0 || a.stdout != b.stdout || strings.Count(a.stdout, "\n") != 1000 {
		t.Fatalf("tojson on CLMN: %s %s\n%.300s\n%.300s", a.stderr, b.stderr, a.stdout, b.stdout)
	}
	if r := runIn(t, nil, "tojson", "--offset", "998", "--limit", "5", sampleCLMN); strings.Count(r.stdout, "\n") != 2 || !strings.HasPrefix(r.stdout, `{"id":999,`) {
		t.Fatalf("tojson range: %q %s", r.stdout, r.stderr)
	}
	// --schema reads CLMN rows as a reader schema, as it reads the
	// Trevni file fromclmn makes.
	rs := filepath.Join(t.TempDir(), "r.avsc")
	writeFileT(t, rs, []byte(`{"type":"record","name":"Row","fields":[{"name":"city","type":"string"},{"name":"id","type":"long"},{"name":"extra","type":"int","default":7}]}`))
	a, b = runIn(t, nil, "tojson", "--schema", rs, "--limit", "2", sampleCLMN), runIn(t, nil, "tojson", "--schema", rs, "--limit", "2", trv2)
	if a.code != 0 || a.stdout != b.stdout || !strings.HasPrefix(a.stdout, `{"city":"Novolugovoye","id":1,"extra":7}`) {
		t.Fatalf("tojson --schema on CLMN: %d %s\n%s\nwant\n%s", a.code, a.stderr, a.stdout, b.stdout)
	}
	r = runIn(t, nil, "meta", sampleCLMN)
	var meta struct {
		Format   string
		RowCount int64
		Columns  []struct{ Name, Type string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &meta); err != nil || meta.Format != "CLMN" || meta.RowCount != 1000 || len(meta.Columns) != 6 || meta.Columns[3].Type != "FLOAT64" {
		t.Fatalf("meta: %v %+v %s", err, meta, r.stderr)
	}
}

func TestFromCSVBadRowWritesNothing(t *testing.T) {
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "s.avsc")
	os.WriteFile(schemaFile, []byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"double"}]}`), 0o644)
	for _, tc := range []struct {
		args  []string
		input string
		want  string
	}{
		{nil, "a,b\n1,2\n3\n", "line 3: ragged record: 1 cells, but the header has 2 (--ragged pad"},
		{[]string{"--schema", schemaFile}, "a,b\n1,2\n3,x\n", `line 3, column 2 ("b"): "x" is not a valid double`},
		{[]string{"--schema", schemaFile}, "a,b\n1,2\n\"3\n\",4\n", `line 3, column 1 ("a")`},
	} {
		for _, out := range []string{"o.trv", "o.clmn"} {
			path := filepath.Join(dir, out)
			args := append(append([]string{"fromcsv"}, tc.args...), "-", path)
			r := runIn(t, strings.NewReader(tc.input), args...)
			checkOneLineError(t, r, "fromcsv")
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("%q: %s, want %q", args, r.stderr, tc.want)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("%q: output written despite the error", args)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("%q: files left behind: %v", args, ents)
			}
		}
	}
}

func TestToCLMNRejects(t *testing.T) {
	dir := t.TempDir()
	trv := filepath.Join(dir, "n.trv")
	if r := runIn(t, strings.NewReader("a,b,s\n1,true,x\n,false,y\n"), "fromcsv", "-", trv); r.code != 0 {
		t.Fatal(r.stderr)
	}
	out := filepath.Join(dir, "n.clmn")
	r := runIn(t, nil, "toclmn", "--fields", "a,s", trv, out)
	checkOneLineError(t, r, "toclmn")
	if !strings.Contains(r.stderr, `column "a" (#0), row 1: null value`) {
		t.Errorf("null: %s", r.stderr)
	}
	r = runIn(t, nil, "toclmn", trv, out)
	if !strings.Contains(r.stderr, `column "b": CLMN has no boolean type`) {
		t.Errorf("boolean: %s", r.stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("output written despite the errors")
	}
	if r := runIn(t, nil, "toclmn", "--fields", "s", trv, out); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if r := runIn(t, nil, "tocsv", out); r.stdout != "s\nx\ny\n" {
		t.Fatalf("got %q %s", r.stdout, r.stderr)
	}
}

// Java-written Trevni files: a nested field is an error naming it, unless
// --fields selects flat ones, whose values are those Java wrote.
func TestToCSVJavaFiles(t *testing.T) {
	email := filepath.Join(interopDir, "email", "email.deflate.crc32.trv")
	r := runIn(t, nil, "tocsv", email)
	checkOneLineError(t, r, "tocsv")
	if !strings.Contains(r.stderr, `field "to": array is not a flat value`) || !strings.Contains(r.stderr, "--fields") {
		t.Errorf("nested: %s", r.stderr)
	}
	r = runIn(t, nil, "tocsv", "--fields", "id,from,date", email)
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	got := readCSV(t, r.stdout)
	f, err := os.Open(filepath.Join(interopDir, "email", "expected.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	row := 1
	for ; sc.Scan(); row++ {
		var rec struct {
			ID   int64  `json:"id"`
			From string `json:"from"`
			Date int64  `json:"date"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		want := []string{strconv.FormatInt(rec.ID, 10), rec.From, strconv.FormatInt(rec.Date, 10)}
		if strings.Join(got[row], "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("row %d: %q, want %q", row, got[row], want)
		}
	}
	if row != len(got) || row < 2 {
		t.Fatalf("%d records, %d CSV rows", row-1, len(got)-1)
	}
}

// TestFromCSVRaggedNoHeader reads a ragged CSV (later columns missing
// from older rows, as in distro-info's tables) with --ragged pad and
// drop, and a CSV without a header row with --no-header.
func TestFromCSVRaggedNoHeader(t *testing.T) {
	dir := t.TempDir()
	in := "version,codename,eol,eol-esm\n4.10,Warty,2006-04-30\n6.06,Dapper,2009-07-14,2011-06-01\n"
	for _, tc := range []struct{ mode, want string }{
		{"pad", "version,codename,eol,eol-esm\n4.10,Warty,2006-04-30,\n6.06,Dapper,2009-07-14,2011-06-01\n"},
		{"drop", "version,codename,eol,eol-esm\n6.06,Dapper,2009-07-14,2011-06-01\n"},
	} {
		trv := filepath.Join(dir, tc.mode+".trv")
		r := runIn(t, strings.NewReader(in), "fromcsv", "--ragged", tc.mode, "--schema", writeSchema(t, dir), "-", trv)
		if r.code != 0 {
			t.Fatalf("%s: %s", tc.mode, r.stderr)
		}
		if dropped := strings.Contains(r.stderr, "dropped 1 record of the wrong width"); dropped != (tc.mode == "drop") {
			t.Errorf("%s: stderr %q", tc.mode, r.stderr)
		}
		if r := runIn(t, nil, "tocsv", trv); r.code != 0 || r.stdout != tc.want {
			t.Errorf("%s: %q (%s), want %q", tc.mode, r.stdout, r.stderr, tc.want)
		}
	}
	r := runIn(t, strings.NewReader(in), "fromcsv", "--ragged", "sideways", "-", filepath.Join(dir, "x.trv"))
	if r.code != 2 || !strings.Contains(r.stderr, "--ragged") {
		t.Errorf("--ragged sideways: %d %s", r.code, r.stderr)
	}
	trv := filepath.Join(dir, "nh.trv")
	if r := runIn(t, strings.NewReader("1\tx\n2\ty\n"), "fromcsv", "--no-header", "--delimiter", "tab", "-", trv); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if r := runIn(t, nil, "tocsv", trv); r.stdout != "c1,c2\n1,x\n2,y\n" {
		t.Errorf("--no-header: %q %s", r.stdout, r.stderr)
	}
}

// writeSchema writes the schema of the ragged table, all strings, the
// last two nullable.
func writeSchema(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "ragged.avsc")
	s := `{"type":"record","name":"R","fields":[{"name":"version","type":"string"},{"name":"codename","type":"string"},` +
		`{"name":"eol","type":["null","string"]},{"name":"eol_esm","type":["null","string"],"csv.name":"eol-esm"}]}`
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestFromCSVDateSchema reads ISO 8601 dates and timestamps into fields
// of the date and timestamp-micros logical types (issue 26: "2004-03-05"
// was not a valid int), and writes them back.
func TestFromCSVDateSchema(t *testing.T) {
	dir := t.TempDir()
	sch := filepath.Join(dir, "d.avsc")
	os.WriteFile(sch, []byte(`{"type":"record","name":"R","fields":[{"name":"d","type":{"type":"int","logicalType":"date"}},`+
		`{"name":"ts","type":["null",{"type":"long","logicalType":"timestamp-micros"}]}]}`), 0o644)
	in := "d,ts\n2004-03-05,2004-03-05T10:00:00.000001Z\n1969-07-20,\n"
	trv := filepath.Join(dir, "d.trv")
	if r := runIn(t, strings.NewReader(in), "fromcsv", "--schema", sch, "-", trv); r.code != 0 {
		t.Fatal(r.stderr)
	}
	if r := runIn(t, nil, "tocsv", trv); r.stdout != "d,ts\n2004-03-05,2004-03-05T10:00:00.000001Z\n1969-07-20,\n" {
		t.Errorf("tocsv: %q %s", r.stdout, r.stderr)
	}
	// The stored values, as Go's time package counts them.
	d1 := time.Date(2004, 3, 5, 0, 0, 0, 0, time.UTC).Unix() / 86400
	d2 := time.Date(1969, 7, 20, 0, 0, 0, 0, time.UTC).Unix() / 86400
	ts := time.Date(2004, 3, 5, 10, 0, 0, 1000, time.UTC).UnixMicro()
	want := fmt.Sprintf(`{"d":%d,"ts":{"long":%d}}`+"\n"+`{"d":%d,"ts":null}`+"\n", d1, ts, d2)
	if r := runIn(t, nil, "tojson", trv); r.stdout != want {
		t.Errorf("tojson: %q %s, want %q", r.stdout, r.stderr, want)
	}
}

// TestFromCSVDecimals: columns of plain decimals of one scale are
// inferred as decimals, so that fromcsv then tocsv gives the text back
// (4.10 stays 4.10), through Trevni and through CLMN (as strings), and a
// filter compares them by value.
func TestFromCSVDecimals(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "u.csv")
	text := "version,name,price,ratio\n4.10,warty,12.50,0.5\n6.06,dapper,-0.05,1.25\n10.04,lucid,100.00,2\n"
	writeFileT(t, in, []byte(text))
	for _, out := range []string{"u.trv", "u.clmn"} {
		o := filepath.Join(dir, out)
		if r := runIn(t, nil, "fromcsv", "--quiet", in, o); r.code != 0 {
			t.Fatalf("fromcsv %s: %+v", out, r)
		}
		if r := runIn(t, nil, "tocsv", o); r.code != 0 || r.stdout != text {
			t.Errorf("tocsv %s: %+v, want %q", out, r, text)
		}
	}
	trv := filepath.Join(dir, "u.trv")
	s := runIn(t, nil, "schema", trv)
	for _, want := range []string{`{"name":"version","type":{"type":"bytes","logicalType":"decimal","precision":4,"scale":2}}`, `{"name":"ratio","type":"double"}`} {
		if !strings.Contains(s.stdout, want) {
			t.Errorf("schema %s lacks %s", s.stdout, want)
		}
	}
	if r := runIn(t, nil, "count", "--where", "price >= 12.50 AND version >= 4.1", trv); r.stdout != "2\n" {
		t.Errorf("count: %+v", r)
	}
}

// TestFromcsvErrorNamesInput checks that fromcsv's "schema is too large"
// (its schema is the input's header's) names the input.
func TestFromcsvErrorNamesInput(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "wide.csv")
	writeFileT(t, csv, []byte("a,b,c\n1,2,3\n"))
	r := runIn(t, nil, "fromcsv", "--max-columns", "2", csv, filepath.Join(dir, "out.trv"))
	if r.code != exitError || !strings.HasPrefix(r.stderr, "trevni: fromcsv: "+csv+": ") || !strings.Contains(r.stderr, "schema is too large") {
		t.Errorf("status %d, stderr %q; want the input named first", r.code, r.stderr)
	}
}

// TestTableCommandsOnTrevni1: tocsv and toclmn read a Trevni 1 file's
// records as those of the Trevni 2 file of the same records (they once
// took its header for a Trevni 2 file's).
func TestTableCommandsOnTrevni1(t *testing.T) {
	v1, v2 := v1AndV2(t)
	dir := t.TempDir()
	for _, args := range [][]string{
		{"tocsv", "--fields", "col_9,col_2,col_6"},
		{"tocsv", "--fields", "col_1,col_5", "--delimiter", "tab"},
	} {
		got, want := runIn(t, nil, append(args, v1)...), runIn(t, nil, append(args, v2)...)
		if got.code != 0 || got.stdout != want.stdout || len(lines(got.stdout)) != 4 {
			t.Errorf("%q: %d %s\n%s\nwant\n%s", args, got.code, got.stderr, got.stdout, want.stdout)
		}
	}
	// toclmn: the vector's row of nulls, which CLMN cannot hold, stops
	// both alike, and nothing is left.
	for _, in := range []string{v1, v2} {
		r := runIn(t, nil, "toclmn", "--quiet", "--fields", "col_2,col_9", in, filepath.Join(dir, "out.clmn"))
		if r.code != exitError || !strings.Contains(r.stderr, in+`: column "col_2" (#0), row 1: null value: CLMN has no nulls`) {
			t.Errorf("toclmn %s: %d %s", in, r.code, r.stderr)
		}
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("left: %q", names)
	}
}
