package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trevni-go/trevni/internal/gcsserver"
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

var fast = &objstore.Options{Backoff: time.Millisecond, Stall: 300 * time.Millisecond, Retries: 4}

// fault is a way a ranged read goes wrong, on either server.
type fault int

const (
	drop fault = iota + 1
	error500
	short
	stall
)

func (f fault) String() string { return [...]string{"", "drop", "500", "short", "stall"}[f] }

// server is a store's server in process (S3's or GCS's), as the tests use
// it: objects in one bucket, "bkt", named by URLs of the store's scheme.
type server struct {
	scheme  string
	sent    *atomic.Int64 // the body bytes of reads sent
	put     func(key string, data []byte)
	get     func(key string) ([]byte, bool)
	del     func(key string)
	keys    func() []string
	inject  func(faults ...fault)
	pending func() int
	// uploads returns how many uploads are in progress, where the
	// server tells (nil where it does not).
	uploads func() int
}

// url returns the URL of the object key of the bucket.
func (s *server) url(key string) string { return s.scheme + "://bkt/" + key }

// servers runs test against each store's server, started for it.
func servers(t *testing.T, test func(t *testing.T, s *server)) {
	t.Run("s3", func(t *testing.T) {
		s3 := s3server.Start(t, "bkt")
		test(t, &server{
			scheme:  "s3",
			sent:    &s3.Sent,
			put:     func(k string, b []byte) { s3.Put(t, "bkt", k, b) },
			get:     func(k string) ([]byte, bool) { return s3.Get(t, "bkt", k) },
			del:     func(k string) { s3.Backend.DeleteObject("bkt", k) },
			keys:    func() []string { return s3.Keys(t, "bkt") },
			inject:  func(fs ...fault) { s3.Inject(convert(s3faults, fs)...) },
			pending: s3.Pending,
			uploads: func() int { return s3.Uploads(t, "bkt") },
		})
	})
	t.Run("gs", func(t *testing.T) {
		gs := gcsserver.Start(t, "bkt")
		test(t, &server{
			scheme:  "gs",
			sent:    &gs.Sent,
			put:     func(k string, b []byte) { gs.Put(t, "bkt", k, b) },
			get:     func(k string) ([]byte, bool) { return gs.Get(t, "bkt", k) },
			del:     func(k string) { gs.Delete(t, "bkt", k) },
			keys:    func() []string { return gs.Keys(t, "bkt") },
			inject:  func(fs ...fault) { gs.Inject(convert(gsfaults, fs)...) },
			pending: gs.Pending,
		})
	})
}

// The servers' faults.
var (
	s3faults = map[fault]s3server.Fault{drop: s3server.Drop, error500: s3server.Error500, short: s3server.Short, stall: s3server.Stall}
	gsfaults = map[fault]gcsserver.Fault{drop: gcsserver.Drop, error500: gcsserver.Error500, short: gcsserver.Short, stall: gcsserver.Stall}
)

// convert maps the tests' faults to a server's.
func convert[F any](m map[fault]F, fs []fault) []F {
	out := make([]F, len(fs))
	for i, f := range fs {
		out[i] = m[f]
	}
	return out
}

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
	servers(t, func(t *testing.T, s *server) {
		want := data(300_000)
		s.put("dir/obj", want)
		ctx := context.Background()
		o, err := objstore.Open(ctx, s.url("dir/obj"), fast)
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		if o.Size() != int64(len(want)) {
			t.Fatalf("size %d, want %d", o.Size(), len(want))
		}
		if o.Version() == "" {
			t.Error("no version pinned")
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
		if s.sent.Load() != asked {
			t.Errorf("the server sent %d bytes, the reads asked for %d", s.sent.Load(), asked)
		}
	})
}

// TestFaults: a dropped connection, a 500 and a short body are retried
// (going on from the last byte received) and the bytes are right; more
// faults in a row than retries fail the read; never short data.
func TestFaults(t *testing.T) {
	servers(t, func(t *testing.T, s *server) {
		want := data(200_000)
		s.put("obj", want)
		ctx := context.Background()
		o, err := objstore.Open(ctx, s.url("obj"), fast)
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		for _, faults := range [][]fault{
			{drop},
			{error500},
			{short},
			{error500, drop, short},
			{stall},
		} {
			s.inject(faults...)
			reqs := o.Requests()
			p := make([]byte, 100_000)
			n, err := o.ReadAt(p, 50_000)
			if err != nil || n != len(p) || !bytes.Equal(p, want[50_000:150_000]) {
				t.Fatalf("%v: ReadAt = %d, %v (bytes equal: %v)", faults, n, err, bytes.Equal(p, want[50_000:150_000]))
			}
			if got := o.Requests() - reqs; got != int64(len(faults)+1) {
				t.Errorf("%v: %d requests, want %d", faults, got, len(faults)+1)
			}
			if s.pending() != 0 {
				t.Errorf("%v: %d faults left", faults, s.pending())
			}
		}
		s.inject(error500, error500, error500, error500, error500)
		_, err = o.ReadAt(make([]byte, 10), 0)
		if err == nil {
			t.Fatal("five 500s in a row: no error")
		}
		t.Log(err)
		s.inject(short, short, short, short, short)
		p := make([]byte, 1000)
		n, err := o.ReadAt(p, 0)
		if err == nil || n == len(p) {
			t.Fatalf("five short bodies: %d bytes, %v", n, err)
		}
		if !bytes.Equal(p[:n], want[:n]) {
			t.Error("the bytes before the failure are wrong")
		}
	})
}

