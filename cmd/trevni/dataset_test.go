package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/internal/testing/rangeserver"
)

// emailParts copies two of Java's files of the email vector, of different
// codecs, into a directory as part-0.trv and part-1.trv, and returns the
// directory, the parts and Java's records for the two, in order.
func emailParts(t *testing.T) (dir string, parts []string, want []string) {
	t.Helper()
	dir = t.TempDir()
	parts = []string{
		copyFile(t, filepath.Join(interopDir, "email", "email.deflate.crc32.trv"), dir, "part-0.trv"),
		copyFile(t, filepath.Join(interopDir, "email", "email.snappy.crc32.trv"), dir, "part-1.trv"),
	}
	one := readLines(t, filepath.Join(interopDir, "email", "expected.jsonl"))
	return dir, parts, append(slices.Clone(one), one...)
}

func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func TestDatasetToJSON(t *testing.T) {
	dir, parts, want := emailParts(t)
	for _, args := range [][]string{
		{"tojson", parts[0], parts[1]},
		{"tojson", dir},
		{"tojson", filepath.Join(dir, "part-*.trv")},
		{"tojson", filepath.Join(dir, "part-[0]*"), parts[1]},
	} {
		r := runIn(t, nil, args...)
		if r.code != 0 || !slices.Equal(lines(r.stdout), want) {
			t.Errorf("%q: status %d, %d records, want %d; stderr %s", args, r.code, len(lines(r.stdout)), len(want), r.stderr)
		}
	}
	// --offset and --limit span the parts: ranges within a part, across
	// the boundary, and past the end.
	n := len(want) / 2
	for _, c := range [][2]int{{0, 5}, {n - 3, 7}, {n, 4}, {n + 10, 1000}, {2 * n, 5}, {5, 0}, {n - 1, -1}} {
		r := runIn(t, nil, "tojson", "--offset", strconv.Itoa(c[0]), "--limit", strconv.Itoa(c[1]), dir)
		end := len(want)
		if c[1] >= 0 {
			end = min(end, c[0]+c[1])
		}
		exp := want[min(c[0], len(want)):end]
		if got := lines(r.stdout); r.code != 0 || !slices.Equal(got, exp) {
			t.Errorf("offset %d limit %d: status %d, %d records, want %d; %s", c[0], c[1], r.code, len(got), len(exp), r.stderr)
		}
	}
	// The output file named last, after several inputs.
	out := filepath.Join(t.TempDir(), "all.jsonl")
	if r := runIn(t, nil, "tojson", parts[0], parts[1], out); r.code != 0 || !slices.Equal(readLines(t, out), want) {
		t.Fatalf("tojson to a file: %+v", r)
	}
}

func TestDatasetOtherCommands(t *testing.T) {
	dir, parts, want := emailParts(t)
	out := t.TempDir()
	// toavro joins the parts into one container, read back through fromavro.
	avro := filepath.Join(out, "all.avro")
	trv := filepath.Join(out, "all.trv")
	if r := runIn(t, nil, "toavro", "--quiet", dir, avro); r.code != 0 {
		t.Fatalf("toavro: %+v", r)
	}
	if r := runIn(t, nil, "fromavro", "--quiet", avro, trv); r.code != 0 {
		t.Fatalf("fromavro: %+v", r)
	}
	if r := runIn(t, nil, "tojson", trv); !slices.Equal(lines(r.stdout), want) {
		t.Fatalf("toavro of the parts: %d records, want %d", len(lines(r.stdout)), len(want))
	}
	// dump: the rows of each part in order.
	d0, d1 := runIn(t, nil, "dump", parts[0]), runIn(t, nil, "dump", parts[1])
	if r := runIn(t, nil, "dump", parts[0], parts[1]); r.code != 0 || r.stdout != d0.stdout+d1.stdout || d0.stdout == "" {
		t.Fatalf("dump: %+v", r)
	}
	// meta: one document per file, in order.
	m0, m1 := runIn(t, nil, "meta", parts[0]), runIn(t, nil, "meta", parts[1])
	if r := runIn(t, nil, "meta", dir); r.code != 0 || r.stdout != m0.stdout+m1.stdout {
		t.Fatalf("meta: %+v", r)
	}
	// validate: one line per file; one bad file fails the run and is named.
	r := runIn(t, nil, "validate", dir)
	if got := lines(r.stdout); r.code != 0 || len(got) != 2 || !strings.HasPrefix(got[0], parts[0]+": ok") || !strings.HasPrefix(got[1], parts[1]+": ok") {
		t.Fatalf("validate: %+v", r)
	}
	bad := copyFile(t, parts[1], dir, "part-2.trv")
	b := readFile(t, bad)
	writeFileT(t, bad, b[:len(b)-100])
	r = runIn(t, nil, "validate", dir)
	if r.code != 1 || len(lines(r.stdout)) != 2 || !strings.Contains(r.stderr, bad) || !strings.Contains(r.stderr, "1 of 3 files failed") {
		t.Fatalf("validate with a bad part: %+v", r)
	}
}

