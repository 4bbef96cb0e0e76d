package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/trevni-go/trevni/internal/s3server"
	"github.com/trevni-go/trevni/remote"
	"github.com/trevni-go/trevni/remote/objstore"
)

func data(n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

var fast = &objstore.Options{Backoff: time.Millisecond, Stall: 300 * time.Millisecond}

func TestParse(t *testing.T) {
	t.Setenv("AWS_ENDPOINT_URL", "")
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	for _, c := range []struct{ in, bucket, key string }{
		{"s3://b/k.trv", "s3://b", "k.trv"},
		{"s3://b/dir/k.trv?region=eu-west-1", "s3://b?region=eu-west-1", "dir/k.trv"},
		{"s3://b/k?endpoint=http://127.0.0.1:9000", "s3://b?endpoint=http%3A%2F%2F127.0.0.1%3A9000&use_path_style=true", "k"},
		{"gs://bucket/logs/a.trv", "gs://bucket", "logs/a.trv"},
		{"azblob://container/x/y", "azblob://container", "x/y"},
	} {
		l, err := objstore.Parse(c.in)
		if err != nil || l.Bucket != c.bucket || l.Key != c.key {
			t.Errorf("Parse(%q) = %+v, %v; want %s, %s", c.in, l, err, c.bucket, c.key)
		}
	}
	for _, bad := range []string{"s3:///k", "http://b/k", "file.trv", "gs:/b/k"} {
		if _, err := objstore.Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
	if !objstore.IsURL("gs://b/k") || objstore.IsURL("https://b/k") {
		t.Error("IsURL")
	}
}

// TestReadAt reads random ranges of an object and compares them with its
// bytes, counting requests and bytes on both sides.
func TestReadAt(t *testing.T) {
	s := s3server.Start(t, "bkt")
	want := data(300_000)
	s.Put(t, "bkt", "dir/obj", want)
	ctx := context.Background()
	o, err := objstore.Open(ctx, "s3://bkt/dir/obj", fast)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if o.Size() != int64(len(want)) {
		t.Fatalf("size %d, want %d", o.Size(), len(want))
	}
	r := rand.New(rand.NewPCG(3, 4))
	var asked int64
	for range 50 {
		off := r.Int64N(int64(len(want)))
		n := r.IntN(40_000) + 1
		p := make([]byte, n)
		k, err := o.ReadAt(p, off)
		end := min(off+int64(n), int64(len(want)))
		if k != int(end-off) || !bytes.Equal(p[:k], want[off:end]) {
			t.Fatalf("ReadAt(%d, %d) = %d, %v: wrong bytes", n, off, k, err)
		}
		if (end-off < int64(n)) != (err == io.EOF) || err != nil && err != io.EOF {
			t.Fatalf("ReadAt(%d, %d): error %v", n, off, err)
		}
		asked += end - off
	}
	if _, err := o.ReadAt(make([]byte, 1), int64(len(want))); err != io.EOF {
		t.Errorf("read at the end: %v", err)
	}
	if o.BytesFetched() != asked || o.Requests() != 51 {
		t.Errorf("fetched %d bytes in %d requests, want %d in 51", o.BytesFetched(), o.Requests(), asked)
	}
	if s.Sent.Load() != asked {
		t.Errorf("the server sent %d bytes, the reads asked for %d", s.Sent.Load(), asked)
	}
}

// TestFaults: a dropped connection, a 500 and a short body are retried
// (going on from the last byte received) and the bytes are right; more
// faults in a row than retries fail the read; never short data.
func TestFaults(t *testing.T) {
	s := s3server.Start(t, "bkt")
	want := data(200_000)
	s.Put(t, "bkt", "obj", want)
	ctx := context.Background()
	o, err := objstore.Open(ctx, "s3://bkt/obj", fast)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	for _, faults := range [][]s3server.Fault{
		{s3server.Drop},
		{s3server.Error500},
		{s3server.Short},
		{s3server.Error500, s3server.Drop, s3server.Short},
		{s3server.Stall},
	} {
		s.Inject(faults...)
		reqs := o.Requests()
		p := make([]byte, 100_000)
		n, err := o.ReadAt(p, 50_000)
		if err != nil || n != len(p) || !bytes.Equal(p, want[50_000:150_000]) {
			t.Fatalf("%v: ReadAt = %d, %v (bytes equal: %v)", faults, n, err, bytes.Equal(p, want[50_000:150_000]))
		}
		if got := o.Requests() - reqs; got != int64(len(faults)+1) {
			t.Errorf("%v: %d requests, want %d", faults, got, len(faults)+1)
		}
		if s.Pending() != 0 {
			t.Errorf("%v: %d faults left", faults, s.Pending())
		}
	}
	s.Inject(s3server.Error500, s3server.Error500, s3server.Error500, s3server.Error500, s3server.Error500)
	_, err = o.ReadAt(make([]byte, 10), 0)
	if err == nil {
		t.Fatal("five 500s in a row: no error")
	}
	t.Log(err)
	s.Inject(s3server.Short, s3server.Short, s3server.Short, s3server.Short, s3server.Short)
	p := make([]byte, 1000)
	n, err := o.ReadAt(p, 0)
	if err == nil || n == len(p) {
		t.Fatalf("five short bodies: %d bytes, %v", n, err)
	}
	if !bytes.Equal(p[:n], want[:n]) {
		t.Error("the bytes before the failure are wrong")
	}
}

// TestChanged: an object replaced (even by one of the same size) or
// deleted after it was opened fails the next read with ErrChanged.
func TestChanged(t *testing.T) {
	s := s3server.Start(t, "bkt")
	first := data(50_000)
	s.Put(t, "bkt", "obj", first)
	ctx := context.Background()
	o, err := objstore.Open(ctx, "s3://bkt/obj", fast)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if _, err := o.ReadAt(make([]byte, 100), 0); err != nil {
		t.Fatal(err)
	}
	second := slices.Clone(first)
	second[len(second)-1]++
	s.Put(t, "bkt", "obj", second)
	reqs := o.Requests()
	p := make([]byte, 100)
	_, err = o.ReadAt(p, 49_900)
	if !errors.Is(err, objstore.ErrChanged) {
		t.Fatalf("read of a replaced object: %v", err)
	}
	if o.Requests()-reqs != 1 {
		t.Errorf("a changed object was retried: %d requests", o.Requests()-reqs)
	}
	if _, err := s.Backend.DeleteObject("bkt", "obj"); err != nil {
		t.Fatal(err)
	}
	if _, err = o.ReadAt(p, 0); err == nil {
		t.Fatal("read of a deleted object succeeded")
	}
	if _, err := objstore.Open(ctx, "s3://bkt/obj", fast); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("open of a missing object: %v", err)
	}
}

// TestCoalesced: a Coalescer over an Object reads many small ranges in a
// few requests, as over HTTP.
func TestCoalesced(t *testing.T) {
	s := s3server.Start(t, "bkt")
	want := data(1 << 20)
	s.Put(t, "bkt", "obj", want)
	o, err := objstore.Open(context.Background(), "s3://bkt/obj", fast)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	c := remote.NewCoalescer(o, o.Size(), &remote.CoalescerOptions{Window: 256 << 10})
	p := make([]byte, 1000)
	for off := int64(0); off+1000 <= o.Size(); off += 1000 {
		if _, err := c.ReadAt(p, off); err != nil || !bytes.Equal(p, want[off:off+1000]) {
			t.Fatalf("at %d: %v", off, err)
		}
	}
	if o.Requests() != 1+4 {
		t.Errorf("%d requests, want 5", o.Requests())
	}
}

func TestList(t *testing.T) {
	s := s3server.Start(t, "bkt")
	for _, k := range []string{"logs/b.trv", "logs/a.trv", "logs/c.txt", "logs/sub/d.trv", "other/e.trv"} {
		s.Put(t, "bkt", k, []byte(k))
	}
	got, err := objstore.List(context.Background(), "s3://bkt/logs/*.trv")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"s3://bkt/logs/a.trv", "s3://bkt/logs/b.trv"}
	if !slices.Equal(got, want) {
		t.Errorf("List = %q, want %q", got, want)
	}
	got, err = objstore.List(context.Background(), "s3://bkt/*/?.trv")
	if err != nil || len(got) != 3 {
		t.Errorf("List of */?.trv = %q, %v", got, err)
	}
	if got, err := objstore.List(context.Background(), "s3://bkt/none/*"); err != nil || len(got) != 0 {
		t.Errorf("List of an empty prefix = %q, %v", got, err)
	}
}

