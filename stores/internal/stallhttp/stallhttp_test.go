package stallhttp

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trevni-go/trevni/remote"
)

const stall = 200 * time.Millisecond

// The slow exchange's stall and the gap between its bytes: a gap forty
// times shorter than the stall holds on a machine ten times slower and
// loaded, and its 60 bytes take longer than the stall in all, so an
// exchange cut by its total time, not its idle time, would fail.
const (
	slowStall = 2 * time.Second
	slowGap   = slowStall / 40
	slowBytes = 60
)

// serve starts a server answering with h, whose handlers may block until
// release is closed; stop releases them and stops the server (at the
// end of the test if not before).
func serve(t *testing.T, h func(w http.ResponseWriter, r *http.Request, release <-chan struct{})) (s *httptest.Server, stop func()) {
	t.Helper()
	release := make(chan struct{})
	s = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h(w, r, release) }))
	var once sync.Once
	stop = func() {
		once.Do(func() {
			close(release)
			s.Close()
		})
	}
	t.Cleanup(stop)
	return s, stop
}

// settled waits until no more goroutines run than before (the server's
// and the client's have ended), failing the test after 5 s.
func settled(t *testing.T, before int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines left, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStalls: a server that sends no header, reads none of a large
// request body, or stops in the middle of its answer's body fails the
// exchange within about the stall, with an error wrapping ErrStalled
// that is a net.Error timeout and says what did not come; a slow server
// that keeps making progress (a byte every fortieth of its stall, for
// longer than the stall) is never cut.
func TestStalls(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 64<<20) // more than the sockets hold
	for _, c := range []struct {
		name   string
		stall  time.Duration // 0: stall
		body   []byte
		handle func(w http.ResponseWriter, r *http.Request, release <-chan struct{})
		want   string // in the error; "" for success
	}{
		{"no header", 0, nil, func(w http.ResponseWriter, r *http.Request, release <-chan struct{}) {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}, "no response header"},
		{"no header after the body", 0, []byte("small"), func(w http.ResponseWriter, r *http.Request, release <-chan struct{}) {
			io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}, "no response header"},
		{"body not taken", 0, big, func(w http.ResponseWriter, r *http.Request, release <-chan struct{}) {
			<-release
		}, "took no byte of the request body"},
		{"answer stops", 0, nil, func(w http.ResponseWriter, r *http.Request, release <-chan struct{}) {
			w.Header().Set("Content-Length", "1000")
			w.Write(make([]byte, 500))
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}, "no byte of the response body (after 500 bytes)"},
		{"slow but moving", slowStall, []byte("abc"), func(w http.ResponseWriter, r *http.Request, release <-chan struct{}) {
			time.Sleep(slowGap)
			w.Header().Set("Content-Length", strconv.Itoa(slowBytes))
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			for range slowBytes {
				time.Sleep(slowGap)
				w.Write([]byte("y"))
				w.(http.Flusher).Flush()
			}
		}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			s, stop := serve(t, c.handle)
			tr := &http.Transport{}
			st := c.stall
			if st == 0 {
				st = stall
			}
			client := &http.Client{Transport: &Transport{Base: tr, Stall: st}}
			var body io.Reader
			method := http.MethodGet
			if c.body != nil {
				body, method = bytes.NewReader(c.body), http.MethodPut
			}
			req, _ := http.NewRequest(method, s.URL+"/bkt/key?uploadId=1", body)
			start := time.Now()
			resp, err := client.Do(req)
			var got []byte
			if err == nil {
				got, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			took := time.Since(start)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("a slow exchange that makes progress failed after %v: %v", took, err)
			case c.want == "" && string(got) != strings.Repeat("y", slowBytes):
				t.Fatalf("body %q", got)
			case c.want == "" && took < st:
				t.Fatalf("the slow exchange took %v, less than its stall %v: it tests nothing", took, st)
			case c.want == "":
			case !errors.Is(err, ErrStalled) || !errors.Is(err, remote.ErrTimeout) || !strings.Contains(err.Error(), c.want):
				t.Fatalf("error %v, want ErrStalled, remote.ErrTimeout and %q", err, c.want)
			case took < st || took > 5*time.Second:
				t.Fatalf("failed after %v with a stall of %v", took, st)
			default:
				var ne net.Error
				if !errors.As(err, &ne) || !ne.Timeout() {
					t.Errorf("%v is not a net.Error timeout", err)
				}
				if strings.Contains(c.want, "response body") && !strings.Contains(err.Error(), "GET "+s.URL+"/bkt/key:") {
					t.Errorf("%v does not name the request (without its query)", err)
				}
			}
			tr.CloseIdleConnections()
			stop()
			settled(t, before)
		})
	}
}

// TestNoStall: a Transport with no stall passes requests through, and an
// exchange that ends early (a closed body, an error of the base) ends
// its watch.
func TestNoStall(t *testing.T) {
	s, _ := serve(t, func(w http.ResponseWriter, r *http.Request, _ <-chan struct{}) { w.Write([]byte("ok")) })
	if Wrap(http.DefaultTransport, 0) != http.DefaultTransport {
		t.Error("Wrap with no stall wrapped")
	}
	for _, tr := range []http.RoundTripper{&Transport{}, &Transport{Stall: time.Hour}} {
		resp, err := (&http.Client{Transport: tr}).Get(s.URL)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "ok" {
			t.Fatalf("%q", b)
		}
	}
	_, err := (&http.Client{Transport: &Transport{Stall: stall}}).Get("http://127.0.0.1:1/")
	if err == nil || errors.Is(err, ErrStalled) {
		t.Fatalf("a refused connection: %v", err)
	}
}

// endless is a body that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) { return len(p), nil }
func (endless) Close() error               { return nil }

// BenchmarkBodyRead: the cost of a watched response body's Read of 32 KiB
// (the wrapper and its clock), against the bare body's and against a
// timer reset per Read (how package objstore watched its reads before).
func BenchmarkBodyRead(b *testing.B) {
	p := make([]byte, 32<<10)
	b.Run("bare", func(b *testing.B) {
		var r io.ReadCloser = endless{}
		for range b.N {
			r.Read(p)
		}
	})
	b.Run("watched", func(b *testing.B) {
		x := &exchange{stall: time.Hour, start: time.Now(), cancel: func() {}}
		x.timer = time.AfterFunc(time.Hour, x.check)
		defer x.finish()
		x.state.Store(reading)
		var r io.ReadCloser = &responseBody{x: x, rc: endless{}}
		for range b.N {
			r.Read(p)
		}
	})
	b.Run("timer reset", func(b *testing.B) {
		t := time.AfterFunc(time.Hour, func() {})
		defer t.Stop()
		var r io.ReadCloser = endless{}
		for range b.N {
			if n, _ := r.Read(p); n > 0 {
				t.Reset(time.Hour)
			}
		}
	})
}