// TestChanged: an object replaced (even by one of the same size) or
// deleted after it was opened fails the next read with ErrChanged.
func TestChanged(t *testing.T) {
	servers(t, func(t *testing.T, s *server) {
		first := data(50_000)
		s.put("obj", first)
		ctx := context.Background()
		o, err := objstore.Open(ctx, s.url("obj"), fast)
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		if _, err := o.ReadAt(make([]byte, 100), 0); err != nil {
			t.Fatal(err)
		}
		second := slices.Clone(first)
		second[len(second)-1]++
		s.put("obj", second)
		reqs := o.Requests()
		p := make([]byte, 100)
		_, err = o.ReadAt(p, 49_900)
		if !errors.Is(err, objstore.ErrChanged) {
			t.Fatalf("read of a replaced object: %v", err)
		}
		if o.Requests()-reqs != 1 {
			t.Errorf("a changed object was retried: %d requests", o.Requests()-reqs)
		}
		s.del("obj")
		if _, err = o.ReadAt(p, 0); err == nil {
			t.Fatal("read of a deleted object succeeded")
		}
		if _, err := objstore.Open(ctx, s.url("obj"), fast); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("open of a missing object: %v", err)
		}
	})
}

// TestCoalesced: a Coalescer over an Object reads many small ranges in a
// few requests, as over HTTP.
func TestCoalesced(t *testing.T) {
	servers(t, func(t *testing.T, s *server) {
		want := data(1 << 20)
		s.put("obj", want)
		o, err := objstore.Open(context.Background(), s.url("obj"), fast)
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
	})
}

func TestList(t *testing.T) {
	servers(t, func(t *testing.T, s *server) {
		for _, k := range []string{"logs/b.trv", "logs/a.trv", "logs/c.txt", "logs/sub/d.trv", "other/e.trv"} {
			s.put(k, []byte(k))
		}
		got, err := objstore.List(context.Background(), s.url("logs/*.trv"), nil)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{s.url("logs/a.trv"), s.url("logs/b.trv")}
		if !slices.Equal(got, want) {
			t.Errorf("List = %q, want %q", got, want)
		}
		got, err = objstore.List(context.Background(), s.url("*/?.trv"), nil)
		if err != nil || len(got) != 3 {
			t.Errorf("List of */?.trv = %q, %v", got, err)
		}
		if got, err := objstore.List(context.Background(), s.url("none/*"), nil); err != nil || len(got) != 0 {
			t.Errorf("List of an empty prefix = %q, %v", got, err)
		}
	})
}

// TestWriter: an upload appears only on Commit, large ones in parts (S3)
// or chunks (GCS); Abort leaves nothing; an existing object is replaced
// only when told.
func TestWriter(t *testing.T) {
	servers(t, func(t *testing.T, s *server) {
		ctx := context.Background()
		body := data(20 << 20) // more than two parts or chunks of 8 MiB
		w, err := objstore.Create(ctx, s.url("out.trv"), false, nil)
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off < len(body); off += 1 << 20 {
			if _, err := w.Write(body[off : off+1<<20]); err != nil {
				t.Fatal(err)
			}
		}
		if _, ok := s.get("out.trv"); ok {
			t.Fatal("the object appeared before Commit")
		}
		if s.uploads != nil {
			if n := s.uploads(); n != 1 {
				t.Errorf("%d multipart uploads in progress while 20 MiB are written, want 1", n)
			}
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		if got, ok := s.get("out.trv"); !ok || !bytes.Equal(got, body) {
			t.Fatalf("after Commit: exists %v, equal %v", ok, bytes.Equal(got, body))
		}

		// No replace: refused at Create.
		if _, err := objstore.Create(ctx, s.url("out.trv"), false, nil); !errors.Is(err, objstore.ErrExists) {
			t.Fatalf("Create over an existing object: %v", err)
		}
		// Replace.
		w, err = objstore.Create(ctx, s.url("out.trv"), true, nil)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("new"))
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.get("out.trv"); string(got) != "new" {
			t.Fatalf("after a replacing Commit: %q", got)
		}

		// Abort, small and large.
		for _, n := range []int{10, 20 << 20} {
			w, err = objstore.Create(ctx, s.url("aborted.trv"), false, nil)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(body[:n])
			w.Abort()
			if _, ok := s.get("aborted.trv"); ok {
				t.Fatalf("an aborted upload of %d bytes left an object", n)
			}
		}
		// A cancelled context aborts too.
		cctx, cancel := context.WithCancel(ctx)
		w, err = objstore.Create(cctx, s.url("cancelled.trv"), false, nil)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(body)
		cancel()
		if err := w.Commit(); err == nil {
			t.Fatal("Commit after the context ended succeeded")
		}
		if _, ok := s.get("cancelled.trv"); ok {
			t.Fatal("a cancelled upload left an object")
		}

		// An object that appears while one is written is left untouched,
		// small or large.
		for _, n := range []int{4, 20 << 20} {
			w, err = objstore.Create(ctx, s.url("race.trv"), false, nil)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(body[:n])
			s.put("race.trv", []byte("theirs"))
			if err := w.Commit(); !errors.Is(err, objstore.ErrExists) {
				t.Fatalf("Commit of %d bytes over an object that appeared: %v", n, err)
			}
			if got, _ := s.get("race.trv"); string(got) != "theirs" {
				t.Fatalf("the object that appeared was replaced: %q", got)
			}
			s.del("race.trv")
		}
		if s.uploads != nil {
			if n := s.uploads(); n != 0 {
				t.Errorf("%d multipart uploads left in progress", n)
			}
		}
	})
}