// TestWriter: an upload appears only on Commit, large ones in parts; Abort
// leaves nothing; an existing object is replaced only when told.
func TestWriter(t *testing.T) {
	s := s3server.Start(t, "bkt")
	ctx := context.Background()
	body := data(20 << 20) // more than two parts of the uploader's 8 MiB
	w, err := objstore.Create(ctx, "s3://bkt/out.trv", false)
	if err != nil {
		t.Fatal(err)
	}
	for off := 0; off < len(body); off += 1 << 20 {
		if _, err := w.Write(body[off : off+1<<20]); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := s.Get(t, "bkt", "out.trv"); ok {
		t.Fatal("the object appeared before Commit")
	}
	if n := s.Uploads(t, "bkt"); n != 1 {
		t.Errorf("%d multipart uploads in progress while 20 MiB are written, want 1", n)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.Get(t, "bkt", "out.trv"); !ok || !bytes.Equal(got, body) {
		t.Fatalf("after Commit: exists %v, equal %v", ok, bytes.Equal(got, body))
	}

	// No replace: refused at Create.
	if _, err := objstore.Create(ctx, "s3://bkt/out.trv", false); !errors.Is(err, objstore.ErrExists) {
		t.Fatalf("Create over an existing object: %v", err)
	}
	// Replace.
	w, err = objstore.Create(ctx, "s3://bkt/out.trv", true)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("new"))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(t, "bkt", "out.trv"); string(got) != "new" {
		t.Fatalf("after a replacing Commit: %q", got)
	}

	// Abort, small and large.
	for _, n := range []int{10, 20 << 20} {
		w, err = objstore.Create(ctx, "s3://bkt/aborted.trv", false)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(body[:n])
		w.Abort()
		if _, ok := s.Get(t, "bkt", "aborted.trv"); ok {
			t.Fatalf("an aborted upload of %d bytes left an object", n)
		}
	}
	// A cancelled context aborts too.
	cctx, cancel := context.WithCancel(ctx)
	w, err = objstore.Create(cctx, "s3://bkt/cancelled.trv", false)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(body)
	cancel()
	if err := w.Commit(); err == nil {
		t.Fatal("Commit after the context ended succeeded")
	}
	if _, ok := s.Get(t, "bkt", "cancelled.trv"); ok {
		t.Fatal("a cancelled upload left an object")
	}

	// An object that appears while one is written is left untouched.
	w, err = objstore.Create(ctx, "s3://bkt/race.trv", false)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("mine"))
	s.Put(t, "bkt", "race.trv", []byte("theirs"))
	if err := w.Commit(); !errors.Is(err, objstore.ErrExists) {
		t.Fatalf("Commit over an object that appeared: %v", err)
	}
	if got, _ := s.Get(t, "bkt", "race.trv"); string(got) != "theirs" {
		t.Fatalf("the object that appeared was replaced: %q", got)
	}
	if n := s.Uploads(t, "bkt"); n != 0 {
		t.Errorf("%d multipart uploads left in progress", n)
	}
}

