package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// --report says what was fetched from storage beside what was decoded; over
// HTTP that is the bytes the server sent, in as many requests, and a
// command that needs a block or two of one column fetches a small share
// of the file.
func TestReportFetched(t *testing.T) {
	dir := t.TempDir()
	trv := bigFile(t, dir)
	s := serveDir(t, dir, 0)
	u := s.URL + "/" + filepath.Base(trv)
	fetched := regexp.MustCompile(`fetched (\d+) bytes from storage in (\d+) requests?`)
	for _, args := range [][]string{
		{"tojson", "--report", "--limit", "3", "--fields", "a", u},
		{"count", "--report", "--where", "a > 0", u},
		{"head", "--report", "-n", "2", "--fields", "b", u},
	} {
		settle(s)
		s.Reset()
		r := runIn(t, nil, args...)
		settle(s)
		if r.code != 0 {
			t.Fatalf("%v: %+v", args, r)
		}
		m := fetched.FindStringSubmatch(r.stderr)
		if m == nil {
			t.Fatalf("%v: no fetched line in %q", args, r.stderr)
		}
		bytes, _ := strconv.ParseInt(m[1], 10, 64)
		requests, _ := strconv.ParseInt(m[2], 10, 64)
		sent := s.Sent.Load()
		if bytes <= 0 || bytes != sent || requests != s.Requests.Load() {
			t.Errorf("%v: the report says %d bytes fetched in %d requests, the server sent %d in %d", args, bytes, requests, sent, s.Requests.Load())
		}
		t.Logf("%v: report %s bytes in %s requests; server %d bytes in %d requests", args, m[1], m[2], sent, s.Requests.Load())
	}
}