// twoSchemas writes two files of 50 random records each, of different
// schemas (one.trv: a long a and a string b; two.trv: an int c and a long
// a), and a reader schema both resolve to (a, and d defaulting to 7).
func twoSchemas(t *testing.T) (string, string, string) {
	t.Helper()
	dir := t.TempDir()
	s1 := filepath.Join(dir, "s1.avsc")
	s2 := filepath.Join(dir, "s2.avsc")
	rs := filepath.Join(dir, "reader.avsc")
	writeFileT(t, s1, []byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"b","type":"string"}]}`))
	writeFileT(t, s2, []byte(`{"type":"record","name":"R","fields":[{"name":"c","type":"int"},{"name":"a","type":"long"}]}`))
	writeFileT(t, rs, []byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"d","type":"int","default":7}]}`))
	f1, f2 := filepath.Join(dir, "one.trv"), filepath.Join(dir, "two.trv")
	for _, c := range [][2]string{{s1, f1}, {s2, f2}} {
		if r := runIn(t, nil, "random", "--quiet", c[0], "50", c[1]); r.code != 0 {
			t.Fatalf("random: %+v", r)
		}
	}
	return f1, f2, rs
}

func TestDatasetSchemas(t *testing.T) {
	f1, f2, rs := twoSchemas(t)
	r := runIn(t, nil, "tojson", f1, f2)
	if r.code != 1 || !strings.Contains(r.stderr, f1) || !strings.Contains(r.stderr, f2) || !strings.Contains(r.stderr, "different schemas") || r.stdout != "" {
		t.Fatalf("different schemas: %+v", r)
	}
	// Through a reader schema both resolve to: each part as read alone
	// through it.
	r1, r2 := runIn(t, nil, "tojson", "--schema", rs, f1), runIn(t, nil, "tojson", "--schema", rs, f2)
	r = runIn(t, nil, "tojson", "--schema", rs, f1, f2)
	if r.code != 0 || r.stdout != r1.stdout+r2.stdout || len(lines(r.stdout)) != 100 || !strings.Contains(r.stdout, `"d": 7`) && !strings.Contains(r.stdout, `"d":7`) {
		t.Fatalf("through --schema: %+v", r)
	}
	// A reader schema one part does not resolve to names it.
	writeFileT(t, rs, []byte(`{"type":"record","name":"R","fields":[{"name":"b","type":"string"}]}`))
	if r = runIn(t, nil, "tojson", "--schema", rs, f1, f2); r.code != 1 || !strings.Contains(r.stderr, f2) {
		t.Fatalf("unresolvable: %+v", r)
	}
	if r = runIn(t, nil, "tojson", filepath.Join(filepath.Dir(f1), "nothing-*.trv")); r.code != 1 || !strings.Contains(r.stderr, "no file matches") {
		t.Fatalf("empty glob: %+v", r)
	}
}

