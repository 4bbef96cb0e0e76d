package httpread_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trevni-go/trevni/remote/httpread"
)

// A server that gives no ETag serves a resource that is replaced, between
// two reads, by one of another size: the read after fails, saying that the
// resource changed, rather than mixing bytes of the two; a read of the
// resource as it was opened, before, gets its bytes.
func TestResourceOfAnotherSizeIsAnError(t *testing.T) {
	var content atomic.Pointer[[]byte]
	first := bytes.Repeat([]byte("0123456789"), 100)
	content.Store(&first)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "data", time.Time{}, bytes.NewReader(*content.Load()))
	}))
	defer s.Close()
	h, err := httpread.Open(context.Background(), s.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h.Size() != int64(len(first)) || h.Version() != "" {
		t.Fatalf("size %d, version %q", h.Size(), h.Version())
	}
	buf := make([]byte, 20)
	if _, err := h.ReadAt(buf, 500); err != nil || !bytes.Equal(buf, first[500:520]) {
		t.Fatalf("before the change: %q, %v", buf, err)
	}
	second := bytes.Repeat([]byte("abcdefghij"), 150)
	content.Store(&second)
	_, err = h.ReadAt(buf, 500)
	if err == nil || !errors.Is(err, httpread.ErrRemote) || !strings.Contains(err.Error(), "1500 bytes now, 1000 when it was opened") {
		t.Fatalf("after the change: %q, %v", buf, err)
	}
	// Reopened, the File is held to the size found first too.
	r := h.Reopen(context.Background())
	if _, err := r.ReadAt(buf, 0); err == nil || !strings.Contains(err.Error(), "changed while it was read") {
		t.Fatalf("reopened after the change: %v", err)
	}
}