func TestMoveExistsRemove(t *testing.T) {
	s := s3server.Start(t, "bkt")
	ctx := context.Background()
	s.Put(t, "bkt", "a.tmp", []byte("a"))
	s.Put(t, "bkt", "b.tmp", []byte("b"))
	if err := objstore.Move(ctx, "s3://bkt/a.tmp", "s3://bkt/a", false); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.Get(t, "bkt", "a"); !ok || string(got) != "a" {
		t.Fatalf("moved: %q, %v", got, ok)
	}
	if ok, err := objstore.Exists(ctx, "s3://bkt/a.tmp"); ok || err != nil {
		t.Fatalf("the source is left: %v, %v", ok, err)
	}
	if err := objstore.Move(ctx, "s3://bkt/b.tmp", "s3://bkt/a", false); !errors.Is(err, objstore.ErrExists) {
		t.Fatalf("a move over an object: %v", err)
	}
	if got, _ := s.Get(t, "bkt", "a"); string(got) != "a" {
		t.Fatalf("a refused move replaced the object: %q", got)
	}
	if err := objstore.Move(ctx, "s3://bkt/b.tmp", "s3://bkt/a", true); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(t, "bkt", "a"); string(got) != "b" {
		t.Fatalf("a replacing move: %q", got)
	}
	if err := objstore.Remove(ctx, "s3://bkt/a"); err != nil {
		t.Fatal(err)
	}
	if err := objstore.Remove(ctx, "s3://bkt/a"); err != nil {
		t.Fatalf("removing a missing object: %v", err)
	}
	if keys := s.Keys(t, "bkt"); len(keys) != 0 {
		t.Fatalf("left %q", keys)
	}
	if err := objstore.Move(ctx, "s3://bkt/x", "s3://other/x", true); err == nil {
		t.Fatal("a move across buckets succeeded")
	}
}
