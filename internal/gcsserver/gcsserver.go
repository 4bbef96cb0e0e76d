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
	"strings"
	"sync"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/trevni-go/trevni/internal/faulthttp"
)

// Fault is a way a ranged read goes wrong (see faulthttp).
type Fault = faulthttp.Fault

// The faults a Server injects into ranged reads.
const (
	Drop     = faulthttp.Drop
	Error500 = faulthttp.Error500
	Short    = faulthttp.Short
	Stall    = faulthttp.Stall
)

// Server is a running GCS server; its endpoint is Server.URL.
type Server struct {
	*httptest.Server
	// Injector makes the faults of ranged reads and counts the
	// requests (Requests) and the body bytes of reads sent (Sent), since
	// the start or the last Reset.
	faulthttp.Injector
	// Fake is the fake-gcs-server behind the faults.
	Fake *fakestorage.Server

	mu    sync.Mutex
	log   []string // "METHOD path?query" of each request, when logging
	logOn bool
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
		s.Read(w, r, next, func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `{"error":{"code":500,"message":"injected","errors":[{"reason":"backendError"}]}}`)
		})
	})
}
