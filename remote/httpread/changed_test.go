package httpread_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trevni-go/trevni/remote/httpread"
	"github.com/trevni-go/trevni/remote/store"
)

// version is one version of a resource a test server serves.
type version struct {
	body    []byte
	modTime time.Time // zero: no Last-Modified
}

// changingServer serves the version cur holds now, with http.ServeContent
// (which honours Range, If-Match, If-Unmodified-Since and If-Range), and
// an ETag of its bytes when etag is set. serve, when set, is asked first
// (with nil for a resource deleted) and answers in its place when it says
// so.
func changingServer(t *testing.T, cur *atomic.Pointer[version], etag bool, serve func(w http.ResponseWriter, r *http.Request, v *version) bool) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := cur.Load()
		if etag && v != nil {
			w.Header().Set("ETag", fmt.Sprintf(`"%08x"`, crc32.ChecksumIEEE(v.body)))
		}
		if serve != nil && serve(w, r, v) {
			return
		}
		http.ServeContent(w, r, "data", v.modTime, bytes.NewReader(v.body))
	}))
	t.Cleanup(s.Close)
	return s
}

// A resource replaced between two reads of a File, by one of the same
// size, is read as it was opened before and fails with an error wrapping
// ErrChanged (and ErrRemote) after, saying what changed, rather than give
// the new bytes as the old: on a server that gives an ETag (which refuses
// If-Match, 412), on one that gives only a Last-Modified (which refuses
// If-Unmodified-Since), on ones that ignore those conditions but give the
// new version's ETag or Last-Modified, or the whole new resource, for a
// resource deleted (404), and for one cut short on a server that gives
// neither ETag nor Last-Modified (416). A File reopened after the change fails so too.
func TestReplacedResourceIsErrChanged(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	first := &version{bytes.Repeat([]byte("0123456789"), 100), t0}
	second := &version{bytes.Repeat([]byte("abcdefghij"), 100), t0.Add(time.Minute)}
	ignoreConditions := func(w http.ResponseWriter, r *http.Request, v *version) bool {
		r.Header.Del("If-Match")
		r.Header.Del("If-Unmodified-Since")
		return false
	}
	cases := []struct {
		name   string
		etag   bool
		first  *version
		second *version // nil: deleted
		serve  func(w http.ResponseWriter, r *http.Request, v *version) bool
		want   string
	}{
		{"ETag, If-Match refused", true, first, second, nil, "412 Precondition Failed"},
		{"Last-Modified only, If-Unmodified-Since refused", false, first, second, nil, "Last-Modified " + t0.Format(http.TimeFormat)},
		{"ETag, conditions ignored", true, first, second, ignoreConditions, "and is now"},
		{"Last-Modified only, conditions ignored", false, first, second, ignoreConditions, "now " + second.modTime.Format(http.TimeFormat)},
		{"ETag, the whole new resource", true, first, second, func(w http.ResponseWriter, r *http.Request, v *version) bool {
			if v != first {
				w.Write(v.body) // 200, the Range and If-Match ignored
				return true
			}
			return false
		}, "and is now"},
		{"deleted", true, first, nil, nil, "404 Not Found"},
		{"neither, cut short", false, &version{body: first.body}, &version{body: first.body[:100]}, nil, "416 Requested Range Not Satisfiable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var cur atomic.Pointer[version]
			cur.Store(c.first)
			s := changingServer(t, &cur, c.etag, func(w http.ResponseWriter, r *http.Request, v *version) bool {
				if v == nil {
					http.NotFound(w, r)
					return true
				}
				return c.serve != nil && c.serve(w, r, v)
			})
			h, err := httpread.Open(context.Background(), s.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 20)
			if _, err := h.ReadAt(buf, 500); err != nil || !bytes.Equal(buf, c.first.body[500:520]) {
				t.Fatalf("before the change: %q, %v", buf, err)
			}
			cur.Store(c.second)
			for _, f := range []interface {
				ReadAt([]byte, int64) (int, error)
			}{h, h.Reopen(context.Background())} {
				n, err := f.ReadAt(buf, 500)
				if !errors.Is(err, httpread.ErrChanged) || !errors.Is(err, store.ErrChanged) || !errors.Is(err, httpread.ErrRemote) ||
					!strings.Contains(err.Error(), s.URL+": bytes 500-519: ") || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("after the change: %d bytes %q, %v; want ErrChanged saying %q", n, buf[:n], err, c.want)
				}
			}
		})
	}
}

// A server that gives no ETag serves a resource that is replaced, between
// two reads, by one of another size: the read after fails, saying that the
// resource changed, rather than mixing bytes of the two; a read of the
// resource as it was opened, before, gets its bytes.
func TestResourceOfAnotherSizeIsAnError(t *testing.T) {
	var cur atomic.Pointer[version]
	first := &version{body: bytes.Repeat([]byte("0123456789"), 100)}
	cur.Store(first)
	s := changingServer(t, &cur, false, nil)
	h, err := httpread.Open(context.Background(), s.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h.Size() != int64(len(first.body)) || h.Version() != "" {
		t.Fatalf("size %d, version %q", h.Size(), h.Version())
	}
	buf := make([]byte, 20)
	if _, err := h.ReadAt(buf, 500); err != nil || !bytes.Equal(buf, first.body[500:520]) {
		t.Fatalf("before the change: %q, %v", buf, err)
	}
	cur.Store(&version{body: bytes.Repeat([]byte("abcdefghij"), 150)})
	_, err = h.ReadAt(buf, 500)
	if !errors.Is(err, httpread.ErrChanged) || !errors.Is(err, httpread.ErrRemote) || !strings.Contains(err.Error(), "1500 bytes now, 1000 when it was opened") {
		t.Fatalf("after the change: %q, %v", buf, err)
	}
	// Reopened, the File is held to the size found first too.
	r := h.Reopen(context.Background())
	if _, err := r.ReadAt(buf, 0); !errors.Is(err, httpread.ErrChanged) || !strings.Contains(err.Error(), "changed while it was read") {
		t.Fatalf("reopened after the change: %v", err)
	}
}

// A weak ETag is never sent in If-Match, which a weak ETag never matches:
// a resource that gives one is read, and held to it by the answers.
func TestWeakETagIsRead(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789"), 100)
	etag := atomic.Pointer[string]{}
	w1 := `W/"one"`
	etag.Store(&w1)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", *etag.Load())
		http.ServeContent(w, r, "data", time.Time{}, bytes.NewReader(body))
	}))
	defer s.Close()
	h, err := httpread.Open(context.Background(), s.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 20)
	if _, err := h.ReadAt(buf, 100); err != nil || !bytes.Equal(buf, body[100:120]) {
		t.Fatalf("%q, %v", buf, err)
	}
	w2 := `W/"two"`
	etag.Store(&w2)
	if _, err := h.ReadAt(buf, 100); !errors.Is(err, httpread.ErrChanged) || !strings.Contains(err.Error(), `its ETag was W/"one" and is now W/"two"`) {
		t.Fatalf("after the change: %v", err)
	}
}
