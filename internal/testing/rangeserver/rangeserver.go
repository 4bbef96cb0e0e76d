// Package rangeserver serves files to the tests of remote reading: an
// httptest server on the loopback address that answers range requests,
// counts the requests and the body bytes it sends, and can be told to
// fail part-way through a read. It is for tests only.
package rangeserver

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// Options say how a Server misbehaves; the zero value serves faithfully.
type Options struct {
	// FailAfter, when positive, makes every range request after the first
	// FailAfter (counted since the last Reset) announce its whole range but
	// send only half of it, as a connection cut mid-read does.
	FailAfter int64
	// NoHead answers HEAD requests with 405 Method Not Allowed.
	NoHead bool
}

// Server is a running server; its URL is Server.URL.
type Server struct {
	*httptest.Server
	// Requests counts the requests received and Sent the body bytes sent,
	// since the start or the last Reset.
	Requests, Sent atomic.Int64

	opts   Options
	ranges atomic.Int64
	file   func(path string) ([]byte, error)
}

// Dir serves the files of dir, each at /NAME; the server stops when the
// test ends.
func Dir(t testing.TB, dir string, opts *Options) *Server {
	return start(t, opts, func(path string) ([]byte, error) {
		return os.ReadFile(filepath.Join(dir, filepath.Base(path)))
	})
}

// Bytes serves data at every path; the server stops when the test ends.
func Bytes(t testing.TB, data []byte, opts *Options) *Server {
	return start(t, opts, func(string) ([]byte, error) { return data, nil })
}

// Reset zeroes the counts, including the range requests FailAfter counts.
func (s *Server) Reset() {
	s.Requests.Store(0)
	s.Sent.Store(0)
	s.ranges.Store(0)
}

func start(t testing.TB, opts *Options, file func(string) ([]byte, error)) *Server {
	s := &Server{file: file}
	if opts != nil {
		s.opts = *opts
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *Server) serve(rw http.ResponseWriter, r *http.Request) {
	s.Requests.Add(1)
	w := countingWriter{rw, &s.Sent}
	if r.Method == http.MethodHead && s.opts.NoHead {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	data, err := s.file(r.URL.Path)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	if rg := r.Header.Get("Range"); rg != "" && r.Method == http.MethodGet && s.opts.FailAfter > 0 && s.ranges.Add(1) > s.opts.FailAfter {
		var first, last int64
		fmt.Sscanf(rg, "bytes=%d-%d", &first, &last)
		last = min(last, int64(len(data))-1)
		if first < 0 || first > last {
			http.Error(w, "bad range", http.StatusRequestedRangeNotSatisfiable)
			return
		}
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", first, last, len(data)))
		w.Header().Set("Content-Length", strconv.FormatInt(last-first+1, 10))
		w.WriteHeader(http.StatusPartialContent)
		w.Write(data[first : first+(last-first+1)/2])
		return
	}
	http.ServeContent(w, r, "f.trv", time.Time{}, bytes.NewReader(data))
}

// countingWriter counts the body bytes written to a response.
type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (w countingWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.n.Add(int64(n))
	return n, err
}
