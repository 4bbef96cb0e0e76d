package gcs

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gocloud.dev/blob"
)

// TestShortCommitRemoved: a store that completes a session with what it
// holds when asked its status (as fake-gcs-server does), after a chunk
// failed, makes a short object: the failed upload removes it, that
// generation only, and says so; no object is left under the name.
func TestShortCommitRemoved(t *testing.T) {
	var puts atomic.Int64
	var s *script
	s = newScript(t, func(w http.ResponseWriter, r *request) {
		switch {
		case r.method == http.MethodPost:
			w.Header().Set("Location", s.URL+"/session?upload_id=1")
		case r.method == http.MethodPut && len(r.body) > 0:
			if puts.Add(1) == 1 {
				w.Header().Set("Range", fmt.Sprintf("bytes=0-%d", len(r.body)-1))
				w.WriteHeader(http.StatusPermanentRedirect)
				return
			}
			http.Error(w, "down", http.StatusServiceUnavailable)
		case r.method == http.MethodPut:
			// The status query: completes the session with the first chunk.
			fmt.Fprintf(w, `{"name":"k","size":"%d","generation":"7"}`, 256<<10)
		case r.method == http.MethodDelete && strings.HasPrefix(r.url.Path, "/storage/v1/b/bkt/o/k"):
			w.WriteHeader(http.StatusNoContent)
		case r.method == http.MethodDelete:
			w.WriteHeader(499)
		default:
			http.Error(w, "unexpected", http.StatusNotImplemented)
		}
	})
	b := retrying(t, s.URL, "bkt", 256<<10, time.Millisecond)
	w, err := b.NewWriter(context.Background(), "k", &blob.WriterOptions{ContentType: "application/octet-stream"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Write(data(600 << 10))
	if err == nil {
		err = w.Close()
	} else {
		w.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "the object made (generation 7, 262144 bytes) was removed") {
		t.Fatalf("upload: %v, want the short object removed", err)
	}
	var removed bool
	for _, r := range s.requests() {
		if r.method == http.MethodDelete && r.url.Path == "/storage/v1/b/bkt/o/k" {
			if g := r.url.Query().Get("ifGenerationMatch"); g != "7" {
				t.Errorf("the removal was made with ifGenerationMatch=%q, want 7", g)
			}
			removed = true
		}
	}
	if !removed {
		t.Fatal("no removal of the short object")
	}
	t.Log(err)
}