func TestConcatCommand(t *testing.T) {
	dir, parts, want := emailParts(t)
	out := filepath.Join(t.TempDir(), "all.trv")
	if r := runIn(t, nil, "concat", "--quiet", filepath.Join(dir, "*.trv"), out); r.code != 0 {
		t.Fatalf("concat: %+v", r)
	}
	if r := runIn(t, nil, "tojson", out); !slices.Equal(lines(r.stdout), want) {
		t.Fatalf("concat: %d records, want %d", len(lines(r.stdout)), len(want))
	}
	if r := runIn(t, nil, "validate", out); r.code != 0 {
		t.Fatalf("validate: %+v", r)
	}
	// Files of other columns: an error naming both, and no output.
	other := filepath.Join(interopDir, "maps", "maps.null.none.trv")
	out2 := filepath.Join(filepath.Dir(out), "bad.trv")
	r := runIn(t, nil, "concat", parts[0], other, out2)
	if r.code != 1 || !strings.Contains(r.stderr, parts[0]) || !strings.Contains(r.stderr, other) {
		t.Fatalf("different columns: %+v", r)
	}
	if names := dirNames(t, filepath.Dir(out)); !slices.Equal(names, []string{"all.trv"}) {
		t.Fatalf("files left: %q", names)
	}
}

// TestConcatJavaZeroCRC: concat of Java's null-codec file, whose CRC-32s
// are all zero, gives a file whose checksums are right (validate --strict
// finds none wrong) holding the parts' records.
func TestConcatJavaZeroCRC(t *testing.T) {
	dir := filepath.Join(interopDir, "email")
	java := filepath.Join(dir, "email.null.crc32.trv")
	if r := runIn(t, nil, "validate", "--strict", java); r.code == 0 {
		t.Fatalf("validate --strict accepts Java's zero CRC-32s: %+v", r)
	}
	want := readLines(t, filepath.Join(dir, "expected.jsonl"))
	out := filepath.Join(t.TempDir(), "all.trv")
	if r := runIn(t, nil, "concat", "--quiet", java, filepath.Join(dir, "email.snappy.crc32.trv"), out); r.code != 0 {
		t.Fatalf("concat: %+v", r)
	}
	if r := runIn(t, nil, "validate", "--strict", out); r.code != 0 {
		t.Fatalf("validate --strict: %+v", r)
	}
	if r := runIn(t, nil, "tojson", out); !slices.Equal(lines(r.stdout), append(slices.Clone(want), want...)) {
		t.Fatalf("concat: %d records, want %d", len(lines(r.stdout)), 2*len(want))
	}
}

// serveDir serves the files of dir over loopback (internal/testing/rangeserver);
// after failAfter range requests (when > 0) answers stop half-way.
func serveDir(t *testing.T, dir string, failAfter int64) *rangeserver.Server {
	return rangeserver.Dir(t, dir, &rangeserver.Options{FailAfter: failAfter})
}

func TestDatasetURLs(t *testing.T) {
	_, parts, want := emailParts(t)
	dir := filepath.Dir(parts[0])
	s := serveDir(t, dir, 0)
	u0, u1 := s.URL+"/part-0.trv", s.URL+"/part-1.trv"
	r := runIn(t, nil, "tojson", u0, parts[1])
	if r.code != 0 || !slices.Equal(lines(r.stdout), want) {
		t.Fatalf("tojson of a URL and a file: %+v", r)
	}
	out := filepath.Join(t.TempDir(), "all.trv")
	if r := runIn(t, nil, "concat", "--quiet", u0, u1, out); r.code != 0 {
		t.Fatalf("concat of URLs: %+v", r)
	}
	if r := runIn(t, nil, "tojson", out); !slices.Equal(lines(r.stdout), want) {
		t.Fatalf("concat of URLs: %d records", len(lines(r.stdout)))
	}
}

