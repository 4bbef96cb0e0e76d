package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trevni-go/trevni/stores/storetest/s3server"
)

// Commands reading every record of a remote file (tojson, on one worker
// and several, toavro, and the same with --report) fetch each byte of it once at most, over HTTP and
// from an S3-protocol server: the server sends the file's size and at most
// 1% and 4 KiB more, whatever the run, and the report's figures are the
// server's, its requests and its bytes (for count --where and head too).
func TestCommandsWholeReadFetchTheFileOnce(t *testing.T) {
	dir := t.TempDir()
	trv := fetchFile(t, dir)
	b := readFile(t, trv)
	size := int64(len(b))
	hs := serveDir(t, dir, 0)
	s3 := s3server.Start(t, "bkt")
	s3.Put(t, "bkt", "wide.trv", b)
	fetched := regexp.MustCompile(`fetched (\d+) bytes from storage in (\d+) requests?`)
	for _, srv := range []struct {
		name           string
		url            string
		sent, requests *atomic.Int64
		reset          func()
	}{
		{"HTTP", hs.URL + "/wide.trv", &hs.Sent, &hs.Requests, hs.Reset},
		{"S3", "s3://bkt/wide.trv", &s3.Sent, &s3.Requests, s3.Reset},
	} {
		want := map[string]string{}
		for _, args := range [][]string{
			{"tojson", srv.url},
			{"tojson", "--report", srv.url},
			{"tojson", "--workers", "4", srv.url},
			{"tojson", "--workers", "1", srv.url},
			{"toavro", srv.url, filepath.Join(t.TempDir(), "out.avro")},
			// Not whole reads: their reports only are checked.
			{"count", "--report", "--where", "a > 0", srv.url},
			{"head", "--report", "-n", "3", srv.url},
		} {
			whole := args[0] != "count" && args[0] != "head"
			srv.reset()
			r := runIn(t, nil, args...)
			if r.code != 0 {
				t.Fatalf("%s %v: %+v", srv.name, args, r)
			}
			settleCount(srv.sent)
			sent, reqs := srv.sent.Load(), srv.requests.Load()
			t.Logf("%s %v: %d bytes of %d sent in %d requests", srv.name, args, sent, size, reqs)
			if whole && (sent < size*9/10 || sent > size+size/100+4<<10) {
				t.Errorf("%s %v: the server sent %d bytes for a file of %d", srv.name, args, sent, size)
			}
			if args[0] == "tojson" {
				if w, ok := want[args[0]]; ok && w != r.stdout {
					t.Errorf("%s %v: the output differs from the run without --report", srv.name, args)
				}
				want[args[0]] = r.stdout
			}
			var rb, rr int64
			for _, m := range fetched.FindAllStringSubmatch(r.stderr, -1) {
				n, _ := strconv.ParseInt(m[1], 10, 64)
				k, _ := strconv.ParseInt(m[2], 10, 64)
				rb, rr = rb+n, rr+k
			}
			if slices.Contains(args, "--report") && (rb != sent || rr != reqs) {
				t.Errorf("%s %v: the report says %d bytes in %d requests, the server sent %d in %d:\n%s", srv.name, args, rb, rr, sent, reqs, r.stderr)
			}
		}
	}
}

// settleCount waits until n has not changed for 100ms: a server counts a
// response's last bytes after writing them, which may be after the client
// has read them.
func settleCount(n *atomic.Int64) {
	for {
		k := n.Load()
		time.Sleep(100 * time.Millisecond)
		if n.Load() == k {
			return
		}
	}
}
