package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// projectDump keeps of a decoded dump row (or array element) the keys in
// keep, recursing into arrays of elements.
func projectDump(v any, keep map[string]bool) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if keep[k] || k == "value$" {
				out[k] = projectDump(e, keep)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = projectDump(e, keep)
		}
		return out
	}
	return v
}

// TestDumpFields checks dump --fields, by column names and by Avro field
// paths, against Java's dump of the email vector with the other columns
// taken out.
func TestDumpFields(t *testing.T) {
	file := filepath.Join(interopDir, "email", "email.deflate.crc32.trv")
	java := readLines(t, filepath.Join(interopDir, "email", "dump.jsonl"))
	for _, c := range []struct {
		fields []string // as given, in forms that select the same columns
		keep   string   // the columns kept
	}{
		{[]string{"id,received[]#sigs[]#algo", "id,received.sigs.algo"}, "id received[] received[]#sigs[] received[]#sigs[]#algo"},
		{[]string{"received[]", "received"}, "received[] received[]#date received[]#host received[]#sigs[] received[]#sigs[]#algo received[]#sigs[]#value"},
		{[]string{"to[],content", "to,content", "content,to"}, "to[] content"},
		{[]string{"received[]#host,from", "from,received.host"}, "from received[] received[]#host"},
	} {
		keep := map[string]bool{}
		for _, k := range strings.Fields(c.keep) {
			keep[k] = true
		}
		for _, f := range c.fields {
			r := runIn(t, nil, "dump", "--fields", f, file)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("--fields %s: %+v", f, r)
			}
			got := splitLines(t, strings.NewReader(r.stdout))
			if len(got) != len(java) {
				t.Fatalf("--fields %s: %d rows, Java %d", f, len(got), len(java))
			}
			for i := range java {
				want := projectDump(decodeJSON(t, java[i]), keep)
				if d := jsonDiff(decodeJSON(t, got[i]), want, false, "$"); d != "" {
					t.Fatalf("--fields %s: row %d: %s\n got %s", f, i, d, got[i])
				}
			}
		}
	}
}

// TestDumpWhere checks dump --where (with --fields and --report) on the
// medium vector written with small blocks, against the full dump filtered
// here by the same condition.
func TestDumpWhere(t *testing.T) {
	t.Parallel()
	trv := whereFile(t)
	all := runIn(t, nil, "dump", trv)
	if all.code != 0 {
		t.Fatalf("dump: %+v", all)
	}
	rows := jsonLines(t, all.stdout)
	for _, c := range []struct {
		expr, fields string
		keep         func(m map[string]any) bool
		skips        bool // the statistics must let blocks be skipped
	}{
		{"small > 50 AND opt IS NOT NULL", "", func(m map[string]any) bool {
			small, _ := m["small"].(json.Number).Int64()
			return small > 50 && len(m["opt/int"].([]any)) > 0
		}, false},
		{"name = 'zzz'", "id,pts[]#y", func(m map[string]any) bool { return m["name"] == "zzz" }, true},
		{"pts.x > 1000 OR score < 1", "pts.y,score", func(m map[string]any) bool {
			if s, _ := m["score"].(json.Number).Float64(); s < 1 {
				return true
			}
			for _, p := range m["pts[]"].([]any) {
				if x, _ := p.(map[string]any)["pts[]#x"].(json.Number).Float64(); x > 1000 {
					return true
				}
			}
			return false
		}, false},
	} {
		args := []string{"dump", "--where", c.expr, "--report"}
		if c.fields != "" {
			args = append(args, "--fields", c.fields)
		}
		r := runIn(t, nil, append(args, trv)...)
		if r.code != 0 {
			t.Fatalf("%s: %+v", c.expr, r)
		}
		// The expected rows: the full dump's, filtered, projected as a
		// selection of the same columns prints them.
		var want []string
		var sel []string
		if c.fields != "" {
			sel = append(sel, c.fields)
		}
		proj := runIn(t, nil, append([]string{"dump"}, append(flagsFor(sel), trv)...)...)
		projected := splitLines(t, strings.NewReader(proj.stdout))
		for i, m := range rows {
			if c.keep(m) {
				want = append(want, projected[i])
			}
		}
		got := splitLines(t, strings.NewReader(r.stdout))
		if len(got) != len(want) || len(want) == 0 && c.expr != "name = 'zzz'" {
			t.Fatalf("%s: %d rows, want %d", c.expr, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: row %d:\n got %s\nwant %s", c.expr, i, got[i], want[i])
			}
		}
		if !strings.Contains(r.stderr, "rows scanned, "+pluralCount(int64(len(want)), "row")+" matched") {
			t.Fatalf("%s: report %s", c.expr, r.stderr)
		}
		if c.skips && !strings.Contains(r.stderr, "0 of ") {
			t.Fatalf("%s: no column was skipped entirely: %s", c.expr, r.stderr)
		}
	}
}

