package objstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/stores/storetest/s3server"
)

// Reading every record of an object from an S3-protocol server fetches
// each byte once at most, as the root package's
// TestWholeReadFetchesTheFileOnce checks over HTTP: the header fetched
// when the data set is opened is not fetched again when its records are
// read, and no read-ahead window fetches what another holds. The server
// sends at most the file's size and 1% and 4 KiB more, the same figure on
// every run, and the reader's report says what the server sent, in as
// many requests.
func TestWholeReadFetchesTheObjectOnce(t *testing.T) {
	name, b := fetchFile(t)
	size := int64(len(b))
	slack := size/100 + 4<<10
	ctx := context.Background()
	local, err := trevni.Open(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := readAll(t, local, nil)
	s3 := s3server.Start(t, "bkt")
	s3.Put(t, "bkt", "large.trv", b)
	// quiet waits until the server's count of bytes sent has not changed
	// for 100ms: it counts a response's last bytes after writing them.
	quiet := func() {
		for {
			n := s3.Sent.Load()
			time.Sleep(100 * time.Millisecond)
			if s3.Sent.Load() == n {
				return
			}
		}
	}
	var first int64
	for run := range 3 {
		s3.Reset()
		ds, err := trevni.Open(ctx, "s3://bkt/large.trv", fastRetries)
		if err != nil {
			t.Fatal(err)
		}
		quiet()
		opened, openReqs := s3.Sent.Load(), s3.Requests.Load()
		s3.Reset()
		got, fetched := readAllFetched(t, ds, nil)
		ds.Close()
		quiet()
		read, reqs := s3.Sent.Load(), s3.Requests.Load()
		sent := opened + read
		t.Logf("run %d: %d bytes of %d sent in %d requests (the open %d bytes in %d); the report says %d bytes in %d requests", run, sent, size, openReqs+reqs, opened, openReqs, fetched.Bytes, fetched.Requests)
		if !sameRecords(got, want) {
			t.Fatalf("%d records, %d from the file", len(got), len(want))
		}
		if sent > size+slack {
			t.Errorf("the server sent %d bytes for a file of %d (at most %d more)", sent, size, slack)
		}
		if sent < size*9/10 {
			t.Errorf("the server sent %d bytes of %d: not the whole file", sent, size)
		}
		if fetched.Bytes != sent || fetched.Requests != openReqs+reqs {
			t.Errorf("the report says %+v, the server sent %d bytes in %d requests", fetched, sent, openReqs+reqs)
		}
		if run == 0 {
			first = sent
		} else if sent != first {
			t.Errorf("run %d fetched %d bytes, run 0 %d", run, sent, first)
		}
	}
}
