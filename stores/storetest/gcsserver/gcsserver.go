// Package gcsserver runs a Google Cloud Storage JSON API server
// (fake-gcs-server, in memory) on the loopback address for the tests of
// object store reads and writes over gs:// URLs, as storetest/s3server does
// for S3: it counts the requests and the body bytes of the media reads it
// sends, and can be told to misbehave on the next ranged reads (drop the
// connection mid-body, answer 500, send a shorter body than asked, stall)
// and on the next requests of uploads (answer 503 or 429, drop the
// connection mid-request, lose the answer).
//
// It keeps the state of each resumable upload in front of the fake, to
// answer as the JSON API's documentation says where fake-gcs-server does
// not: a chunk must start at the byte after those the store holds, a
// status query (an empty PUT with Content-Range "bytes */*", or
// "bytes */N" while the store holds fewer than N bytes) answers 308 with
// the Range held instead of completing the upload, and a completed upload
// answers every later PUT with its object. A connection dropped in the
// middle of a chunk leaves the store holding the part of the chunk
// received in whole multiples of 256 KiB, as GCS may.
// It is for tests only.
package gcsserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/trevni-go/trevni/stores/internal/faulthttp"
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

// The faults a Server injects into the requests of uploads (those whose
// path starts with /upload/: the start of an upload, one-request uploads,
// the chunks and status queries of resumable uploads, their
// cancellations), through InjectWrites.
const (
	Unavailable = faulthttp.Unavailable
	TooMany     = faulthttp.TooMany
	DropRequest = faulthttp.DropRequest
	LoseAnswer  = faulthttp.LoseAnswer
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

	mu      sync.Mutex
	log     []string // "METHOD path?query" of each request, when logging
	logOn   bool
	uploads map[string]*session // the resumable uploads, by upload_id
}

