package gcs

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
	"golang.org/x/oauth2"

	"github.com/trevni-go/trevni/stores/storetest/gcsserver"
)

// The tests of this file check the retries of uploads (see "How uploads
// are retried" in write.go): against fake-gcs-server behind
// storetest/gcsserver, which injects faults into the requests of uploads
// and answers status queries as GCS does, that the object made holds the
// bytes written, made once; and with scripted servers, what the fake
// cannot show (a session that is gone, the conditions of a retried
// one-request upload).

// retrying opens the bucket name at endpoint with chunks of chunk bytes
// and short waits between retries (wait, doubled up to 4 times wait).
func retrying(t *testing.T, endpoint, name string, chunk int, wait time.Duration) *blob.Bucket {
	t.Helper()
	b, err := openBucket(name, &Options{Endpoint: endpoint, ChunkSize: chunk})
	if err != nil {
		t.Fatal(err)
	}
	b.backoff, b.maxWait = wait, 4*wait
	bb := blob.NewBucket(b)
	t.Cleanup(func() { bb.Close() })
	return bb
}

// put writes body to key in pieces of random sizes, and returns the error
// of Close (or of a Write).
func put(ctx context.Context, b *blob.Bucket, key string, body []byte, ifNotExist bool, r *rand.Rand) error {
	w, err := b.NewWriter(ctx, key, &blob.WriterOptions{ContentType: "application/octet-stream", IfNotExist: ifNotExist})
	if err != nil {
		return err
	}
	for off := 0; off < len(body); {
		n := min(1+r.IntN(100_000), len(body)-off)
		if _, err := w.Write(body[off : off+n]); err != nil {
			w.Close()
			return err
		}
		off += n
	}
	return w.Close()
}

// uploads returns how many requests of uploads log holds.
func uploads(log []string) int {
	n := 0
	for _, l := range log {
		if strings.Contains(l, " /upload/") {
			n++
		}
	}
	return n
}

// versions returns how many generations of key the versioned bucket
// holds, the live one and those it replaced.
func versions(t *testing.T, s *gcsserver.Server, bucket, key string) int {
	t.Helper()
	objs, _, err := s.Fake.ListObjectsWithOptions(bucket, fakestorage.ListOptions{Prefix: key, Versions: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, o := range objs {
		if o.Name == key {
			n++
		}
	}
	return n
}

// TestUploadFaults: an upload of a size around the chunk boundaries whose
// requests fail, one at each step in turn (the start, each chunk, the
// last, the one request of a small object), in each way (503, 429, a
// connection dropped in the middle of the request, with the store keeping
// the whole 256 KiB of what it got, an answer lost after the store did
// its part), and at times the request after it too (the status query, or
// the retry), makes the object of the bytes written, byte for byte, and
// makes it once (a versioned bucket keeps a generation for each), both
// when it may not replace an object and when it replaces one.
func TestUploadFaults(t *testing.T) {
	s := gcsserver.Start(t, "bkt")
	s.Fake.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: "ver", VersioningEnabled: true})
	r := rand.New(rand.NewPCG(11, 12))
	ctx := context.Background()
	kinds := []gcsserver.Fault{gcsserver.Unavailable, gcsserver.TooMany, gcsserver.DropRequest, gcsserver.LoseAnswer}
	cases := 0
	for _, chunk := range []int{256 << 10, 512 << 10} {
		b := retrying(t, s.URL, "ver", chunk, time.Millisecond)
		sizes := []int{0, 1, chunk - 1, chunk, chunk + 1, 2*chunk - 1, 2 * chunk, 2*chunk + 1, 2*chunk + 1 + r.IntN(chunk)}
		for _, size := range sizes {
			body := make([]byte, size)
			for i := range body {
				body[i] = byte(r.Uint32())
			}
			// A clean upload says how many requests there are.
			s.Log()
			if err := put(ctx, b, "clean", body, false, r); err != nil {
				t.Fatal(err)
			}
			steps := uploads(s.Log())
			for step := range steps {
				for _, kind := range kinds {
					faults := append(make([]gcsserver.Fault, step), kind)
					if r.IntN(2) == 0 {
						faults = append(faults, kinds[r.IntN(len(kinds))])
					}
					cases++
					key := fmt.Sprintf("k%d", cases)
					replace := cases%2 == 0
					if replace {
						s.Put(t, "ver", key, []byte("an object to replace"))
					}
					s.InjectWrites(faults...)
					err := put(ctx, b, key, body, !replace, r)
					what := fmt.Sprintf("chunk %d, %d bytes, faults %v, replacing %v", chunk, size, faults, replace)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					// The fault at step was made; the one after it may
					// not have been, if no request of the upload followed
					// (a look at the object is no such request).
					if n := s.PendingWrites(); n >= len(faults)-step {
						t.Fatalf("%s: %d faults left over", what, n)
					}
					for s.PendingWrites() > 0 {
						s.NextWrite()
					}
					got, ok := s.Get(t, "ver", key)
					if !ok || !bytes.Equal(got, body) {
						t.Fatalf("%s: the object holds %d bytes (exists %v), not the %d written", what, len(got), ok, len(body))
					}
					want := 1
					if replace {
						want = 2
					}
					if n := versions(t, s, "ver", key); n != want {
						t.Fatalf("%s: %d generations of the object, want %d", what, n, want)
					}
				}
			}
		}
	}
	t.Logf("%d uploads with faults", cases)
}

