package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/internal/ocf"
)

// The commands read every format through the front door. The truth for a
// Trevni 1 file is the Trevni 2 file of the same records (toavro then
// fromavro: TestV1FromAvro shows that round trip keeps them), read by the
// same commands.

// v1AndV2 returns the Trevni 1 vector and the Trevni 2 file of its
// records, made in a temporary directory.
func v1AndV2(t *testing.T) (v1, v2 string) {
	t.Helper()
	dir := t.TempDir()
	v1 = filepath.Join(v1Dir, "impala_all_types.trv")
	avro, v2 := filepath.Join(dir, "all.avro"), filepath.Join(dir, "all.trv")
	for _, args := range [][]string{{"toavro", "--quiet", v1, avro}, {"fromavro", "--quiet", avro, v2}} {
		if r := runIn(t, nil, args...); r.code != 0 {
			t.Fatalf("%q: %s", args, r.stderr)
		}
	}
	return v1, v2
}

// TestV1RecordCommands: count, head, tojson --where and --fields on a
// Trevni 1 file give what they give on the Trevni 2 file of its records.
// (count failed with "unknown value type fixed8", head with "no
// avro.schema", and tojson --where wrote every record.)
func TestV1RecordCommands(t *testing.T) {
	v1, v2 := v1AndV2(t)
	for _, args := range [][]string{
		{"count"},
		{"count", "--where", "col_2 > 0"},
		{"count", "--where", "col_9 = 'hi' OR col_5 < 0"},
		{"head", "--plain=false", "-n", "2"},
		{"head", "--plain=false", "-n", "1", "--where", "col_1 = false"},
		{"tojson", "--where", "col_2 > 0"},
		{"tojson", "--where", "col_2 IS NULL", "--fields", "col_3,col_9"},
		{"tojson", "--offset", "1", "--limit", "1", "--fields", "col_6"},
		{"tojson", "--limit", "0"},
	} {
		want := runIn(t, nil, append(args, v2)...)
		got := runIn(t, nil, append(args, v1)...)
		if want.code != 0 || got.code != 0 || got.stdout != want.stdout {
			t.Errorf("%q: status %d %s\n%s\nwant (version 2: %d %s)\n%s", args, got.code, got.stderr, got.stdout, want.code, want.stderr, want.stdout)
		}
	}
	// The values themselves, against the vector's known records.
	if r := runIn(t, nil, "count", v1); r.stdout != "3\n" {
		t.Errorf("count: %q %s", r.stdout, r.stderr)
	}
	if r := runIn(t, nil, "count", "--where", "col_2 > 0", v1); r.stdout != "1\n" {
		t.Errorf("count --where: %q %s", r.stdout, r.stderr)
	}
	r := runIn(t, nil, "tojson", "--where", "col_2 > 0", v1)
	if len(lines(r.stdout)) != 1 || !strings.Contains(r.stdout, `"col_2":{"int":127}`) {
		t.Errorf("tojson --where: %q %s", r.stdout, r.stderr)
	}
	// A bad --where is a usage error with its caret, as on version 2.
	if r := runIn(t, nil, "tojson", "--where", "col_2 >", v1); r.code != exitUsage || !strings.Contains(r.stderr, "--where") {
		t.Errorf("bad --where: %d %s", r.code, r.stderr)
	}
}

