package main

// Hostile inputs, round two (issue 22): each input is built here and given
// to the built tool in a subprocess under a time and memory limit.

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A server that stops answering fails a read after --http-timeout, not
// never.
func TestHostileHTTPStall(t *testing.T) {
	done := make(chan struct{})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.Header().Set("Accept-Ranges", "bytes")
			w.Header().Set("Content-Length", "1000")
			return
		}
		if strings.Contains(r.URL.Path, "trickle") {
			w.Header().Set("Content-Range", "bytes 0-999/1000")
			w.Header().Set("Content-Length", "1000")
			w.WriteHeader(http.StatusPartialContent)
			w.Write([]byte("Trv"))
			w.(http.Flusher).Flush()
		}
		select {
		case <-done:
		case <-r.Context().Done():
		}
	}))
	defer s.Close()
	defer close(done)
	dir := t.TempDir()
	for _, path := range []string{"/stall.trv", "/trickle.trv"} {
		start := time.Now()
		r := runLimited(t, dir, 20*time.Second, nil, "dump", "--http-timeout", "500ms", s.URL+path)
		checkHostile(t, r, "dump", "timed out", dir)
		if !strings.Contains(r.stderr, "--http-timeout") {
			t.Errorf("%s: error %q does not name --http-timeout", path, r.stderr)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: took %v", path, d)
		}
	}
}
