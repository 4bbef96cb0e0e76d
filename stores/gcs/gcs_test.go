package gcs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/trevni-go/trevni/stores/storetest/gcsserver"
)

// The tests of this file check the requests the driver makes against what
// the JSON API's documentation says, with scripted servers, for what
// fake-gcs-server does not check (it ignores ifGenerationMatch on reads,
// and a status query of a resumable upload completes it); and its answers
// to fake-gcs-server, in process, for the rest.

func data(n int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(5, 6))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// request is what a scripted server received.
type request struct {
	method string
	url    *url.URL
	header http.Header
	body   []byte
}

// script is a server that answers each request with answer and records
// it.
type script struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []request
}

func newScript(t *testing.T, answer func(w http.ResponseWriter, r *request)) *script {
	s := &script{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req := request{method: r.Method, url: r.URL, header: r.Header.Clone(), body: body}
		s.mu.Lock()
		s.reqs = append(s.reqs, req)
		s.mu.Unlock()
		answer(w, &req)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *script) requests() []request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

func openScript(t *testing.T, s *script, opts *Options) *blob.Bucket {
	t.Helper()
	o := Options{Endpoint: s.URL}
	if opts != nil {
		o = *opts
		o.Endpoint = s.URL
	}
	b, err := OpenBucket("bkt", &o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// pin is a BeforeRead that makes a read conditional on generation gen.
func pin(gen int64) func(func(any) bool) error {
	return func(as func(any) bool) error {
		var c *Conditions
		if !as(&c) {
			return errors.New("no *Conditions")
		}
		c.GenerationMatch = gen
		return nil
	}
}

// TestReadRequest: a ranged read asks for the media of the object, its
// key in one escaped path segment, the range, the stored bytes and the
// generation pinned; the answer's generation and size are the reader's.
func TestReadRequest(t *testing.T) {
	s := newScript(t, func(w http.ResponseWriter, r *request) {
		w.Header().Set("Content-Range", "bytes 10-19/100")
		w.Header().Set("X-Goog-Generation", "7")
		w.WriteHeader(http.StatusPartialContent)
		w.Write([]byte("0123456789"))
	})
	b := openScript(t, s, nil)
	key := "dir/a b+c?d%e"
	r, err := b.NewRangeReader(context.Background(), key, 10, 10, &blob.ReaderOptions{BeforeRead: pin(7)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	r.Close()
	if err != nil || string(got) != "0123456789" {
		t.Fatalf("read %q, %v", got, err)
	}
	var a ObjectAttrs
	if !r.As(&a) || a.Generation != 7 || r.Size() != 100 {
		t.Errorf("reader: generation %d, size %d; want 7, 100", a.Generation, r.Size())
	}
	reqs := s.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	q := reqs[0]
	if p := q.url.EscapedPath(); p != "/storage/v1/b/bkt/o/dir%2Fa%20b%2Bc%3Fd%25e" {
		t.Errorf("path %s", p)
	}
	if q.method != http.MethodGet || q.url.Query().Get("alt") != "media" || q.url.Query().Get("ifGenerationMatch") != "7" {
		t.Errorf("%s %s", q.method, q.url)
	}
	for h, want := range map[string]string{"Range": "bytes=10-19", "Accept-Encoding": "gzip", "User-Agent": userAgent} {
		if got := q.header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
}

// TestErrorCodes: each failure is one request (no retries), with the
// gcerrors code of its status, and the store's reason in its words.
func TestErrorCodes(t *testing.T) {
	var status int
	s := newScript(t, func(w http.ResponseWriter, r *request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"code":%d,"message":"scripted","errors":[{"reason":"r%d"}]}}`, status, status)
	})
	b := openScript(t, s, nil)
	ctx := context.Background()
	for st, want := range map[int]gcerrors.ErrorCode{
		http.StatusPreconditionFailed:  gcerrors.FailedPrecondition,
		http.StatusNotFound:            gcerrors.NotFound,
		http.StatusForbidden:           gcerrors.PermissionDenied,
		http.StatusUnauthorized:        gcerrors.PermissionDenied,
		http.StatusTooManyRequests:     gcerrors.ResourceExhausted,
		http.StatusInternalServerError: gcerrors.Internal,
		http.StatusServiceUnavailable:  gcerrors.Internal,
		http.StatusBadRequest:          gcerrors.InvalidArgument,
	} {
		status = st
		before := len(s.requests())
		_, err := b.NewRangeReader(ctx, "k", 0, 10, &blob.ReaderOptions{BeforeRead: pin(3)})
		if gcerrors.Code(err) != want {
			t.Errorf("%d: code %v, want %v (%v)", st, gcerrors.Code(err), want, err)
		}
		var e *Error
		if !errors.As(err, &e) || e.Status != st || e.Reason != fmt.Sprintf("r%d", st) || e.Message != "scripted" {
			t.Errorf("%d: error %v", st, err)
		}
		if _, err := b.Attributes(ctx, "k"); gcerrors.Code(err) != want {
			t.Errorf("%d: Attributes: code %v, want %v", st, gcerrors.Code(err), want)
		}
		if n := len(s.requests()) - before; n != 2 {
			t.Errorf("%d: %d requests for two calls", st, n)
		}
	}
	// A ranged read answered with the whole object from its start is
	// refused, not read from the wrong offset.
	s2 := newScript(t, func(w http.ResponseWriter, r *request) { w.Write([]byte("whole")) })
	if _, err := openScript(t, s2, nil).NewRangeReader(ctx, "k", 2, 2, nil); gcerrors.Code(err) != gcerrors.Unimplemented || !errors.Is(err, errIgnoredRange) {
		t.Errorf("a range ignored: %v", err)
	}
}

// upload is a scripted resumable upload server that follows the JSON
// API's documentation: it checks each chunk's Content-Range against what
// it holds, keeps at most keep bytes of each chunk that is not the last
// (a multiple of 256 KiB), answers 308 with the Range it holds, creates
// the object on the last chunk, and answers 499 to a cancellation.
type upload struct {
	mu        sync.Mutex
	keep      int // 0: all
	held      []byte
	object    []byte // once created
	cancelled bool
	ranges    []string
	meta      map[string]any
	query     url.Values
}

func (u *upload) answer(base func() string) func(w http.ResponseWriter, r *request) {
	return func(w http.ResponseWriter, r *request) {
		u.mu.Lock()
		defer u.mu.Unlock()
		switch {
		case r.method == http.MethodPost && r.url.Path == "/upload/storage/v1/b/bkt/o":
			u.query = r.url.Query()
			json.Unmarshal(r.body, &u.meta)
			w.Header().Set("Location", base()+"/session?upload_id=1")
			w.WriteHeader(http.StatusOK)
		case r.method == http.MethodPut && r.url.Path == "/session":
			cr := r.header.Get("Content-Range")
			u.ranges = append(u.ranges, cr)
			var first, last, total int64 = -1, -1, -1
			spec, tot, _ := strings.Cut(strings.TrimPrefix(cr, "bytes "), "/")
			if spec != "*" {
				a, b, _ := strings.Cut(spec, "-")
				first, _ = strconv.ParseInt(a, 10, 64)
				last, _ = strconv.ParseInt(b, 10, 64)
			}
			if tot != "*" {
				total, _ = strconv.ParseInt(tot, 10, 64)
			}
			if first >= 0 && (first != int64(len(u.held)) || last-first+1 != int64(len(r.body))) || first < 0 && len(r.body) != 0 {
				http.Error(w, "bad Content-Range "+cr, http.StatusBadRequest)
				return
			}
			body := r.body
			if total < 0 && u.keep > 0 && len(body) > u.keep {
				body = body[:u.keep]
			}
			if total < 0 && len(body)%(256<<10) != 0 {
				http.Error(w, "a chunk not a multiple of 256 KiB", http.StatusBadRequest)
				return
			}
			u.held = append(u.held, body...)
			if total >= 0 && int64(len(u.held)) == total {
				u.object = u.held
				fmt.Fprintf(w, `{"name":"k","size":"%d"}`, total)
				return
			}
			if len(u.held) > 0 {
				w.Header().Set("Range", fmt.Sprintf("bytes=0-%d", len(u.held)-1))
			}
			w.WriteHeader(http.StatusPermanentRedirect)
		case r.method == http.MethodDelete && r.url.Path == "/session":
			u.cancelled = true
			w.WriteHeader(499)
		default:
			http.Error(w, "unexpected", http.StatusNotImplemented)
		}
	}
}

// TestResumableUpload: an object of more than a chunk is sent in chunks
// of a resumable upload, each going on from what the store says it holds
// (which may be less than it was sent), and appears when the writer is
// closed, conditional on there being none when IfNotExist.
func TestResumableUpload(t *testing.T) {
	u := &upload{keep: 256 << 10}
	var s *script
	s = newScript(t, u.answer(func() string { return s.URL }))
	b := openScript(t, s, &Options{ChunkSize: 512 << 10})
	body := data(1<<20 + 12345)
	w, err := b.NewWriter(context.Background(), "k", &blob.WriterOptions{ContentType: "application/x-test", IfNotExist: true})
	if err != nil {
		t.Fatal(err)
	}
	for off := 0; off < len(body); off += 100_000 {
		if _, err := w.Write(body[off:min(off+100_000, len(body))]); err != nil {
			t.Fatal(err)
		}
	}
	if u.object != nil {
		t.Fatal("the object was created before Close")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(u.object, body) {
		t.Fatalf("the store holds %d bytes, not the %d written", len(u.object), len(body))
	}
	if u.query.Get("uploadType") != "resumable" || u.query.Get("name") != "k" || u.query.Get("ifGenerationMatch") != "0" {
		t.Errorf("the upload was started with %v", u.query)
	}
	if u.meta["name"] != "k" || u.meta["contentType"] != "application/x-test" {
		t.Errorf("metadata %v", u.meta)
	}
	// 512 KiB sent, 256 KiB kept each time, until the last.
	t.Log(u.ranges)
	if u.ranges[0] != "bytes 0-524287/*" || u.ranges[1] != "bytes 262144-786431/*" || !strings.HasSuffix(u.ranges[len(u.ranges)-1], fmt.Sprintf("/%d", len(body))) {
		t.Errorf("Content-Ranges %q", u.ranges)
	}
	if u.cancelled {
		t.Error("a completed upload was cancelled")
	}
}

// TestUploadEnds: a writer whose context ends, or whose chunk fails,
// cancels its resumable upload and creates no object.
func TestUploadEnds(t *testing.T) {
	u := &upload{}
	var s *script
	s = newScript(t, u.answer(func() string { return s.URL }))
	b := openScript(t, s, &Options{ChunkSize: 256 << 10})
	ctx, cancel := context.WithCancel(context.Background())
	w, err := b.NewWriter(ctx, "k", &blob.WriterOptions{ContentType: "application/octet-stream"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data(600 << 10)); err != nil {
		t.Fatal(err)
	}
	if len(u.held) != 512<<10 {
		t.Fatalf("the store holds %d bytes, want two chunks", len(u.held))
	}
	cancel()
	if err := w.Close(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Close after the context ended: %v", err)
	}
	if u.object != nil || !u.cancelled {
		t.Fatalf("object %v, cancelled %v", u.object != nil, u.cancelled)
	}
}

// TestSingleUpload: an object of up to a chunk is one multipart request:
// the metadata, then the bytes.
func TestSingleUpload(t *testing.T) {
	var meta map[string]any
	var media []byte
	var query url.Values
	s := newScript(t, func(w http.ResponseWriter, r *request) {
		query = r.url.Query()
		mt, params, err := mime.ParseMediaType(r.header.Get("Content-Type"))
		if err != nil || mt != "multipart/related" {
			http.Error(w, "not multipart/related", http.StatusBadRequest)
			return
		}
		mr := multipart.NewReader(bytes.NewReader(r.body), params["boundary"])
		p, err := mr.NextPart()
		if err != nil || json.NewDecoder(p).Decode(&meta) != nil {
			http.Error(w, "no metadata", http.StatusBadRequest)
			return
		}
		if p, err = mr.NextPart(); err != nil || p.Header.Get("Content-Type") != "application/x-test" {
			http.Error(w, "no media", http.StatusBadRequest)
			return
		}
		media, _ = io.ReadAll(p)
		if _, err := mr.NextPart(); err != io.EOF {
			http.Error(w, "more parts", http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, `{"name":"k","size":"%d"}`, len(media))
	})
	b := openScript(t, s, nil)
	body := data(1000)
	if err := b.WriteAll(context.Background(), "k", body, &blob.WriterOptions{ContentType: "application/x-test", IfNotExist: true}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(media, body) || meta["name"] != "k" || query.Get("uploadType") != "multipart" || query.Get("ifGenerationMatch") != "0" {
		t.Fatalf("media %d bytes (equal %v), metadata %v, query %v", len(media), bytes.Equal(media, body), meta, query)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("%d requests", n)
	}
}

// TestCopySteps: a copy the store makes in steps goes on with the token
// of each step until it is done.
func TestCopySteps(t *testing.T) {
	s := newScript(t, func(w http.ResponseWriter, r *request) {
		if r.url.Query().Get("rewriteToken") == "" {
			io.WriteString(w, `{"done":false,"rewriteToken":"tok/1"}`)
			return
		}
		io.WriteString(w, `{"done":true,"resource":{"name":"b/c"}}`)
	})
	noReplace := &blob.CopyOptions{BeforeCopy: func(as func(any) bool) error {
		var c *Conditions
		if !as(&c) {
			return errors.New("no *Conditions")
		}
		c.DoesNotExist = true
		return nil
	}}
	if err := openScript(t, s, nil).Copy(context.Background(), "b/c", "a", noReplace); err != nil {
		t.Fatal(err)
	}
	reqs := s.requests()
	if len(reqs) != 2 || reqs[0].url.EscapedPath() != "/storage/v1/b/bkt/o/a/rewriteTo/b/bkt/o/b%2Fc" ||
		reqs[0].method != http.MethodPost || reqs[1].url.Query().Get("rewriteToken") != "tok/1" {
		t.Fatalf("requests %v", reqs)
	}
	for _, r := range reqs {
		if r.url.Query().Get("ifGenerationMatch") != "0" {
			t.Errorf("a step of a copy that may not replace: %s", r.url)
		}
	}
	refusing := newScript(t, func(w http.ResponseWriter, r *request) {
		http.Error(w, `{"error":{"code":412,"message":"At least one of the pre-conditions you specified did not hold."}}`, http.StatusPreconditionFailed)
	})
	if err := openScript(t, refusing, nil).Copy(context.Background(), "b", "a", noReplace); gcerrors.Code(err) != gcerrors.FailedPrecondition {
		t.Errorf("a copy over an object: %v", err)
	}
}

// openFake opens the bucket bkt of a fake-gcs-server.
func openFake(t *testing.T) (*gcsserver.Server, *blob.Bucket) {
	t.Helper()
	s := gcsserver.Start(t, "bkt")
	b, err := OpenBucket("bkt", &Options{Endpoint: s.URL, ChunkSize: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return s, b
}

// TestListPages: listings come in key order, page after page, with the
// "directories" of a delimiter in their place.
func TestListPages(t *testing.T) {
	s, b := openFake(t)
	keys := []string{"a/1", "a/2", "a/b/3", "a/c", "a/d/4", "a/e/5", "a/f", "b/6", "a/b/7"}
	for _, k := range keys {
		s.Put(t, "bkt", k, []byte(k))
	}
	ctx := context.Background()
	list := func(opts *blob.ListOptions, size int) []string {
		var out []string
		token := blob.FirstPageToken
		for pages := 0; ; pages++ {
			objs, next, err := b.ListPage(ctx, token, size, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) > size || pages > len(keys) {
				t.Fatalf("a page of %d objects, page %d", len(objs), pages)
			}
			for _, o := range objs {
				k := o.Key
				if o.IsDir {
					k += "(dir)"
				}
				out = append(out, k)
			}
			if next == nil {
				return out
			}
			token = next
		}
	}
	var want []string
	for _, k := range keys {
		if strings.HasPrefix(k, "a/") {
			want = append(want, k)
		}
	}
	slices.Sort(want)
	if got := list(&blob.ListOptions{Prefix: "a/"}, 2); !slices.Equal(got, want) {
		t.Errorf("pages of 2: %q, want %q", got, want)
	}
	want = []string{"a/1", "a/2", "a/b/(dir)", "a/c", "a/d/(dir)", "a/e/(dir)", "a/f"}
	if got := list(&blob.ListOptions{Prefix: "a/", Delimiter: "/"}, 1000); !slices.Equal(got, want) {
		t.Errorf("with a delimiter: %q, want %q", got, want)
	}
}

// TestConditionalCreate: an upload that may not replace an object fails
// with FailedPrecondition, leaving the object untouched, when one appears
// while it is written: the store's own condition (ifGenerationMatch=0),
// small and large.
func TestConditionalCreate(t *testing.T) {
	s, b := openFake(t)
	ctx := context.Background()
	for _, n := range []int{10, 1 << 20} {
		w, err := b.NewWriter(ctx, "k", &blob.WriterOptions{ContentType: "application/octet-stream", IfNotExist: true})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data(n))
		s.Put(t, "bkt", "k", []byte("theirs"))
		if err := w.Close(); gcerrors.Code(err) != gcerrors.FailedPrecondition {
			t.Fatalf("%d bytes over an object that appeared: %v", n, err)
		}
		if got, _ := s.Get(t, "bkt", "k"); string(got) != "theirs" {
			t.Fatalf("the object that appeared was replaced: %d bytes", len(got))
		}
		s.Delete(t, "bkt", "k")
	}
	// Without the condition, it is replaced; the resumable upload is
	// what the log shows for a large one.
	s.Put(t, "bkt", "k", []byte("theirs"))
	s.Log()
	body := data(1 << 20)
	if err := b.WriteAll(ctx, "k", body, &blob.WriterOptions{ContentType: "application/octet-stream"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(t, "bkt", "k"); !bytes.Equal(got, body) {
		t.Fatal("the replacing upload left other bytes")
	}
	log := s.Log()
	if len(log) != 5 || !strings.Contains(log[0], "uploadType=resumable") || strings.Contains(log[0], "ifGenerationMatch") {
		t.Errorf("requests %q, want a resumable upload in four chunks", log)
	}
	a, err := b.Attributes(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	var o ObjectAttrs
	if !a.As(&o) || o.Generation == 0 || a.Size != int64(len(body)) || a.ETag == "" {
		t.Errorf("attributes: generation %d, size %d, ETag %q", o.Generation, a.Size, a.ETag)
	}
}

// TestURLOpener: the URL's parameters, the emulator, and Application
// Default Credentials (a user's, from GOOGLE_APPLICATION_CREDENTIALS,
// exchanged at its token URL for a token every request carries).
func TestURLOpener(t *testing.T) {
	ctx := context.Background()
	open := func(o *URLOpener, raw string) (*blob.Bucket, error) {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		return o.OpenBucketURL(ctx, u)
	}
	t.Setenv("STORAGE_EMULATOR_HOST", "")
	for _, bad := range []string{"gs://bkt?grpc=true", "gs://bkt?anonymous=maybe", "gs://bkt?anonymous=true&endpoint=ftp://x"} {
		if _, err := open(new(URLOpener), bad); err == nil {
			t.Errorf("%s opened", bad)
		}
	}
	// No credentials: requests go without, and a refusal says why.
	refusing := newScript(t, func(w http.ResponseWriter, r *request) {
		if r.header.Get("Authorization") != "" {
			http.Error(w, "credentials sent", http.StatusBadRequest)
			return
		}
		http.Error(w, `{"error":{"code":401,"message":"Anonymous caller"}}`, http.StatusUnauthorized)
	})
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", filepath.Join(t.TempDir(), "missing.json"))
	b, err := open(new(URLOpener), "gs://bkt?endpoint="+url.QueryEscape(refusing.URL))
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Attributes(ctx, "k")
	if gcerrors.Code(err) != gcerrors.PermissionDenied || !strings.Contains(err.Error(), "no credentials") || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("a refusal without credentials: %v", err)
	}
	b.Close()

	var tokens int
	tok := newScript(t, func(w http.ResponseWriter, r *request) {
		q, _ := url.ParseQuery(string(r.body))
		if q.Get("grant_type") != "refresh_token" || q.Get("refresh_token") != "refresh" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":"invalid_grant"}`)
			return
		}
		tokens++
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"access_token":"secret-token","token_type":"Bearer","expires_in":3600}`)
	})
	key := filepath.Join(t.TempDir(), "adc.json")
	adc := fmt.Sprintf(`{"type":"authorized_user","client_id":"c","client_secret":"s","refresh_token":"refresh","token_uri":%q}`, tok.URL+"/token")
	if err := os.WriteFile(key, []byte(adc), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", key)
	store := newScript(t, func(w http.ResponseWriter, r *request) {
		io.WriteString(w, `{"name":"k","size":"3","generation":"9"}`)
	})
	o := new(URLOpener)
	for range 2 {
		b, err := open(o, "gs://bkt?endpoint="+url.QueryEscape(store.URL))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.Attributes(ctx, "k"); err != nil {
			t.Fatal(err)
		}
		b.Close()
	}
	b, err = open(o, "gs://bkt?anonymous=true&endpoint="+url.QueryEscape(store.URL))
	if err != nil {
		t.Fatal(err)
	}
	b.Attributes(ctx, "k")
	b.Close()
	reqs := store.requests()
	if len(reqs) != 3 || tokens != 1 {
		t.Fatalf("%d requests, %d tokens", len(reqs), tokens)
	}
	for i, r := range reqs {
		want := "Bearer secret-token"
		if i == 2 {
			want = "" // anonymous
		}
		if got := r.header.Get("Authorization"); got != want {
			t.Errorf("request %d: Authorization %q, want %q", i, got, want)
		}
	}

	// Credentials the token endpoint refuses: denied, not to be retried.
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(strings.Replace(adc, `"refresh"`, `"revoked"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", bad)
	b, err = open(new(URLOpener), "gs://bkt?endpoint="+url.QueryEscape(store.URL))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Attributes(ctx, "k"); gcerrors.Code(err) != gcerrors.PermissionDenied {
		t.Errorf("refused credentials: %v (code %v)", err, gcerrors.Code(err))
	}
	b.Close()
	if n := len(store.requests()); n != 3 {
		t.Errorf("a request with refused credentials reached the store (%d requests)", n)
	}

	// The emulator: no credentials, plain HTTP.
	s := gcsserver.Start(t, "bkt")
	s.Put(t, "bkt", "k", []byte("abc"))
	b, err = open(new(URLOpener), "gs://bkt")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if got, err := b.ReadAll(ctx, "k"); err != nil || string(got) != "abc" {
		t.Fatalf("from the emulator: %q, %v", got, err)
	}
}
