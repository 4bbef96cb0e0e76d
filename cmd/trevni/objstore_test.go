package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/remote"
	"github.com/trevni-go/trevni/stores/storetest/s3server"
)

// From an S3-protocol server the commands fetch what they read, as over
// HTTP (TestCommandsFetchOnlyWhatTheyRead, the same bounds), and --report
// says what the server sent.
func TestObjectStoreCommandsFetch(t *testing.T) {
	dir := t.TempDir()
	trv := fetchFile(t, dir)
	b := readFile(t, trv)
	size := int64(len(b))
	header := headerBytes(t, trv)
	idAll, _ := columnBytes(t, trv, 0)
	_, nameFirst := columnBytes(t, trv, 1)
	s := s3server.Start(t, "bkt")
	s.Put(t, "bkt", "data/wide.trv", b)
	url := "s3://bkt/data/wide.trv"
	const window, tableWindow = 64 << 10, 16 << 10
	headerOnly := max(2*header, remote.DefaultHeaderWindow)
	fetched := regexp.MustCompile(`fetched (\d+) bytes from storage in (\d+) requests?`)
	local := map[string]string{}
	for _, c := range []struct {
		args []string
		most int64 // the bytes the server may send
	}{
		{[]string{"meta", url}, headerOnly + 8*tableWindow},
		{[]string{"schema", url}, headerOnly},
		{[]string{"count", url}, headerOnly},
		{[]string{"count", "--report", "--where", "id < 1000", url}, headerOnly + idAll/8 + window},
		{[]string{"head", "--report", "-n", "3", "--fields", "name", url}, headerOnly + nameFirst + window},
		{[]string{"tojson", "--report", "--fields", "id", "--where", "id > 190000", url}, headerOnly + idAll/5 + window},
	} {
		settleCount(&s.Sent)
		s.Reset()
		r := runIn(t, nil, c.args...)
		settleCount(&s.Sent)
		sent, reqs := s.Sent.Load(), s.Requests.Load()
		t.Logf("%v: %d bytes of %d sent in %d requests", c.args, sent, size, reqs)
		if r.code != 0 {
			t.Fatalf("%v: %+v", c.args, r)
		}
		if sent > c.most || sent > size/4 {
			t.Errorf("%v: the server sent %d bytes, more than %d", c.args, sent, min(c.most, size/4))
		}
		// The output is the local file's.
		args := slices.Clone(c.args)
		args[len(args)-1] = trv
		l := runIn(t, nil, args...)
		if c.args[0] != "meta" && l.stdout != r.stdout {
			t.Errorf("%v: the output differs from the local file's", c.args)
		}
		local[c.args[0]] = l.stdout
		if !slices.Contains(c.args, "--report") {
			continue
		}
		// The report's figures: every fetch of the run (the data set's
		// opening included) is the server's.
		var rb, rr int64
		for _, m := range fetched.FindAllStringSubmatch(r.stderr, -1) {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			k, _ := strconv.ParseInt(m[2], 10, 64)
			rb, rr = rb+n, rr+k
		}
		if rb == 0 || rb != sent || rr != reqs {
			t.Errorf("%v: the report says %d bytes in %d requests, the server sent %d in %d:\n%s", c.args, rb, rr, sent, reqs, r.stderr)
		}
	}
}

