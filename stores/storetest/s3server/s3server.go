// Package s3server runs an S3-protocol server (gofakes3, in memory) on the
// loopback address for the tests of object store reads and writes: it
// counts the requests and the body bytes it sends, and can be told to
// misbehave on the next range reads (drop the connection mid-body, answer
// 500, send a shorter body than it announces). It is for tests only.
package s3server

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

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

// Server is a running S3 server; its endpoint is Server.URL.
type Server struct {
	*httptest.Server
	// Injector makes the faults of ranged reads and counts the
	// requests (Requests) and the body bytes of reads sent (Sent), since
	// the start or the last Reset.
	faulthttp.Injector
	// Backend holds the buckets and objects.
	Backend *s3mem.Backend
}

// Start starts a server holding the buckets named, and points the AWS
// SDK's environment at it for the rest of the test (endpoint, static
// keys, region, checksums only when required, as S3-compatible stores
// want); the server stops when the test ends.
func Start(t testing.TB, buckets ...string) *Server {
	t.Helper()
	s := &Server{Backend: s3mem.New()}
	for _, b := range buckets {
		if err := s.Backend.CreateBucket(b); err != nil {
			t.Fatal(err)
		}
	}
	empty := filepath.Join(t.TempDir(), "aws-empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_CONFIG_FILE", empty)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", empty)
	faker := gofakes3.New(s.Backend)
	s.Server = httptest.NewServer(s.handler(faker.Server()))
	t.Cleanup(s.Close)
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL":                   s.URL,
		"AWS_ACCESS_KEY_ID":                  "test",
		"AWS_SECRET_ACCESS_KEY":              "test",
		"AWS_REGION":                         "us-east-1",
		"AWS_REQUEST_CHECKSUM_CALCULATION":   "when_required",
		"AWS_RESPONSE_CHECKSUM_VALIDATION":   "when_required",
		"AWS_EC2_METADATA_DISABLED":          "true",
		"AWS_ENDPOINT_URL_S3":                "",
		"AWS_PROFILE":                        "",
		"AWS_SESSION_TOKEN":                  "",
		"AWS_DEFAULT_REGION":                 "",
		"AWS_WEB_IDENTITY_TOKEN_FILE":        "",
		"AWS_CONTAINER_CREDENTIALS_FULL_URI": "",
	} {
		t.Setenv(k, v)
	}
	return s
}

// Put stores an object.
func (s *Server) Put(t testing.TB, bucket, key string, data []byte) {
	t.Helper()
	if _, err := s.Backend.PutObject(bucket, key, map[string]string{}, bytes.NewReader(data), int64(len(data)), nil); err != nil {
		t.Fatal(err)
	}
}

// Get returns an object's bytes, and whether it exists.
func (s *Server) Get(t testing.TB, bucket, key string) ([]byte, bool) {
	t.Helper()
	o, err := s.Backend.GetObject(bucket, key, nil)
	if err != nil {
		if gofakes3.HasErrorCode(err, gofakes3.ErrNoSuchKey) {
			return nil, false
		}
		t.Fatal(err)
	}
	defer o.Contents.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(o.Contents); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), true
}

// Keys returns the keys of a bucket's objects, sorted.
func (s *Server) Keys(t testing.TB, bucket string) []string {
	t.Helper()
	l, err := s.Backend.ListBucket(bucket, &gofakes3.Prefix{}, gofakes3.ListBucketPage{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range l.Contents {
		out = append(out, c.Key)
	}
	sort.Strings(out)
	return out
}

// Uploads returns how many multipart uploads are in progress in bucket:
// none once every write has been committed or aborted.
func (s *Server) Uploads(t testing.TB, bucket string) int {
	t.Helper()
	resp, err := http.Get(s.URL + "/" + bucket + "?uploads")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	if resp.StatusCode == http.StatusNotFound && strings.Contains(b.String(), "<Code>NoSuchUpload</Code>") {
		return 0 // gofakes3's answer for a bucket that never had one
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(b.String(), "ListMultipartUploadsResult") {
		t.Fatalf("listing the uploads of %s: %s: %s", bucket, resp.Status, b.String())
	}
	return strings.Count(b.String(), "<Upload>")
}

// handler counts requests and the bytes of GET answers, and injects the
// pending faults into range reads.
func (s *Server) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Requests.Add(1)
		if r.Method != http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		s.Read(w, r, next, func(w http.ResponseWriter) {
			http.Error(w, "<Error><Code>InternalError</Code><Message>injected</Message></Error>", http.StatusInternalServerError)
		})
	})
}

// URL returns the s3:// URL of an object.
func URL(bucket, key string) string { return fmt.Sprintf("s3://%s/%s", bucket, key) }