// TestMixedFormatDataset: a directory holding a Trevni 2 file, a Trevni 1
// file and (as *.trv1) the same Trevni 1 file, of one schema, is one data
// set: counted, filtered and ranged across the parts, with a scan report
// per part and their sum.
func TestMixedFormatDataset(t *testing.T) {
	v1, v2 := v1AndV2(t)
	dir := t.TempDir()
	for name, src := range map[string]string{"a.trv": v2, "b.trv": v1, "c.trv1": v1} {
		writeFileT(t, filepath.Join(dir, name), readFile(t, src))
	}
	one := lines(runIn(t, nil, "tojson", v2).stdout)
	all := slices.Concat(one, one, one)
	if r := runIn(t, nil, "tojson", dir); r.code != 0 || !slices.Equal(lines(r.stdout), all) {
		t.Fatalf("tojson: %d %s\n%s", r.code, r.stderr, r.stdout)
	}
	if r := runIn(t, nil, "tojson", "--offset", "2", "--limit", "3", dir); !slices.Equal(lines(r.stdout), all[2:5]) {
		t.Errorf("tojson --offset 2 --limit 3: %s\n%s", r.stderr, r.stdout)
	}
	r := runIn(t, nil, "count", "--where", "col_2 > 0", "--report", dir)
	if r.code != 0 || r.stdout != "3\n" || !strings.Contains(r.stderr, "all 3 parts read: 9 rows scanned, 3 rows matched") {
		t.Errorf("count --report: %d %q %s", r.code, r.stdout, r.stderr)
	}
	for _, p := range []string{"a.trv", "b.trv", "c.trv1"} {
		if !strings.Contains(r.stderr, filepath.Join(dir, p)+": 3 rows scanned, 1 row matched") {
			t.Errorf("count --report: no report of %s in\n%s", p, r.stderr)
		}
	}
	// --limit counts the matches across the parts.
	if r := runIn(t, nil, "tojson", "--where", "col_2 > 0", "--limit", "2", dir); len(lines(r.stdout)) != 2 {
		t.Errorf("tojson --where --limit 2: %s\n%s", r.stderr, r.stdout)
	}
	// The format-specific commands take each part in its own way.
	r = runIn(t, nil, "meta", dir)
	if ms := lines(r.stdout); r.code != 0 || len(ms) != 3 || strings.Contains(ms[0], `"version":1`) || !strings.Contains(ms[1], `"version":1`) {
		t.Errorf("meta: %d %s\n%.600s", r.code, r.stderr, r.stdout)
	}
	r = runIn(t, nil, "validate", dir)
	if r.code != 0 || strings.Count(r.stdout, "ok:") != 3 || strings.Count(r.stdout, "(version 1)") != 2 {
		t.Errorf("validate: %d %s\n%s", r.code, r.stderr, r.stdout)
	}
}

// TestOffsetPastEmptyPart: an empty part before others does not take the
// offset (the tool's own loop once consumed it there).
func TestOffsetPastEmptyPart(t *testing.T) {
	_, parts, want := emailParts(t)
	dir := t.TempDir()
	avsc := filepath.Join(dir, "email.avsc")
	r := runIn(t, nil, "schema", parts[0], avsc)
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	empty := filepath.Join(dir, "a-empty.trv")
	if r := runIn(t, nil, "random", "--quiet", avsc, "0", empty); r.code != 0 {
		t.Fatal(r.stderr)
	}
	for i, p := range parts {
		writeFileT(t, filepath.Join(dir, "b-"+strconv.Itoa(i)+".trv"), readFile(t, p))
	}
	if r := runIn(t, nil, "count", empty); r.stdout != "0\n" {
		t.Fatalf("the empty part: %q %s", r.stdout, r.stderr)
	}
	for _, off := range []int{1, 5, len(want) / 2, len(want) - 1} {
		r := runIn(t, nil, "tojson", "--offset", strconv.Itoa(off), "--limit", "3", dir)
		if r.code != 0 || !slices.Equal(lines(r.stdout), want[off:min(off+3, len(want))]) {
			t.Errorf("--offset %d: %d %s\n%.300s", off, r.code, r.stderr, r.stdout)
		}
	}
	for _, args := range [][]string{{"head", "--plain=false", "-n", "2", "--where", "id >= 0"}, {"tojson", "--offset", "3", "--where", "id >= 0"}} {
		got := runIn(t, nil, append(args, empty, filepath.Join(dir, "b-*.trv"))...)
		want := runIn(t, nil, append(args, filepath.Join(dir, "b-*.trv"))...)
		if got.code != 0 || got.stdout != want.stdout || want.stdout == "" {
			t.Errorf("%q after an empty part: %s\n%.300s\nwant\n%.300s", args, got.stderr, got.stdout, want.stdout)
		}
	}
}

// TestConcatRefusesOtherFormats: concat of a Trevni 1 file fails, naming
// it and the way to convert it, and writes nothing (it once wrote a file
// validate found ten problems in).
func TestConcatRefusesOtherFormats(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.trv")
	v1 := filepath.Join(v1Dir, "impala_all_types.trv")
	cl := filepath.Join("..", "..", "testdata", "clmn", "sample.clmn")
	// A version-1 file fromavro writes: its header once passed for a
	// Trevni 2 file's.
	mine := filepath.Join(t.TempDir(), "email.v1.trv")
	if r := runIn(t, nil, "fromavro", "--quiet", "--version", "1", filepath.Join(interopDir, "email", "input.avro"), mine); r.code != 0 {
		t.Fatal(r.stderr)
	}
	for _, ins := range [][]string{{mine, mine}, {v1, v1}, {filepath.Join(interopDir, "tiny", "tiny_rle.trv"), v1}, {cl, cl}} {
		r := runIn(t, nil, append(append([]string{"concat"}, ins...), out)...)
		if r.code != exitError || !strings.Contains(r.stderr, "concat joins Trevni 2 files") || !strings.Contains(r.stderr, "toavro") {
			t.Errorf("%q: %d %s", ins, r.code, r.stderr)
		}
		if names := dirNames(t, dir); len(names) != 0 {
			t.Errorf("%q: left %q", ins, names)
		}
	}
	if r := runIn(t, nil, "concat", v1, v1, out); !strings.Contains(r.stderr, v1+": a trevni1 file") {
		t.Errorf("the file is not named first: %s", r.stderr)
	}
}