// Every writing command writes to s3:// as to a file: the object appears
// only when the run succeeds, an existing one is replaced only with
// --force, and a failed run leaves no object and no upload in progress.
func TestObjectStoreCommandsWrite(t *testing.T) {
	s := s3server.Start(t, "bkt")
	email := filepath.Join(interopDir, "email")
	want := readLines(t, filepath.Join(email, "expected.jsonl"))
	tojson := func(name string) []string {
		t.Helper()
		r := runIn(t, nil, "tojson", name)
		if r.code != 0 {
			t.Fatalf("tojson %s: %+v", name, r)
		}
		return lines(r.stdout)
	}
	ok := func(args ...string) result {
		t.Helper()
		r := runIn(t, nil, args...)
		if r.code != 0 {
			t.Fatalf("%q: %+v", args, r)
		}
		return r
	}
	ok("fromavro", "--quiet", filepath.Join(email, "input.avro"), "s3://bkt/out/a.trv")
	if got := tojson("s3://bkt/out/a.trv"); !slices.Equal(got, want) {
		t.Fatalf("fromavro to s3: %d records, want %d", len(got), len(want))
	}
	ok("fromjson", "--quiet", "--schema", filepath.Join(email, "schema.avsc"), filepath.Join(email, "input.jsonl"), "s3://bkt/out/b.trv")
	if got := tojson("s3://bkt/out/b.trv"); !slices.Equal(got, want) {
		t.Fatalf("fromjson to s3: %d records, want %d", len(got), len(want))
	}
	// Inputs from the store too.
	s.Put(t, "bkt", "in/input.jsonl", readFile(t, filepath.Join(email, "input.jsonl")))
	ok("fromjson", "--quiet", "--schema", filepath.Join(email, "schema.avsc"), "s3://bkt/in/input.jsonl", "s3://bkt/out/c.trv")
	if got := tojson("s3://bkt/out/c.trv"); !slices.Equal(got, want) {
		t.Fatalf("fromjson from s3 to s3: %d records, want %d", len(got), len(want))
	}
	ok("concat", "--quiet", "s3://bkt/out/*.trv", "s3://bkt/all/abc.trv")
	all := slices.Concat(want, want, want)
	if got := tojson("s3://bkt/all/abc.trv"); !slices.Equal(got, all) {
		t.Fatalf("concat of a glob to s3: %d records, want %d", len(got), len(all))
	}
	ok("toavro", "--quiet", "s3://bkt/all/", "s3://bkt/all/abc.avro")
	ok("fromavro", "--quiet", "s3://bkt/all/abc.avro", "s3://bkt/all/again.trv")
	if got := tojson("s3://bkt/all/again.trv"); !slices.Equal(got, all) {
		t.Fatalf("toavro, fromavro through s3: %d records, want %d", len(got), len(all))
	}
	ok("tojson", "s3://bkt/out/a.trv", "s3://bkt/all/a.json")
	if got, _ := s.Get(t, "bkt", "all/a.json"); !slices.Equal(lines(string(got)), want) {
		t.Fatalf("tojson to s3: %d lines, want %d", len(lines(string(got))), len(want))
	}

	// No replacing without --force.
	before, _ := s.Get(t, "bkt", "out/a.trv")
	r := runIn(t, nil, "fromjson", "--quiet", "--schema", filepath.Join(email, "schema.avsc"), filepath.Join(email, "input.jsonl"), "s3://bkt/out/a.trv")
	if r.code == 0 || !strings.Contains(r.stderr, "--force") {
		t.Fatalf("fromjson over an existing object: %+v", r)
	}
	if after, _ := s.Get(t, "bkt", "out/a.trv"); !bytes.Equal(before, after) {
		t.Fatal("a refused run changed the object")
	}
	ok("fromjson", "--quiet", "--force", "--codec", "snappy", "--schema", filepath.Join(email, "schema.avsc"), filepath.Join(email, "input.jsonl"), "s3://bkt/out/a.trv")
	if after, _ := s.Get(t, "bkt", "out/a.trv"); bytes.Equal(before, after) {
		t.Fatal("--force did not replace the object")
	}
	if got := tojson("s3://bkt/out/a.trv"); !slices.Equal(got, want) {
		t.Fatalf("after --force: %d records, want %d", len(got), len(want))
	}

	// Failed runs leave nothing: bad JSON after good records, a truncated
	// Avro file, an input that is missing.
	good := readFile(t, filepath.Join(email, "input.jsonl"))
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	writeFileT(t, bad, append(bytes.Repeat(good, 50), "{not json\n"...))
	avro := readFile(t, filepath.Join(email, "input.avro"))
	short := filepath.Join(t.TempDir(), "short.avro")
	writeFileT(t, short, avro[:len(avro)-7])
	for _, args := range [][]string{
		{"fromjson", "--schema", filepath.Join(email, "schema.avsc"), bad, "s3://bkt/fail/x.trv"},
		{"fromavro", short, "s3://bkt/fail/x.trv"},
		{"concat", "s3://bkt/out/a.trv", "s3://bkt/missing.trv", "s3://bkt/fail/x.trv"},
		{"toavro", "s3://bkt/nothing/*.trv", "s3://bkt/fail/x.avro"},
	} {
		r := runIn(t, nil, args...)
		if r.code == 0 {
			t.Errorf("%q succeeded", args)
		}
		t.Logf("%q: %s", args, strings.TrimSpace(r.stderr))
		if keys := s.Keys(t, "bkt"); slices.ContainsFunc(keys, func(k string) bool { return strings.HasPrefix(k, "fail/") }) {
			t.Errorf("%q failed (%s) and left %q", args, strings.TrimSpace(r.stderr), keys)
		}
	}
	if n := s.Uploads(t, "bkt"); n != 0 {
		t.Errorf("%d uploads left in progress", n)
	}
}