// bigFile writes a file of random records over several megabytes into dir.
func bigFile(t *testing.T, dir string) string {
	t.Helper()
	avsc := filepath.Join(dir, "big.avsc")
	writeFileT(t, avsc, []byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"b","type":"string"},{"name":"c","type":"double"}]}`))
	trv := filepath.Join(dir, "big.trv")
	if r := runIn(t, nil, "random", "--quiet", "--codec", "null", avsc, "200000", trv); r.code != 0 {
		t.Fatalf("random: %+v", r)
	}
	os.Remove(avsc)
	return trv
}

// TestDatasetURLCoalesced reads a file of several megabytes by URL: the
// same records as the local file, in a few requests rather than one per
// block.
func TestDatasetURLCoalesced(t *testing.T) {
	dir := t.TempDir()
	trv := bigFile(t, dir)
	s := serveDir(t, dir, 0)
	local := runIn(t, nil, "tojson", trv)
	r := runIn(t, nil, "tojson", s.URL+"/big.trv")
	if r.code != 0 || r.stdout != local.stdout || local.stdout == "" {
		t.Fatalf("tojson of a URL: status %d, stderr %s", r.code, r.stderr)
	}
	meta := runIn(t, nil, "meta", "--blocks", trv)
	blocks := strings.Count(meta.stdout, `"rows"`) - 1 // one for the file
	t.Logf("%d bytes, %d blocks: %d requests", len(readFile(t, trv)), blocks, s.Requests.Load())
	// The front door reads the header when it opens the data set, and
	// again (with the block tables, in windows) when it reads the
	// records: a dozen requests at most, not one per block.
	if s.Requests.Load() > 12 || blocks < 50 {
		t.Fatalf("%d requests for %d blocks", s.Requests.Load(), blocks)
	}
}

// TestDatasetURLFailsMidRead: a server that cuts its answers short once
// the header is read is a clear error naming the URL, and neither the
// output nor a temporary file is left behind.
func TestDatasetURLFailsMidRead(t *testing.T) {
	dir := t.TempDir()
	trv := bigFile(t, dir)
	s := serveDir(t, dir, 1) // the header's range request, then a cut one
	u := s.URL + "/big.trv"
	outDir := t.TempDir()
	for _, args := range [][]string{
		{"tojson", u, filepath.Join(outDir, "out.jsonl")},
		{"toavro", u, filepath.Join(outDir, "out.avro")},
		{"concat", trv, u, filepath.Join(outDir, "out.trv")},
	} {
		s.Reset()
		r := runIn(t, nil, args...)
		t.Logf("%q: %s", args[0], r.stderr)
		if r.code != 1 || !strings.Contains(r.stderr, u) || !strings.Contains(r.stderr, "unexpected EOF") {
			t.Errorf("%q: %+v", args, r)
		}
		if names := dirNames(t, outDir); len(names) != 0 {
			t.Errorf("%q: left %q", args, names)
		}
	}
}

// emailIDs returns the id of each record line.
func emailIDs(t *testing.T, recs []string) []int64 {
	t.Helper()
	ids := make([]int64, len(recs))
	for i, l := range recs {
		var rec struct{ ID int64 }
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		ids[i] = rec.ID
	}
	return ids
}

// TestDatasetCountHead: count and head take data sets (files, globs,
// directories, URLs); count sums the parts (their headers, or their
// matches), head's first N records run on from one part into the next,
// with and without a filter, as the records of the set filtered here.
func TestDatasetCountHead(t *testing.T) {
	dir, parts, want := emailParts(t)
	s := serveDir(t, dir, 0)
	urls := []string{s.URL + "/part-0.trv", s.URL + "/part-1.trv"}
	sets := [][]string{
		{parts[0], parts[1]},
		{dir},
		{filepath.Join(dir, "part-*.trv")},
		urls,
		{urls[0], parts[1]},
	}
	n := len(want) / 2
	// A filter that part 0 matches fewer times than head prints: the
	// 5 largest ids of a part.
	ids := emailIDs(t, want)
	sorted := slices.Clone(ids[:n])
	slices.Sort(sorted)
	threshold := sorted[n-6]
	expr := fmt.Sprintf("id > %d", threshold)
	var match []string
	for i, id := range ids {
		if id > threshold {
			match = append(match, want[i])
		}
	}
	if len(match) != 10 {
		t.Fatalf("%d records match %s, want 5 a part", len(match), expr)
	}
	for _, set := range sets {
		args := func(a ...string) []string { return append(a, set...) }
		if r := runIn(t, nil, args("count")...); r.code != 0 || strings.TrimSpace(r.stdout) != strconv.Itoa(len(want)) {
			t.Errorf("count %q: %+v, want %d", set, r, len(want))
		}
		if r := runIn(t, nil, args("count", "--where", expr)...); r.code != 0 || strings.TrimSpace(r.stdout) != strconv.Itoa(len(match)) {
			t.Errorf("count --where %q: %+v, want %d", set, r, len(match))
		}
		for _, k := range []int{3, n, n + 4, 2*n + 5} {
			r := runIn(t, nil, args("head", "--plain=false", "-n", strconv.Itoa(k))...)
			if got := lines(r.stdout); r.code != 0 || !slices.Equal(got, want[:min(k, len(want))]) {
				t.Errorf("head -n %d %q: status %d, %d records; %s", k, set, r.code, len(got), r.stderr)
			}
		}
		// Eight matches: five from part 0, three from part 1.
		r := runIn(t, nil, args("head", "--plain=false", "-n", "8", "--where", expr)...)
		if got := lines(r.stdout); r.code != 0 || !slices.Equal(got, match[:8]) {
			t.Errorf("head --where %q: status %d, %d records; %s", set, r.code, len(got), r.stderr)
		}
	}
	// --report: each part's report, then their sum.
	r := runIn(t, nil, "count", "--where", expr, "--report", dir)
	if r.code != 0 || strings.Count(r.stderr, " rows scanned, 5 rows matched") != 2 ||
		!strings.Contains(r.stderr, "all 2 parts read: ") || !strings.Contains(r.stderr, "10 rows matched") {
		t.Errorf("count --report: %+v", r)
	}
	r = runIn(t, nil, "count", "--report", dir)
	if r.code != 0 || !strings.Contains(r.stderr, "2 parts: 0 rows scanned (the headers say 600 rows)") {
		t.Errorf("count --report without --where: %+v", r)
	}
	r = runIn(t, nil, "dump", "--where", expr, "--report", dir)
	if r.code != 0 || len(lines(r.stdout)) != 10 || strings.Count(r.stderr, " rows scanned, 5 rows matched") != 2 ||
		!strings.Contains(r.stderr, "all 2 parts read: ") || !strings.Contains(r.stderr, "10 rows matched") {
		t.Errorf("dump --report: %+v", r)
	}
}

// TestDatasetCountHeaderOnly: count without --where reads each part's
// header and nothing else: over URLs, a few kilobytes of parts of several
// megabytes, in two requests a part (HEAD and the header).
func TestDatasetCountHeaderOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := bigFile(t, dir)
	copyFile(t, big, dir, "big2.trv")
	copyFile(t, big, dir, "big3.trv")
	size := int64(len(readFile(t, big)))
	s := serveDir(t, dir, 0)
	var urls []string
	for _, name := range []string{"big.trv", "big2.trv", "big3.trv"} {
		urls = append(urls, s.URL+"/"+name)
	}
	r := runIn(t, nil, append([]string{"count"}, urls...)...)
	t.Logf("3 parts of %d bytes: %d requests, %d bytes sent", size, s.Requests.Load(), s.Sent.Load())
	if r.code != 0 || strings.TrimSpace(r.stdout) != "600000" {
		t.Fatalf("count: %+v", r)
	}
	if s.Requests.Load() != 6 || s.Sent.Load() > 3*8<<10 {
		t.Fatalf("count read %d bytes in %d requests", s.Sent.Load(), s.Requests.Load())
	}
	// A header made large by the statistics of many small blocks is
	// fetched in windows that double: a few requests, not one per 8 KiB.
	avsc := filepath.Join(t.TempDir(), "s.avsc")
	writeFileT(t, avsc, []byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"b","type":"string"}]}`))
	if r := runIn(t, nil, "random", "--quiet", "--codec", "null", "--block-size", "512", avsc, "300000", filepath.Join(dir, "small-blocks.trv")); r.code != 0 {
		t.Fatalf("random: %+v", r)
	}
	m := runIn(t, nil, "meta", filepath.Join(dir, "small-blocks.trv"))
	var meta struct{ Columns []struct{ Start int64 } }
	if err := json.Unmarshal([]byte(m.stdout), &meta); err != nil || len(meta.Columns) == 0 {
		t.Fatalf("meta: %v: %s", err, m.stdout)
	}
	header := meta.Columns[0].Start
	s.Reset()
	if r := runIn(t, nil, "count", s.URL+"/small-blocks.trv"); r.code != 0 || strings.TrimSpace(r.stdout) != "300000" {
		t.Fatalf("count: %+v", r)
	}
	t.Logf("a header of %d bytes: %d requests, %d bytes sent", header, s.Requests.Load(), s.Sent.Load())
	if header < 64<<10 || s.Requests.Load() > 8 || s.Sent.Load() > 2*header+8<<10 {
		t.Fatalf("a header of %d bytes: %d requests, %d bytes", header, s.Requests.Load(), s.Sent.Load())
	}
	// With a filter, the sum of the parts' matches, as counted locally.
	s.Reset()
	local := runIn(t, nil, "count", "--where", "a > 0", big)
	one, _ := strconv.Atoi(strings.TrimSpace(local.stdout))
	r = runIn(t, nil, append([]string{"count", "--where", "a > 0"}, urls...)...)
	if r.code != 0 || one == 0 || strings.TrimSpace(r.stdout) != strconv.Itoa(3*one) {
		t.Fatalf("count --where: %+v, want 3 × %d", r, one)
	}
	t.Logf("count --where: %d requests, %d bytes sent", s.Requests.Load(), s.Sent.Load())
}

