package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// whereFile converts the medium vector (30,000 records) with small blocks,
// so that filters have blocks to skip.
func whereFile(t *testing.T) string {
	t.Helper()
	trv := filepath.Join(t.TempDir(), "m.trv")
	if r := runIn(t, nil, "fromavro", "--quiet", "--block-size", "4096", filepath.Join(interopDir, "medium", "input.avro"), trv); r.code != 0 {
		t.Fatalf("fromavro: %+v", r)
	}
	return trv
}

func jsonLines(t *testing.T, text string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		d := json.NewDecoder(strings.NewReader(sc.Text()))
		d.UseNumber()
		var m map[string]any
		if err := d.Decode(&m); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

// TestWhereFieldsCountHead checks --where, --fields, --report, count and
// head against the unfiltered output filtered here.
func TestWhereFieldsCountHead(t *testing.T) {
	trv := whereFile(t)
	all := runIn(t, nil, "tojson", trv)
	if all.code != 0 {
		t.Fatalf("tojson: %+v", all)
	}
	recs := jsonLines(t, all.stdout)
	var want []string
	for _, m := range recs {
		small, _ := m["small"].(json.Number).Int64()
		if small > 50 && m["opt"] != nil {
			want = append(want, m["id"].(json.Number).String())
		}
	}
	if len(want) == 0 || len(want) == len(recs) {
		t.Fatalf("the filter keeps %d of %d records", len(want), len(recs))
	}
	expr := "small > 50 AND opt IS NOT NULL"
	r := runIn(t, nil, "tojson", "--where", expr, "--fields", "id,pts.x", "--report", trv)
	if r.code != 0 {
		t.Fatalf("tojson --where: %+v", r)
	}
	got := jsonLines(t, r.stdout)
	if len(got) != len(want) {
		t.Fatalf("--where kept %d records, want %d", len(got), len(want))
	}
	for i, m := range got {
		if len(m) != 2 || m["id"].(json.Number).String() != want[i] {
			t.Fatalf("record %d: %v, want id %s and pts only", i, m, want[i])
		}
	}
	if !strings.Contains(r.stderr, strconv.Itoa(len(recs))+" rows scanned") && !strings.Contains(r.stderr, "rows scanned") ||
		!strings.Contains(r.stderr, "column small") || !strings.Contains(r.stderr, "bytes (") {
		t.Fatalf("report: %s", r.stderr)
	}
	// --limit counts the records written.
	if r := runIn(t, nil, "tojson", "--where", expr, "--limit", "3", trv); len(jsonLines(t, r.stdout)) != 3 {
		t.Fatalf("--limit 3: %+v", r)
	}
	// count, with and without a filter.
	if r := runIn(t, nil, "count", "--where", expr, trv); r.code != 0 || strings.TrimSpace(r.stdout) != strconv.Itoa(len(want)) {
		t.Fatalf("count --where: %+v, want %d", r, len(want))
	}
	if r := runIn(t, nil, "count", trv); r.code != 0 || strings.TrimSpace(r.stdout) != strconv.Itoa(len(recs)) {
		t.Fatalf("count: %+v", r)
	}
	// toavro writes the projected, filtered records.
	avro := filepath.Join(t.TempDir(), "o.avro")
	if r := runIn(t, nil, "toavro", "--where", expr, "--fields", "id", trv, avro); r.code != 0 || !strings.Contains(r.stderr, strconv.Itoa(len(want))[:1]) {
		t.Fatalf("toavro: %+v", r)
	}
	back := filepath.Join(t.TempDir(), "b.trv")
	if r := runIn(t, nil, "fromavro", "--quiet", avro, back); r.code != 0 {
		t.Fatalf("fromavro of toavro's output: %+v", r)
	}
	if r := runIn(t, nil, "count", back); strings.TrimSpace(r.stdout) != strconv.Itoa(len(want)) {
		t.Fatalf("toavro wrote %s records, want %d", r.stdout, len(want))
	}
	// head is the first records of tojson.
	r = runIn(t, nil, "head", "--plain=false", "-n", "3", trv)
	lines := strings.SplitAfter(all.stdout, "\n")
	if r.code != 0 || r.stdout != strings.Join(lines[:3], "") {
		t.Fatalf("head -n 3: %+v", r)
	}
}

// TestWhereBadExpression checks that a bad expression is a usage error
// that points at the character.
func TestWhereBadExpression(t *testing.T) {
	trv := whereFile(t)
	for _, args := range [][]string{
		{"tojson", "--where", "smal > 3", trv},
		{"count", "--where", "small > 'x'", trv},
		{"toavro", "--where", "small >", trv, filepath.Join(t.TempDir(), "o.avro")},
	} {
		r := runIn(t, nil, args...)
		expr := args[2]
		if r.code != 2 || !strings.Contains(r.stderr, "--where: ") || !strings.Contains(r.stderr, "\n  "+expr+"\n") || !strings.Contains(r.stderr, "^\n") {
			t.Errorf("%v: %+v", args, r)
		}
	}
}

// TestStatsFlag checks that --stats=false leaves the statistics out.
func TestStatsFlag(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(interopDir, "primitives", "input.avro")
	for _, c := range []struct {
		flag string
		want bool
	}{{"--stats=true", true}, {"--stats=false", false}} {
		out := filepath.Join(dir, c.flag+".trv")
		if r := runIn(t, nil, "fromavro", "--quiet", c.flag, in, out); r.code != 0 {
			t.Fatalf("%s: %+v", c.flag, r)
		}
		r := runIn(t, nil, "meta", out)
		if got := strings.Contains(r.stdout, "stats.blocks"); got != c.want {
			t.Errorf("%s: statistics in the metadata %v, want %v", c.flag, got, c.want)
		}
	}
}

// TestHeadFieldsWhere: head --fields --where prints the first N matching
// records, projected, as tojson --limit does with the same selection, and
// each of them satisfies the filter by the file's own records.
func TestHeadFieldsWhere(t *testing.T) {
	file := filepath.Join(interopDir, "email", "email.deflate.crc32.trv")
	head := runIn(t, nil, "head", "--plain=false", "-n", "3", "--fields", "id,from", "--where", "id > 1000000000", file)
	tj := runIn(t, nil, "tojson", "--limit", "3", "--fields", "id,from", "--where", "id > 1000000000", file)
	if head.code != 0 || tj.code != 0 || head.stdout != tj.stdout {
		t.Fatalf("head: %+v\ntojson: %+v", head, tj)
	}
	lines := splitLines(t, strings.NewReader(head.stdout))
	if len(lines) != 3 {
		t.Fatalf("%d lines: %s", len(lines), head.stdout)
	}
	all := readLines(t, filepath.Join(interopDir, "email", "expected.jsonl"))
	var matching []map[string]any
	for _, l := range all {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		if id := rec["id"].(float64); id > 1000000000 {
			matching = append(matching, map[string]any{"id": rec["id"], "from": rec["from"]})
		}
	}
	for i, l := range lines {
		var got map[string]any
		if err := json.Unmarshal([]byte(l), &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, matching[i]) {
			t.Errorf("record %d: %v, want %v", i, got, matching[i])
		}
	}
}

// TestWhereReaderSchema filters on the fields of a reader schema: one it
// adds with a default (every record has it), one renamed by an alias, one
// promoted from int to double, each against the writer's records filtered
// here; statistics still skip blocks for the renamed field, whose values
// are the file's.
func TestWhereReaderSchema(t *testing.T) {
	trv := whereFile(t)
	rsc := filepath.Join(t.TempDir(), "r.avsc")
	writeFileT(t, rsc, []byte(`{"type":"record","name":"Large","namespace":"vec","fields":[
	 {"name":"key","aliases":["id"],"type":"long"},
	 {"name":"small","type":"double"},
	 {"name":"opt","type":["null","long"]},
	 {"name":"channel","type":"string","default":"web"}]}`))
	all := runIn(t, nil, "tojson", trv)
	if all.code != 0 {
		t.Fatalf("tojson: %+v", all)
	}
	recs := jsonLines(t, all.stdout)
	num := func(m map[string]any, k string) int64 {
		n, _ := m[k].(json.Number).Int64()
		return n
	}
	count := func(keep func(m map[string]any) bool) string {
		n := 0
		for _, m := range recs {
			if keep(m) {
				n++
			}
		}
		return strconv.Itoa(n) + "\n"
	}
	for _, c := range []struct {
		where string
		keep  func(m map[string]any) bool
	}{
		{"channel = 'web'", func(map[string]any) bool { return true }},
		{"channel != 'web'", func(map[string]any) bool { return false }},
		{"channel STARTS WITH 'w' AND small > 50.5", func(m map[string]any) bool { return num(m, "small") > 50 }},
		{"key < 0 AND small <= 20", func(m map[string]any) bool { return num(m, "id") < 0 && num(m, "small") <= 20 }},
		{"opt > 1000000000", func(m map[string]any) bool {
			o, ok := m["opt"].(map[string]any)
			return ok && num(o, "int") > 1000000000
		}},
	} {
		got := runIn(t, nil, "count", "--schema", rsc, "--where", c.where, trv)
		if want := count(c.keep); got.code != 0 || got.stdout != want {
			t.Errorf("count --where %q: %+v, want %s", c.where, got, want)
		}
	}
	head := runIn(t, nil, "head", "-n", "2", "--schema", rsc, "--where", "channel = 'web' AND key > 0", trv)
	lines := jsonLines(t, head.stdout)
	if head.code != 0 || len(lines) != 2 || lines[0]["channel"] != "web" || num(lines[0], "key") <= 0 {
		t.Fatalf("head: %+v", head)
	}
	// The renamed field's statistics are the file's id's: a bound beyond
	// every value skips every block of the column.
	rep := runIn(t, nil, "count", "--report", "--schema", rsc, "--where", "key > 9223372036854775806", trv)
	if rep.code != 0 || !strings.Contains(rep.stderr, "0 rows scanned") {
		t.Errorf("count --report: %+v", rep)
	}
	// A name neither schema has: the reader schema's hint.
	bad := runIn(t, nil, "count", "--schema", rsc, "--where", "chanel = 'web'", trv)
	if bad.code != 2 || !strings.Contains(bad.stderr, "did you mean channel?") {
		t.Errorf("count --where chanel: %+v", bad)
	}
}

// TestFieldsWithReaderSchema: --fields with --schema selects fields of the
// reader schema (one it adds included), and the records are those of the
// reader schema projected on them, in Avro JSON and in Avro files alike;
// the filter still names any field of the reader schema.
func TestFieldsWithReaderSchema(t *testing.T) {
	trv := filepath.Join(interopDir, "email", "email.null.none.trv")
	rsc := filepath.Join(interopDir, "email", "projection.avsc")
	full := runIn(t, nil, "tojson", "--schema", rsc, "--where", "id > 0", trv)
	sel := runIn(t, nil, "tojson", "--schema", rsc, "--fields", "extra,id", "--where", "id > 0", trv)
	if full.code != 0 || sel.code != 0 {
		t.Fatalf("tojson: %+v\n%+v", full, sel)
	}
	var want strings.Builder
	for _, m := range jsonLines(t, full.stdout) {
		fmt.Fprintf(&want, `{"id":%s,"extra":%q}`+"\n", m["id"], m["extra"])
	}
	if want.Len() == 0 || sel.stdout != want.String() {
		t.Fatalf("tojson --fields extra,id:\n%s\nwant\n%s", sel.stdout, want.String())
	}
	avro := filepath.Join(t.TempDir(), "sel.avro")
	if r := runIn(t, nil, "toavro", "--quiet", "--schema", rsc, "--fields", "id,extra", "--where", "extra = 'n/a' AND id > 0", trv, avro); r.code != 0 {
		t.Fatalf("toavro: %+v", r)
	}
	back := runIn(t, nil, "fromavro", "--quiet", avro, avro+".trv")
	if back.code != 0 {
		t.Fatalf("fromavro: %+v", back)
	}
	if r := runIn(t, nil, "tojson", avro+".trv"); r.stdout != want.String() {
		t.Errorf("toavro --fields, read back:\n%s\nwant\n%s", r.stdout, want.String())
	}
}