// session is what the store holds of a resumable upload.
type session struct {
	held int64
	// done is the answer that completed it, if it is complete.
	done *httptest.ResponseRecorder
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
	s := &Server{Fake: fake, uploads: map[string]*session{}}
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
		if strings.HasPrefix(r.URL.Path, "/upload/") {
			s.upload(w, r, next)
			return
		}
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

// answer writes the JSON API error of an injected fault.
func answer(w http.ResponseWriter, status int) {
	refuse(w, status, "injected")
}

// refuse writes a JSON API error saying message.
func refuse(w http.ResponseWriter, status int, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	m, _ := json.Marshal(message)
	fmt.Fprintf(w, `{"error":{"code":%d,"message":%s,"errors":[{"reason":"invalid"}]}}`, status, m)
}

// chunkUnit is what GCS keeps of a chunk in multiples of.
const chunkUnit = 256 << 10

// upload answers r, a request of an upload, making the next pending
// fault of uploads.
func (s *Server) upload(w http.ResponseWriter, r *http.Request, next http.Handler) {
	fault := s.NextWrite()
	if faulthttp.Refuse(w, r, fault, answer) {
		return
	}
	if fault == DropRequest {
		half := make([]byte, max(r.ContentLength, 0)/2)
		n, _ := io.ReadFull(r.Body, half)
		s.keepPart(r, half[:n], next)
		faulthttp.Abort()
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		faulthttp.Abort()
	}
	rec := s.serveUpload(r, body, next)
	if fault == LoseAnswer {
		faulthttp.Abort()
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	w.Write(rec.Body.Bytes())
}

// keepPart makes the store keep what GCS may keep of part, the start of
// a chunk of a resumable upload whose connection dropped: its whole
// multiples of 256 KiB.
func (s *Server) keepPart(r *http.Request, part []byte, next http.Handler) {
	first, _, _, ok := contentRange(r.Header.Get("Content-Range"))
	keep := len(part) / chunkUnit * chunkUnit
	if r.Method != http.MethodPut || !ok || first < 0 || keep == 0 {
		return
	}
	r2 := r.Clone(r.Context())
	r2.Header.Set("Content-Range", fmt.Sprintf("bytes %d-%d/*", first, first+int64(keep)-1))
	s.serveUpload(r2, part[:keep], next)
}

// serveUpload answers r, with body, through the fake, in the place of the
// fake where it departs from the JSON API (see the package's comment).
func (s *Server) serveUpload(r *http.Request, body []byte, next http.Handler) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	id := r.URL.Query().Get("upload_id")
	forward := func() {
		r2 := r.Clone(r.Context())
		r2.Body = io.NopCloser(bytes.NewReader(body))
		r2.ContentLength = int64(len(body))
		next.ServeHTTP(rec, r2)
	}
	if id == "" {
		forward()
		if r.Method == http.MethodPost && r.URL.Query().Get("uploadType") == "resumable" && rec.Code == http.StatusOK {
			if u, err := url.Parse(rec.Header().Get("Location")); err == nil && u.Query().Get("upload_id") != "" {
				s.mu.Lock()
				s.uploads[u.Query().Get("upload_id")] = &session{}
				s.mu.Unlock()
			}
		}
		return rec
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sess := s.uploads[id]
	switch {
	case sess == nil:
		forward() // the fake knows no such upload either
		return rec
	case r.Method == http.MethodDelete:
		delete(s.uploads, id)
		forward()
		return rec
	case r.Method != http.MethodPut:
		refuse(rec, http.StatusMethodNotAllowed, "not a method of a resumable upload")
		return rec
	case sess.done != nil:
		return sess.done
	}
	first, last, total, ok := contentRange(r.Header.Get("Content-Range"))
	switch {
	case !ok || first < 0 && len(body) > 0:
		refuse(rec, http.StatusBadRequest, "bad Content-Range "+r.Header.Get("Content-Range"))
		return rec
	case first < 0 && total != sess.held:
		// A status query.
		if total >= 0 && total < sess.held {
			refuse(rec, http.StatusBadRequest, fmt.Sprintf("a total of %d bytes, after %d held", total, sess.held))
			return rec
		}
		if sess.held > 0 {
			rec.Header().Set("Range", fmt.Sprintf("bytes=0-%d", sess.held-1))
		}
		rec.WriteHeader(http.StatusPermanentRedirect)
		return rec
	case first >= 0 && (first != sess.held || last-first+1 != int64(len(body)) || total >= 0 && last >= total):
		// Not the bytes after those held: GCS's answer is not
		// documented, and no client should send it.
		refuse(rec, http.StatusBadRequest, fmt.Sprintf("Content-Range %s with %d bytes, after %d held", r.Header.Get("Content-Range"), len(body), sess.held))
		return rec
	}
	forward()
	switch rec.Code {
	case http.StatusPermanentRedirect:
		sess.held += int64(len(body))
	case http.StatusOK, http.StatusCreated:
		sess.held += int64(len(body))
		sess.done = rec
	}
	return rec
}

// contentRange parses the Content-Range of a PUT of a resumable upload:
// first and last are -1 for "*", total -1 for "*".
func contentRange(cr string) (first, last, total int64, ok bool) {
	spec, tot, ok := strings.Cut(strings.TrimPrefix(cr, "bytes "), "/")
	if !ok || !strings.HasPrefix(cr, "bytes ") {
		return 0, 0, 0, false
	}
	first, last, total = -1, -1, -1
	var err error
	if spec != "*" {
		a, b, ok := strings.Cut(spec, "-")
		if !ok {
			return 0, 0, 0, false
		}
		if first, err = strconv.ParseInt(a, 10, 64); err != nil {
			return 0, 0, 0, false
		}
		if last, err = strconv.ParseInt(b, 10, 64); err != nil || last < first {
			return 0, 0, 0, false
		}
	}
	if tot != "*" {
		if total, err = strconv.ParseInt(tot, 10, 64); err != nil {
			return 0, 0, 0, false
		}
	}
	return first, last, total, true
}