// TestDatasetCountHeadSchemas: parts of different schemas are counted and
// read together only through a reader schema they resolve to; otherwise
// the error names the two files.
func TestDatasetCountHeadSchemas(t *testing.T) {
	f1, f2, rs := twoSchemas(t)
	for _, args := range [][]string{{"count", f1, f2}, {"count", "--where", "a > 0", f1, f2}, {"head", f1, f2}} {
		r := runIn(t, nil, args...)
		if r.code != 1 || !strings.Contains(r.stderr, f1) || !strings.Contains(r.stderr, f2) || !strings.Contains(r.stderr, "different schemas") || r.stdout != "" {
			t.Errorf("%q: %+v", args, r)
		}
	}
	if r := runIn(t, nil, "count", "--schema", rs, f1, f2); r.code != 0 || strings.TrimSpace(r.stdout) != "100" {
		t.Errorf("count --schema: %+v", r)
	}
	all := runIn(t, nil, "tojson", "--schema", rs, f1, f2)
	want := lines(all.stdout)
	if all.code != 0 || len(want) != 100 {
		t.Fatalf("tojson --schema: %+v", all)
	}
	r := runIn(t, nil, "head", "--plain=false", "-n", "60", "--schema", rs, f1, f2)
	if got := lines(r.stdout); r.code != 0 || !slices.Equal(got, want[:60]) {
		t.Errorf("head --schema: status %d, %d records; %s", r.code, len(got), r.stderr)
	}
	// count --where through the reader schema: the filter is on each
	// file's own fields, the counts summed.
	c1, c2 := runIn(t, nil, "count", "--where", "a > 0", f1), runIn(t, nil, "count", "--where", "a > 0", f2)
	n1, _ := strconv.Atoi(strings.TrimSpace(c1.stdout))
	n2, _ := strconv.Atoi(strings.TrimSpace(c2.stdout))
	if r := runIn(t, nil, "count", "--schema", rs, "--where", "a > 0", f1, f2); r.code != 0 || strings.TrimSpace(r.stdout) != strconv.Itoa(n1+n2) || n1+n2 == 0 {
		t.Errorf("count --schema --where: %+v, want %d + %d", r, n1, n2)
	}
	// A reader schema one part does not resolve to names it.
	writeFileT(t, rs, []byte(`{"type":"record","name":"R","fields":[{"name":"b","type":"string"}]}`))
	for _, cmd := range []string{"count", "head"} {
		if r := runIn(t, nil, cmd, "--schema", rs, f1, f2); r.code != 1 || !strings.Contains(r.stderr, f2) {
			t.Errorf("%s with an unresolvable --schema: %+v", cmd, r)
		}
	}
}
