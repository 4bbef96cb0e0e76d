package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestReportRowsProven checks that --report says how many rows the
// blocks' statistics proved to match (their filter columns unread): all
// of them for a filter every block's range satisfies, some for one that
// splits the file's ids, none for one that statistics never settle (a
// LIKE); the counts of matches are those of the records written.
func TestReportRowsProven(t *testing.T) {
	dir := t.TempDir()
	const n = 20000
	var js strings.Builder
	for i := range n {
		fmt.Fprintf(&js, "{\"id\": %d, \"name\": \"n%d\"}\n", i, i)
	}
	in := filepath.Join(dir, "in.json")
	writeFileT(t, in, []byte(js.String()))
	schema := filepath.Join(dir, "r.avsc")
	writeFileT(t, schema, []byte(`{"type":"record","name":"R","fields":[{"name":"id","type":"long"},{"name":"name","type":"string"}]}`))
	trv := filepath.Join(dir, "r.trv")
	if r := runIn(t, nil, "fromjson", "--quiet", "--plain", "--schema", schema, "--block-size", "4096", in, trv); r.code != 0 {
		t.Fatalf("fromjson: %+v", r)
	}
	line := regexp.MustCompile(`: ([0-9,]+) rows scanned, ([0-9,]+) rows? matched(?: \(([0-9,]+) rows? proven by block statistics, their filter columns unread\))?\n`)
	num := func(s string) int64 {
		if s == "" {
			return 0
		}
		n, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, c := range []struct {
		where string
		want  int64
		// proven: "all", "some" or "none" of the matches
		proven string
	}{
		{"id >= 0", n, "all"},
		{"id >= 12345", n - 12345, "some"},
		{"name LIKE 'n%'", n, "none"},
	} {
		r := runIn(t, nil, "count", "--where", c.where, "--report", trv)
		if r.code != 0 {
			t.Fatalf("count --where %q: %+v", c.where, r)
		}
		m := line.FindStringSubmatch(r.stderr)
		if m == nil {
			t.Fatalf("count --where %q --report: no report line in\n%s", c.where, r.stderr)
		}
		matched, proven := num(m[2]), num(m[3])
		if r.stdout != fmt.Sprintf("%d\n", c.want) || matched != c.want {
			t.Errorf("--where %q: printed %q, reported %d matched; want %d", c.where, r.stdout, matched, c.want)
		}
		switch {
		case c.proven == "all" && (proven != c.want || num(m[1]) != c.want),
			c.proven == "some" && (proven == 0 || proven >= c.want),
			c.proven == "none" && proven != 0:
			t.Errorf("--where %q: %d of %d matches proven, want %s of them:\n%s", c.where, proven, c.want, c.proven, r.stderr)
		}
	}
}