// TestUploadGivesUp: an upload whose requests keep failing fails after
// the retries, with an error that says what failed, where and after how
// many tries, and leaves no object; its resumable upload is cancelled.
func TestUploadGivesUp(t *testing.T) {
	s := gcsserver.Start(t, "bkt")
	chunk := 256 << 10
	b := retrying(t, s.URL, "bkt", chunk, time.Millisecond)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(13, 14))
	for _, tc := range []struct {
		size  int
		step  int    // the request that starts failing
		where string // what the error says failed
	}{
		{1000, 0, "1000 bytes in one request"},
		{3*chunk + 5, 0, "the start of a resumable upload"},
		{3*chunk + 5, 2, fmt.Sprintf("bytes %d-%d", chunk, 2*chunk-1)},
		{3*chunk + 5, 4, fmt.Sprintf("the last bytes %d-%d of %d", 3*chunk, 3*chunk+4, 3*chunk+5)},
	} {
		faults := make([]gcsserver.Fault, tc.step)
		for range defaultRetries + 1 {
			faults = append(faults, gcsserver.Unavailable)
		}
		s.InjectWrites(faults...)
		s.Log()
		err := put(ctx, b, "k", data(tc.size), false, r)
		log := s.Log()
		for _, want := range []string{"upload bkt/k: " + tc.where, "503 Service Unavailable", fmt.Sprintf("gave up after %d attempts", defaultRetries+1)} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%d bytes, failing from request %d: error %v, want one saying %q", tc.size, tc.step, err, want)
			}
		}
		if gcerrors.Code(err) != gcerrors.Internal {
			t.Errorf("code %v", gcerrors.Code(err))
		}
		if n := s.PendingWrites(); n != 0 {
			t.Errorf("%d faults left over", n)
			s.InjectWrites()
		}
		if _, ok := s.Get(t, "bkt", "k"); ok {
			t.Errorf("%d bytes: an object was made", tc.size)
		}
		if tc.step > 0 && !strings.HasPrefix(log[len(log)-1], "DELETE /upload/") {
			t.Errorf("%d bytes: the resumable upload was not cancelled: %q", tc.size, log)
		}
	}
}

// hooked is a scripted resumable upload server (upload) whose answers
// hook may take over: it returns a status to answer with, or 0.
func hooked(t *testing.T, u *upload, hook func(r *request) int) *script {
	var s *script
	s = newScript(t, func(w http.ResponseWriter, r *request) {
		if st := hook(r); st != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(st)
			fmt.Fprintf(w, `{"error":{"code":%d,"message":"scripted"}}`, st)
			return
		}
		u.answer(func() string { return s.URL })(w, r)
	})
	return s
}