func flagsFor(fields []string) []string {
	if len(fields) == 0 {
		return nil
	}
	return []string{"--fields", fields[0]}
}

// TestDumpSelectErrors: unknown names, --where on a file without an Avro
// schema, and bad expressions are usage errors.
func TestDumpSelectErrors(t *testing.T) {
	email := filepath.Join(interopDir, "email", "email.null.none.trv")
	raw := filepath.Join(interopDir, "raw_core", "raw_core.trv")
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--fields", "nope", email}, `"nope" is neither a column nor a field`},
		{[]string{"--fields", "id,", email}, "empty name"},
		{[]string{"--fields", "a.b", raw}, "stores no Avro schema, so names are column names"},
		{[]string{"--where", "x = 1", raw}, "stores no Avro schema"},
		{[]string{"--where", "id >", email}, "expected a literal"},
		{[]string{"--where", "nope = 1", email}, "no field"},
		{[]string{"--where", "x = 1", filepath.Join(v1Dir, "impala_all_types.trv")}, "--where does not apply to version-1 files"},
	} {
		r := runIn(t, nil, append([]string{"dump"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.msg) {
			t.Errorf("dump %v: status %d, stderr %s", c.args, r.code, r.stderr)
		}
	}
}

// TestUnknownFieldsDeterministic checks that of several unknown --fields
// names the one reported is the first in the order given, on every run
// (the reader checks them in map order).
func TestUnknownFieldsDeterministic(t *testing.T) {
	file := filepath.Join(interopDir, "email", "email.deflate.crc32.trv")
	for range 20 {
		r := runIn(t, nil, "tojson", "--fields", "id,zz1,zz2,zz3,zz4,zz5", file)
		if r.code == exitOK || !strings.Contains(r.stderr, ": zz1: ") || strings.Contains(strings.ReplaceAll(r.stderr, "zz1", ""), "zz") {
			t.Fatalf("status %d, stderr %q; want zz1 reported", r.code, r.stderr)
		}
	}
}

// TestDumpLimit checks dump --limit against the full dump: the first N
// rows, across the parts of a data set, and with --where the first N
// rows that match.
func TestDumpLimit(t *testing.T) {
	file := filepath.Join(interopDir, "email", "email.deflate.crc32.trv")
	all := runIn(t, nil, "dump", file)
	lines := strings.SplitAfter(all.stdout, "\n")
	lines = lines[:len(lines)-1]
	for _, n := range []int{0, 1, 7, len(lines), len(lines) + 5} {
		r := runIn(t, nil, "dump", "--limit", strconv.Itoa(n), file)
		if want := strings.Join(lines[:min(n, len(lines))], ""); r.code != exitOK || r.stdout != want {
			t.Errorf("--limit %d: status %d, %d bytes, want %d", n, r.code, len(r.stdout), len(want))
		}
	}
	// Two parts: the limit runs on into the second.
	r := runIn(t, nil, "dump", "--limit", strconv.Itoa(len(lines)+3), file, file)
	if want := strings.Join(append(slices.Clone(lines), lines[:3]...), ""); r.code != exitOK || r.stdout != want {
		t.Errorf("--limit across two parts: status %d, %d bytes, want %d", r.code, len(r.stdout), len(want))
	}
	// With --where, the first N matches.
	where := "id > 100"
	matched := runIn(t, nil, "dump", "--where", where, file).stdout
	mlines := strings.SplitAfter(matched, "\n")
	r = runIn(t, nil, "dump", "--where", where, "--limit", "4", file)
	if len(mlines) < 5 || r.code != exitOK || r.stdout != strings.Join(mlines[:4], "") {
		t.Errorf("--where --limit 4: status %d, got %q", r.code, r.stdout)
	}
}
