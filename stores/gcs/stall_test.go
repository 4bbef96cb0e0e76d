package gcs

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/trevni-go/trevni/stores/internal/stallhttp"
	"github.com/trevni-go/trevni/stores/storetest/gcsserver"
)

// uploadKind classifies the requests of uploads.
func uploadKind(r *http.Request) string {
	q := r.URL.Query()
	cr := r.Header.Get("Content-Range")
	switch {
	case r.Method == http.MethodPost && q.Get("uploadType") == "multipart":
		return "single"
	case r.Method == http.MethodPost && q.Get("uploadType") == "resumable":
		return "start"
	case r.Method == http.MethodPut && strings.HasPrefix(cr, "bytes */"):
		return "query"
	case r.Method == http.MethodPut && strings.HasSuffix(cr, "/*"):
		return "chunk"
	case r.Method == http.MethodPut:
		return "last"
	}
	return ""
}

// stallingProxy forwards requests to target but makes those of kind hang
// (the first times of them, or all when times is 0): reading their body
// first when read is set, or none of it. It stops at the end of the
// test, its hung handlers released first.
type stallingProxy struct {
	*httptest.Server
	kind, after string // hangs kind, once a request of after hung (if set)
	times       int64
	read        bool
	hung        atomic.Int64
	seen        atomic.Bool // a request of after hung
	next        *httputil.ReverseProxy
	release     chan struct{}
	stop        func() // releases the hung handlers and stops the server
}

func startStallingProxy(t *testing.T, target, kind string, times int64, read bool) *stallingProxy {
	u, _ := url.Parse(target)
	p := &stallingProxy{kind: kind, times: times, read: read, next: httputil.NewSingleHostReverseProxy(u), release: make(chan struct{})}
	p.next.ModifyResponse = func(resp *http.Response) error {
		if loc := resp.Header.Get("Location"); loc != "" {
			resp.Header.Set("Location", strings.Replace(loc, target, p.URL, 1))
		}
		return nil
	}
	p.Server = httptest.NewServer(p)
	var once sync.Once
	p.stop = func() {
		once.Do(func() {
			close(p.release)
			p.Close()
		})
	}
	t.Cleanup(p.stop)
	return p
}

func (p *stallingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	k := uploadKind(r)
	if p.after != "" && k == p.after && !p.seen.Load() {
		p.seen.Store(true)
		<-p.release
		return
	}
	if k != p.kind || p.after != "" && !p.seen.Load() || p.times > 0 && p.hung.Load() >= p.times {
		p.next.ServeHTTP(w, r)
		return
	}
	p.hung.Add(1)
	if !p.read {
		<-p.release // the end of the connection is not seen while its body is unread
		return
	}
	io.Copy(io.Discard, r.Body)
	select {
	case <-r.Context().Done():
	case <-p.release:
	}
}

// TestUploadStalled: each request of an upload that stalls (the one
// request of a small object, the start of a resumable upload, a chunk
// the server does not take, the last chunk, the status query after a
// chunk whose outcome is unknown) fails with a timeout wrapping
// ErrStalled, is retried, and the upload gives up after the retries with
// an error that says which step stalled, leaving no object and no
// goroutine; a chunk that stalls once is retried and the object is made
// whole.
func TestUploadStalled(t *testing.T) {
	const stall = 200 * time.Millisecond
	chunk := 8 << 20 // more than the sockets hold
	for _, tc := range []struct {
		name, kind, after string
		times             int64
		read              bool
		size              int
		where             string // in the error; "" for success
	}{
		{"single", "single", "", 0, true, 1000, "1000 bytes in one request"},
		{"start", "start", "", 0, true, chunk + 5, "the start of a resumable upload"},
		{"chunk", "chunk", "", 0, false, 2*chunk + 5, "bytes 0-8388607"},
		{"last", "last", "", 0, true, chunk + 5, "the last bytes 8388608-8388612 of 8388613"},
		{"query", "query", "chunk", 0, true, 2*chunk + 5, "a status query"},
		{"chunk once", "chunk", "", 1, false, 2*chunk + 5, ""},
	} {
		if tc.kind != "chunk" && os.Getenv("TREVNI_LONG_TESTS") != "1" {
			// Each failing case waits out 9 stalls; by default the
			// chunks' cases (one given up, one retried) stand for them,
			// and TREVNI_LONG_TESTS=1 runs them all.
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			s := gcsserver.Start(t, "bkt")
			p := startStallingProxy(t, s.URL, tc.kind, tc.times, tc.read)
			p.after = tc.after
			b, err := openBucket("bkt", &Options{Endpoint: p.URL, ChunkSize: chunk, Stall: stall})
			if err != nil {
				t.Fatal(err)
			}
			b.backoff, b.maxWait = time.Millisecond, 4*time.Millisecond
			bb := blob.NewBucket(b)
			body := bytes.Repeat([]byte("0123456789abcdef"), tc.size/16+1)[:tc.size]
			start := time.Now()
			w, err := bb.NewWriter(context.Background(), "k", nil)
			if err != nil {
				t.Fatal(err)
			}
			for off := 0; off < len(body) && err == nil; off += 1 << 20 {
				_, err = w.Write(body[off:min(off+1<<20, len(body))])
			}
			if cerr := w.Close(); err == nil {
				err = cerr
			}
			took := time.Since(start)
			got, ok := s.Get(t, "bkt", "k")
			switch {
			case tc.where == "" && (err != nil || !bytes.Equal(got, body)):
				t.Fatalf("a chunk that stalled once: %v; the object holds %d bytes of %d", err, len(got), len(body))
			case tc.where == "":
				if p.hung.Load() != 1 {
					t.Errorf("%d requests hung, want 1", p.hung.Load())
				}
			case !errors.Is(err, stallhttp.ErrStalled) || !strings.Contains(err.Error(), tc.where) || !strings.Contains(err.Error(), "gave up after 9 attempts"):
				t.Fatalf("error %v, want ErrStalled, %q and 9 attempts", err, tc.where)
			case took > 30*time.Second:
				t.Fatalf("gave up after %v", took)
			case ok:
				t.Fatal("a failed upload made an object")
			}
			t.Logf("after %v and %d hung requests: %v", took.Round(time.Millisecond), p.hung.Load(), err)
			bb.Close()
			p.stop()
			s.Close()
			for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before+1; { // +1: the fake's own, stopped at the end
				if time.Now().After(deadline) {
					buf := make([]byte, 1<<20)
					t.Fatalf("%d goroutines left, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}