func TestMoveExistsRemove(t *testing.T) {
	servers(t, func(t *testing.T, s *server) {
		ctx := context.Background()
		s.put("a.tmp", []byte("a"))
		s.put("b.tmp", []byte("b"))
		if err := objstore.Move(ctx, s.url("a.tmp"), s.url("a"), false, nil); err != nil {
			t.Fatal(err)
		}
		if got, ok := s.get("a"); !ok || string(got) != "a" {
			t.Fatalf("moved: %q, %v", got, ok)
		}
		if ok, err := objstore.Exists(ctx, s.url("a.tmp"), nil); ok || err != nil {
			t.Fatalf("the source is left: %v, %v", ok, err)
		}
		if ok, err := objstore.Exists(ctx, s.url("a"), nil); !ok || err != nil {
			t.Fatalf("the target: %v, %v", ok, err)
		}
		if err := objstore.Move(ctx, s.url("b.tmp"), s.url("a"), false, nil); !errors.Is(err, objstore.ErrExists) {
			t.Fatalf("a move over an object: %v", err)
		}
		if got, _ := s.get("a"); string(got) != "a" {
			t.Fatalf("a refused move replaced the object: %q", got)
		}
		if err := objstore.Move(ctx, s.url("b.tmp"), s.url("a"), true, nil); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.get("a"); string(got) != "b" {
			t.Fatalf("a replacing move: %q", got)
		}
		if err := objstore.Remove(ctx, s.url("a"), nil); err != nil {
			t.Fatal(err)
		}
		if err := objstore.Remove(ctx, s.url("a"), nil); err != nil {
			t.Fatalf("removing a missing object: %v", err)
		}
		if keys := s.keys(); len(keys) != 0 {
			t.Fatalf("left %q", keys)
		}
		if err := objstore.Move(ctx, s.url("x"), s.scheme+"://other/x", true, nil); err == nil {
			t.Fatal("a move across buckets succeeded")
		}
	})
}

// TestStoreConditionsGCS: on GCS a move or an upload that may not
// replace an object is refused by the store itself when one appears after
// the check: the copy, and the start of a resumable upload, which may
// check its condition then (fake-gcs-server ignores the copy's condition
// and checks an upload's when it completes: a scripted server here).
func TestStoreConditionsGCS(t *testing.T) {
	var rewrite, upload string
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet: // the check: no object yet
			http.Error(w, `{"error":{"code":404,"message":"No such object"}}`, http.StatusNotFound)
		case r.Method == http.MethodPost && strings.Contains(r.URL.Path, "/rewriteTo/"):
			rewrite = r.URL.Query().Get("ifGenerationMatch")
			http.Error(w, `{"error":{"code":412,"message":"precondition"}}`, http.StatusPreconditionFailed)
		case r.Method == http.MethodPost && r.URL.Query().Get("uploadType") == "resumable":
			upload = r.URL.Query().Get("ifGenerationMatch")
			http.Error(w, `{"error":{"code":412,"message":"precondition"}}`, http.StatusPreconditionFailed)
		default:
			http.Error(w, "unexpected", http.StatusBadRequest)
		}
	}))
	defer s.Close()
	t.Setenv("STORAGE_EMULATOR_HOST", strings.TrimPrefix(s.URL, "http://"))
	ctx := context.Background()
	err := objstore.Move(ctx, "gs://bkt/a.tmp", "gs://bkt/a", false, nil)
	if !errors.Is(err, objstore.ErrExists) || rewrite != "0" {
		t.Fatalf("a move refused by the store: %v (ifGenerationMatch %q)", err, rewrite)
	}
	w, err := objstore.Create(ctx, "gs://bkt/b", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	chunk := make([]byte, 1<<20)
	for range 9 { // more than the driver's chunk of 8 MiB
		if _, err = w.Write(chunk); err != nil {
			break
		}
	}
	if !errors.Is(err, objstore.ErrAppeared) || upload != "0" {
		t.Fatalf("an upload refused by the store as it starts: %v (ifGenerationMatch %q)", err, upload)
	}
}