// TestToavroEmptyProjection: toavro of a range holding no record writes an
// empty container of the projected schema, for every format.
func TestToavroEmptyProjection(t *testing.T) {
	dir := t.TempDir()
	for i, c := range []struct{ in, field string }{
		{filepath.Join(interopDir, "email", "email.deflate.crc32.trv"), "id"},
		{filepath.Join(v1Dir, "impala_all_types.trv"), "col_4"},
		{filepath.Join("..", "..", "testdata", "clmn", "sample.clmn"), "city"},
	} {
		for _, rng := range [][]string{{"--limit", "0"}, {"--offset", "100000"}, {"--where", c.field + " IS NULL AND " + c.field + " IS NOT NULL"}} {
			out := filepath.Join(dir, strconv.Itoa(i)+rng[0]+".avro")
			args := append(append([]string{"toavro", "--quiet", "--fields", c.field}, rng...), c.in, out)
			if r := runIn(t, nil, args...); r.code != 0 {
				t.Fatalf("%q: %s", args, r.stderr)
			}
			f, err := os.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			rd, err := ocf.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			n, _, err := rd.NextBlock()
			f.Close()
			if n != 0 || !strings.Contains(rd.Schema(), `"`+c.field+`"`) || strings.Count(rd.Schema(), `"name"`) != 2 {
				t.Errorf("%q: %d records, %v, schema %s", args, n, err, rd.Schema())
			}
		}
	}
}

// TestCLMNSchemaAndValidate: schema prints a CLMN file's record, the one
// its Trevni copy stores; validate reads every row, and a file cut short
// fails, naming it.
func TestCLMNSchemaAndValidate(t *testing.T) {
	cl := filepath.Join("..", "..", "testdata", "clmn", "sample.clmn")
	dir := t.TempDir()
	trv := filepath.Join(dir, "sample.trv")
	if r := runIn(t, nil, "fromclmn", "--quiet", cl, trv); r.code != 0 {
		t.Fatal(r.stderr)
	}
	got, want := runIn(t, nil, "schema", cl), runIn(t, nil, "schema", trv)
	if got.code != 0 || got.stdout != want.stdout || !strings.Contains(got.stdout, `"salary"`) {
		t.Errorf("schema: %d %s\n%s\nwant\n%s", got.code, got.stderr, got.stdout, want.stdout)
	}
	if r := runIn(t, nil, "validate", cl); r.code != 0 || r.stdout != cl+": ok: 1000 rows, 6 columns checked (CLMN)\n" {
		t.Errorf("validate: %d %s %q", r.code, r.stderr, r.stdout)
	}
	b := readFile(t, cl)
	cut := filepath.Join(dir, "cut.clmn")
	writeFileT(t, cut, b[:len(b)-100])
	if r := runIn(t, nil, "validate", cut); r.code != exitError || !strings.Contains(r.stderr, cut) {
		t.Errorf("validate of a cut file: %d %s %q", r.code, r.stderr, r.stdout)
	}
}

// TestFlagsReachFrontDoor: --max-record-size reaches the front door's
// readers for every format (a budget below the first record stops it,
// naming the flag), and without it the same records read.
func TestFlagsReachFrontDoor(t *testing.T) {
	for _, in := range []string{
		filepath.Join(interopDir, "email", "email.deflate.crc32.trv"),
		filepath.Join(v1Dir, "impala_all_types.trv"),
		filepath.Join("..", "..", "testdata", "clmn", "sample.clmn"),
	} {
		r := runIn(t, nil, "tojson", "--max-record-size", "16", in)
		if r.code != exitError || r.stdout != "" || !strings.Contains(r.stderr, in+": record 0") || !strings.Contains(r.stderr, "--max-record-size") {
			t.Errorf("%s: %d %q %s", in, r.code, r.stdout, r.stderr)
		}
		if r := runIn(t, nil, "tojson", "--max-record-size", "1MiB", in); r.code != 0 || r.stdout == "" {
			t.Errorf("%s with room: %d %s", in, r.code, r.stderr)
		}
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
