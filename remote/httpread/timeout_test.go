package httpread_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni/remote"
	"github.com/trevni-go/trevni/remote/httpread"
)

// stallServer serves a 100-byte resource; stall says, per request, how it
// misbehaves: "header" never answers, "body" sends the header and a few
// bytes of the body and then nothing, "" answers properly.
func stallServer(t *testing.T, stall func(r *http.Request) string) *httptest.Server {
	t.Helper()
	done := make(chan struct{})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mode := stall(r)
		if mode == "header" {
			select {
			case <-done:
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("Accept-Ranges", "bytes")
		if r.Method == http.MethodHead {
			w.Header().Set("Content-Length", "100")
			return
		}
		w.Header().Set("Content-Range", "bytes 0-99/100")
		w.Header().Set("Content-Length", "100")
		w.WriteHeader(http.StatusPartialContent)
		if mode == "body" {
			w.Write(make([]byte, 10))
			w.(http.Flusher).Flush()
			select {
			case <-done:
			case <-r.Context().Done():
			}
			return
		}
		w.Write(make([]byte, 100))
	}))
	t.Cleanup(func() { close(done); s.Close() })
	return s
}

func TestTimeouts(t *testing.T) {
	short := &httpread.Options{ConnectTimeout: 300 * time.Millisecond, HeaderTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond}
	check := func(what string, err error, want string, start time.Time) {
		t.Helper()
		if !errors.Is(err, remote.ErrTimeout) || !errors.Is(err, remote.ErrRemote) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a timeout saying %q", what, err, want)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s: took %v", what, d)
		}
	}

	// No response header to HEAD.
	s := stallServer(t, func(*http.Request) string { return "header" })
	o := *short
	o.Client = s.Client()
	start := time.Now()
	_, err := httpread.Open(context.Background(), s.URL, &o)
	check("HEAD", err, "no response header", start)

	// A header, then a body that stops.
	s = stallServer(t, func(r *http.Request) string {
		if r.Method == http.MethodHead {
			return ""
		}
		return "body"
	})
	o.Client = s.Client()
	h, err := httpread.Open(context.Background(), s.URL, &o)
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	_, err = h.ReadAt(make([]byte, 100), 0)
	check("body", err, "no byte of the body", start)

	// No header to a range request.
	s = stallServer(t, func(r *http.Request) string {
		if r.Method == http.MethodHead {
			return ""
		}
		return "header"
	})
	o.Client = s.Client()
	if h, err = httpread.Open(context.Background(), s.URL, &o); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	_, err = h.ReadAt(make([]byte, 100), 0)
	check("GET", err, "no response header", start)

	// A server that accepts no connection: a listener that is never
	// accepted from completes TCP handshakes from its backlog, so a
	// connect timeout is seen with a dialer that blocks instead.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	o.Client = &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}}
	start = time.Now()
	_, err = httpread.Open(context.Background(), "http://"+ln.Addr().String()+"/f", &o)
	check("connect", err, "no connection", start)

	// Proper answers are read under the same timeouts.
	s = stallServer(t, func(*http.Request) string { return "" })
	o.Client = s.Client()
	if h, err = httpread.Open(context.Background(), s.URL, &o); err != nil {
		t.Fatal(err)
	}
	if n, err := h.ReadAt(make([]byte, 100), 0); n != 100 || err != nil {
		t.Fatalf("ReadAt: %d, %v", n, err)
	}
	// Cancelling is not a timeout.
	ctx, cancel := context.WithCancel(context.Background())
	s = stallServer(t, func(*http.Request) string { return "header" })
	o = httpread.Options{Client: s.Client()}
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	if _, err := httpread.Open(ctx, s.URL, &o); !errors.Is(err, context.Canceled) || errors.Is(err, remote.ErrTimeout) {
		t.Errorf("cancelled: %v", err)
	}
}