// TestUploadSessionGone: a status query answered 404 or 410 (the store no
// longer knows the session) fails the upload at once, saying so; and a
// refusal (403) is not retried.
func TestUploadSessionGone(t *testing.T) {
	chunk := 256 << 10
	for _, st := range []int{http.StatusGone, http.StatusNotFound} {
		u := &upload{}
		var mu sync.Mutex
		puts := 0
		s := hooked(t, u, func(r *request) int {
			mu.Lock()
			defer mu.Unlock()
			if r.method != http.MethodPut {
				return 0
			}
			puts++
			switch puts {
			case 2: // the second chunk
				return http.StatusBadGateway
			case 3: // the status query
				return st
			}
			return 0
		})
		b := retrying(t, s.URL, "bkt", chunk, time.Millisecond)
		err := put(context.Background(), b, "k", data(3*chunk+1), false, rand.New(rand.NewPCG(1, 2)))
		if err == nil || !strings.Contains(err.Error(), "no longer knows the upload's session") || !strings.Contains(err.Error(), fmt.Sprintf("bytes %d-%d", chunk, 2*chunk-1)) {
			t.Errorf("%d: %v", st, err)
		}
		if u.object != nil {
			t.Errorf("%d: an object was made", st)
		}
		reqs := s.requests()
		if len(reqs) != 5 || reqs[3].header.Get("Content-Range") != "bytes */*" || len(reqs[3].body) != 0 || reqs[4].method != http.MethodDelete {
			t.Errorf("%d: %d requests", st, len(reqs))
			for _, r := range reqs {
				t.Logf("%s %s %q", r.method, r.url, r.header.Get("Content-Range"))
			}
		}
	}
	u := &upload{}
	s := hooked(t, u, func(r *request) int {
		if r.method == http.MethodPut {
			return http.StatusForbidden
		}
		return 0
	})
	b := retrying(t, s.URL, "bkt", chunk, time.Millisecond)
	err := put(context.Background(), b, "k", data(3*chunk+1), false, rand.New(rand.NewPCG(1, 2)))
	if gcerrors.Code(err) != gcerrors.PermissionDenied {
		t.Errorf("403: %v", err)
	}
	if n := len(s.requests()); n != 3 { // start, chunk, cancel
		t.Errorf("403: %d requests", n)
	}
}

