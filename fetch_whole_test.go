package trevni

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trevni-go/trevni/internal/testing/rangeserver"
)

// wholeReadSlack is what a read of every record may fetch beyond the
// file's size: 1% and 4 KiB.
func wholeReadSlack(size int64) int64 { return size/100 + 4<<10 }

// quiet waits until sent has not changed for 100ms: a server counts a
// response's last bytes after writing them, which may be after the client
// has read them.
func quiet(sent *atomic.Int64) {
	for {
		n := sent.Load()
		time.Sleep(100 * time.Millisecond)
		if sent.Load() == n {
			return
		}
	}
}

// Reading every record of a remote file over HTTP fetches each byte once at most: the header fetched when the data
// set is opened is not fetched again when its records are read, and no
// read-ahead window fetches what another holds. The server sends at most
// the file's size and a small slack, the same figure on every run, and
// the reader's report says what the server sent, in as many requests.
// (The same test from an S3-protocol server is in the stores module:
// stores/objstore's TestWholeReadFetchesTheObjectOnce.)
func TestWholeReadFetchesTheFileOnce(t *testing.T) {
	name, b := fetchFile(t)
	size := int64(len(b))
	ctx := context.Background()
	local, err := Open(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := readAll(t, local, nil)
	srv := rangeserver.Bytes(t, b, nil)
	for _, c := range []struct {
		name     string
		url      string
		opts     *OpenOptions
		sent     *atomic.Int64
		requests *atomic.Int64
		reset    func()
	}{
		{"HTTP", srv.URL + "/large.trv", nil, &srv.Sent, &srv.Requests, srv.Reset},
	} {
		var first int64
		for run := range 3 {
			c.reset()
			ds, err := Open(ctx, c.url, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			quiet(c.sent)
			opened, openReqs := c.sent.Load(), c.requests.Load()
			c.reset()
			got, fetched := readAllFetched(t, ds, nil)
			ds.Close()
			quiet(c.sent)
			read, reqs := c.sent.Load(), c.requests.Load()
			sent := opened + read
			t.Logf("%s, run %d: %d bytes of %d sent in %d requests (the open %d bytes in %d); the report says %d bytes in %d requests", c.name, run, sent, size, openReqs+reqs, opened, openReqs, fetched.Bytes, fetched.Requests)
			if !sameRecords(got, want) {
				t.Fatalf("%s: %d records, %d from the file", c.name, len(got), len(want))
			}
			if sent > size+wholeReadSlack(size) {
				t.Errorf("%s: the server sent %d bytes for a file of %d (at most %d more)", c.name, sent, size, wholeReadSlack(size))
			}
			// The records read cover every column's blocks: the file
			// less its header can not have been skipped.
			if sent < size*9/10 {
				t.Errorf("%s: the server sent %d bytes of %d: not the whole file", c.name, sent, size)
			}
			// The report counts what the read fetched, its own
			// open included, and what the data set's open fetched.
			if fetched.Bytes != sent || fetched.Requests != openReqs+reqs {
				t.Errorf("%s: the report says %+v, the server sent %d bytes in %d requests", c.name, fetched, sent, openReqs+reqs)
			}
			if run == 0 {
				first = sent
			} else if sent != first {
				t.Errorf("%s: run %d fetched %d bytes, run 0 %d", c.name, run, sent, first)
			}
		}
	}
}
