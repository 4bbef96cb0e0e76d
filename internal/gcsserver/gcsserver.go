// Package gcsserver runs a Google Cloud Storage JSON API server
// (fake-gcs-server, in memory) on the loopback address for the tests of
// object store reads and writes over gs:// URLs, as internal/s3server does
// for S3: it counts the requests and the body bytes of the media reads it
// sends, and can be told to misbehave on the next ranged reads (drop the
// connection mid-body, answer 500, send a shorter body than asked, stall).
// It is for tests only.
package gcsserver

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"
)

// Fault is a way a ranged read goes wrong.
type Fault int

// The faults a Server injects into ranged reads.
const (
	// Drop sends the header and half of the body, then closes the
	// connection.
	Drop Fault = iota + 1
	// Error500 answers 500 Internal Server Error.
	Error500
	// Short announces and sends half of the body asked for.
	Short
	// Stall sends the header and half of the body, then nothing until
	// the client goes away (or 10 seconds pass).
	Stall
)

// Server is a running GCS server; its endpoint is Server.URL.
type Server struct {
	*httptest.Server
	// Requests counts the requests received and Sent the body bytes of
	// media reads (as they are handed to the connection), since the start
	// or the last Reset.
	Requests, Sent atomic.Int64
	// Fake is the fake-gcs-server behind the faults.
	Fake *fakestorage.Server

	mu     sync.Mutex
	faults []Fault
	log    []string // "METHOD path?query" of each request, when logging
	logOn  bool
}

// Start starts a server holding the buckets named, and points
// STORAGE_EMULATOR_HOST at it for the rest of the test; the server stops
// when the test ends.
func Start(t testing.TB, buckets ...string) *Server {
	t.Helper()
	fake, err := fakestorage.NewServerWithOptions(fakestorage.Options{NoListener: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range buckets {
		fake.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: b})
	}
	s := &Server{Fake: fake}
	s.Server = httptest.NewServer(s.handler(fake.HTTPHandler()))
	t.Cleanup(func() {
		s.Close()
		fake.Stop()
	})
	t.Setenv("STORAGE_EMULATOR_HOST", strings.TrimPrefix(s.URL, "http://"))
	return s
}

// Reset zeroes the counts.
func (s *Server) Reset() {
	s.Requests.Store(0)
	s.Sent.Store(0)
}

// Inject makes the next ranged reads fail, one fault each, in order.
func (s *Server) Inject(faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, faults...)
}

// Pending returns how many injected faults have not happened yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.faults)
}

// Log starts recording the requests, and returns those recorded since the
// last call ("POST /upload/storage/v1/b/bkt/o?uploadType=resumable&...").
func (s *Server) Log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.log
	s.log, s.logOn = nil, true
	return out
}

// Put stores an object.
func (s *Server) Put(t testing.TB, bucket, key string, data []byte) {
	t.Helper()
	if err := s.Fake.CreateObjectStreaming(fakestorage.StreamingObject{
		ObjectAttrs: fakestorage.ObjectAttrs{BucketName: bucket, Name: key, ContentType: "application/octet-stream"},
		Content:     nopCloser{bytes.NewReader(data)},
	}); err != nil {
		t.Fatal(err)
	}
}

type nopCloser struct{ io.ReadSeeker }

func (nopCloser) Close() error { return nil }

// Get returns an object's bytes, and whether it exists.
func (s *Server) Get(t testing.TB, bucket, key string) ([]byte, bool) {
	t.Helper()
	o, err := s.Fake.GetObject(bucket, key)
	if err != nil {
		if err.Error() == "object not found" { // the fake's words
			return nil, false
		}
		t.Fatal(err)
	}
	return o.Content, true
}

// Delete removes an object.
func (s *Server) Delete(t testing.TB, bucket, key string) {
	t.Helper()
	if err := s.Fake.Backend().DeleteObject(bucket, key); err != nil {
		t.Fatal(err)
	}
}

// Keys returns the keys of a bucket's objects, sorted.
func (s *Server) Keys(t testing.TB, bucket string) []string {
	t.Helper()
	objs, _, err := s.Fake.ListObjectsWithOptions(bucket, fakestorage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range objs {
		out = append(out, o.Name)
	}
	slices.Sort(out)
	return out
}

// handler counts requests and the bytes of media reads, records the
// requests when told, and injects the pending faults into ranged reads.
func (s *Server) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Requests.Add(1)
		s.mu.Lock()
		if s.logOn {
			line := r.Method + " " + r.URL.EscapedPath()
			if r.URL.RawQuery != "" {
				line += "?" + r.URL.RawQuery
			}
			s.log = append(s.log, line)
		}
		s.mu.Unlock()
		if r.Method != http.MethodGet || r.URL.Query().Get("alt") != "media" {
			next.ServeHTTP(w, r)
			return
		}
		var fault Fault
		if r.Header.Get("Range") != "" {
			s.mu.Lock()
			if len(s.faults) > 0 {
				fault = s.faults[0]
				s.faults = s.faults[1:]
			}
			s.mu.Unlock()
		}
		if fault == Error500 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `{"error":{"code":500,"message":"injected","errors":[{"reason":"backendError"}]}}`)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		switch fault {
		case Drop, Short, Stall:
			if rec.Code != http.StatusPartialContent {
				break
			}
			half := body[:len(body)/2]
			if fault == Short {
				w.Header().Set("Content-Length", strconv.Itoa(len(half)))
				w.WriteHeader(rec.Code)
				s.Sent.Add(int64(len(half)))
				w.Write(half)
				return
			}
			w.WriteHeader(rec.Code)
			s.Sent.Add(int64(len(half)))
			w.Write(half)
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
			if fault == Stall {
				select {
				case <-r.Context().Done():
				case <-time.After(10 * time.Second):
				}
			}
			panic(http.ErrAbortHandler) // closes the connection mid-body
		}
		w.WriteHeader(rec.Code)
		// Counted before it is sent: a client may have read it all
		// before Write returns.
		s.Sent.Add(int64(len(body)))
		w.Write(body)
	})
}