// TestUploadResumesFromHeld: after a chunk fails, the status query's
// Range says how much the store holds (here more than it had said before,
// less than it was sent), and the upload goes on from there: every chunk
// starts at the byte after those held, as the scripted store checks.
func TestUploadResumesFromHeld(t *testing.T) {
	chunk := 1 << 20
	u := &upload{}
	var mu sync.Mutex
	failed := false
	var s *script
	s = newScript(t, func(w http.ResponseWriter, r *request) {
		mu.Lock()
		defer mu.Unlock()
		cr := r.header.Get("Content-Range")
		if !failed && r.method == http.MethodPut && strings.HasPrefix(cr, fmt.Sprintf("bytes %d-", chunk)) {
			// The second chunk: the store keeps 512 KiB of it, then
			// the answer is lost.
			failed = true
			r.body = r.body[:512<<10]
			r.header.Set("Content-Range", fmt.Sprintf("bytes %d-%d/*", chunk, chunk+512<<10-1))
			u.answer(func() string { return s.URL })(discard{}, r)
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		u.answer(func() string { return s.URL })(w, r)
	})
	b := retrying(t, s.URL, "bkt", chunk, time.Millisecond)
	body := data(3*chunk + 77)
	if err := put(context.Background(), b, "k", body, false, rand.New(rand.NewPCG(3, 4))); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(u.object, body) {
		t.Fatalf("the object holds %d bytes, not the %d written", len(u.object), len(body))
	}
	want := []string{
		fmt.Sprintf("bytes 0-%d/*", chunk-1),
		fmt.Sprintf("bytes %d-%d/*", chunk, chunk+512<<10-1), // what the store kept of the failed chunk
		"bytes */*",
		// The rest of the chunk, and what was written since, a chunk.
		fmt.Sprintf("bytes %d-%d/*", chunk+512<<10, 2*chunk+512<<10-1),
	}
	if len(u.ranges) < len(want) || !equalStrings(u.ranges[:len(want)], want) {
		t.Errorf("Content-Ranges %q, want them to start %q", u.ranges, want)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// discard is a ResponseWriter that drops what it is given.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) WriteHeader(int)             {}

// sums returns the MD5 and CRC32C of b as GCS writes them.
func sums(b []byte) (string, string) {
	m := md5.Sum(b)
	c := binary.BigEndian.AppendUint32(nil, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
	return base64.StdEncoding.EncodeToString(m[:]), base64.StdEncoding.EncodeToString(c)
}

// TestSingleRetryConditions: a one-request upload whose first try's
// outcome is unknown (503) is retried conditionally; a 412 then is taken
// for success when the object there holds the bytes sent, and for a
// conflict otherwise; a writer that may replace the object looks at it
// first, and makes its retry conditional on the generation it found.
func TestSingleRetryConditions(t *testing.T) {
	body := data(5000)
	md5sum, crc := sums(body)
	other, otherCRC := sums(data(4999))
	ctx := context.Background()
	for _, tc := range []struct {
		name       string
		ifNotExist bool
		there      string // the object a look finds: its JSON, or "" for none
		wantErr    bool
		wantGen    string // the ifGenerationMatch of the retry
	}{
		{"made by the lost try", true, fmt.Sprintf(`{"generation":"9","size":"5000","md5Hash":%q,"crc32c":%q}`, md5sum, crc), false, "0"},
		{"a conflict", true, fmt.Sprintf(`{"generation":"9","size":"5000","md5Hash":%q,"crc32c":%q}`, other, otherCRC), true, "0"},
		{"a conflict of the same size and MD5", true, fmt.Sprintf(`{"generation":"9","size":"5000","md5Hash":%q,"crc32c":%q}`, md5sum, otherCRC), true, "0"},
		{"replacing, no object", false, "", false, "0"},
		{"replacing, another object", false, fmt.Sprintf(`{"generation":"7","size":"4999","md5Hash":%q,"crc32c":%q}`, other, otherCRC), false, "7"},
		{"replacing, made by the lost try", false, fmt.Sprintf(`{"generation":"8","size":"5000","md5Hash":%q,"crc32c":%q}`, md5sum, crc), false, ""},
	} {
		var mu sync.Mutex
		posts := 0
		s := newScript(t, func(w http.ResponseWriter, r *request) {
			mu.Lock()
			defer mu.Unlock()
			switch {
			case r.method == http.MethodGet:
				if tc.there == "" {
					http.Error(w, `{"error":{"code":404}}`, http.StatusNotFound)
					return
				}
				fmt.Fprint(w, tc.there)
			case r.method == http.MethodPost && posts == 0:
				posts++
				http.Error(w, `{"error":{"code":503}}`, http.StatusServiceUnavailable)
			case r.method == http.MethodPost && r.url.Query().Get("ifGenerationMatch") == "0" && tc.there != "":
				posts++
				http.Error(w, `{"error":{"code":412,"message":"conditionNotMet"}}`, http.StatusPreconditionFailed)
			default:
				posts++
				fmt.Fprintf(w, `{"generation":"10","size":"%d"}`, len(body))
			}
		})
		b := retrying(t, s.URL, "bkt", 0, time.Millisecond)
		err := put(ctx, b, "k", body, tc.ifNotExist, rand.New(rand.NewPCG(5, 6)))
		if (err != nil) != tc.wantErr || tc.wantErr && (gcerrors.Code(err) != gcerrors.FailedPrecondition || !strings.Contains(err.Error(), "not the one sent")) {
			t.Errorf("%s: %v", tc.name, err)
		}
		var gens []string
		for _, r := range s.requests() {
			if r.method == http.MethodPost {
				gens = append(gens, r.url.Query().Get("ifGenerationMatch"))
			}
		}
		first := ""
		if tc.ifNotExist {
			first = "0"
		}
		want := []string{first}
		if tc.wantGen != "" {
			want = append(want, tc.wantGen)
		}
		if !equalStrings(gens, want) {
			t.Errorf("%s: the tries' ifGenerationMatch %q, want %q", tc.name, gens, want)
		}
	}
}

// TestUploadCancelled: a writer whose context ends while it waits to
// retry stops at once, with the context's error, making no more requests
// (the waits here are an hour long).
func TestUploadCancelled(t *testing.T) {
	for _, size := range []int{1000, 1 << 20} {
		ctx, cancel := context.WithCancel(context.Background())
		answered := make(chan struct{}, 100)
		s := newScript(t, func(w http.ResponseWriter, r *request) {
			if r.method == http.MethodDelete {
				w.WriteHeader(499)
				return
			}
			http.Error(w, `{"error":{"code":503}}`, http.StatusServiceUnavailable)
			answered <- struct{}{}
		})
		b := retrying(t, s.URL, "bkt", 256<<10, time.Hour)
		done := make(chan error, 1)
		go func() { done <- put(ctx, b, "k", data(size), false, rand.New(rand.NewPCG(7, 8))) }()
		<-answered
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) || gcerrors.Code(err) != gcerrors.Canceled {
				t.Errorf("%d bytes: %v (code %v)", size, err, gcerrors.Code(err))
			}
		case <-time.After(time.Minute):
			t.Fatalf("%d bytes: the upload goes on a minute after its context ended", size)
		}
		if n := len(s.requests()); n != 1 {
			t.Errorf("%d bytes: %d requests, want the one that failed", size, n)
		}
	}
}

// TestTransient: which failures of a request are tried again: the answers
// and connection failures that may pass, and not the refusals, a host
// that does not exist, a certificate that does not verify, nor anything
// once the writer's context has ended.
func TestTransient(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	w := &writer{ctx: ctx}
	wrap := func(err error) error {
		return fmt.Errorf("gcs: upload b/k: %w", &url.Error{Op: "Put", URL: "https://x/session", Err: err})
	}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&Error{Status: http.StatusInternalServerError}, true},
		{&Error{Status: http.StatusServiceUnavailable}, true},
		{&Error{Status: http.StatusBadGateway}, true},
		{&Error{Status: http.StatusRequestTimeout}, true},
		{&Error{Status: http.StatusTooManyRequests}, true},
		{&Error{Status: http.StatusBadRequest}, false},
		{&Error{Status: http.StatusForbidden}, false},
		{&Error{Status: http.StatusNotFound}, false},
		{&Error{Status: http.StatusPreconditionFailed}, false},
		{wrap(io.EOF), true},
		{fmt.Errorf("gcs: upload b/k: the answer: %w", io.ErrUnexpectedEOF), true},
		{wrap(&net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}), true},
		{wrap(&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}), true},
		{wrap(&net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}), true},
		{wrap(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}}), false},
		{wrap(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "timeout", Name: "x", IsTimeout: true}}), true},
		{wrap(x509.UnknownAuthorityError{}), false},
		{wrap(errors.New("http2: server sent GOAWAY and closed the connection; LastStreamID=1")), true},
		{wrap(&oauth2.RetrieveError{Response: &http.Response{StatusCode: http.StatusBadRequest}}), false},
		{wrap(&oauth2.RetrieveError{Response: &http.Response{StatusCode: http.StatusServiceUnavailable}}), true},
		{errors.New("gcs: upload b/k: the store says it holds \"bytes=0-9\""), false},
	} {
		if got := w.transient(tc.err); got != tc.want {
			t.Errorf("%v: transient %v, want %v", tc.err, got, tc.want)
		}
	}
	cancel()
	if w.transient(&Error{Status: http.StatusServiceUnavailable}) || w.transient(wrap(io.EOF)) {
		t.Error("a failure after the context ended is to be tried again")
	}
}
