package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni/stores/storetest/s3server"
)

// A store that stops answering one kind of request (the upload of an
// object, the listing of a glob, the look at an object) fails the command
// after --http-timeout and the SDK's retries, naming the flag, and a
// failed upload leaves no object: never a hang.
func TestObjectStoreStall(t *testing.T) {
	s := s3server.Start(t, "bkt")
	email, err := filepath.Abs(filepath.Join(interopDir, "email"))
	if err != nil {
		t.Fatal(err)
	}
	r := runIn(t, nil, "fromavro", "--quiet", filepath.Join(email, "input.avro"), "s3://bkt/logs/a.trv")
	if r.code != 0 {
		t.Fatalf("fromavro: %+v", r)
	}
	target, _ := url.Parse(s.URL)
	next := httputil.NewSingleHostReverseProxy(target)
	var hang string // the method of the requests that hang, and a part of their URL
	release := make(chan struct{})
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if method, part, _ := strings.Cut(hang, " "); r.Method == method && strings.Contains(r.URL.String(), part) {
			io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		next.ServeHTTP(w, r)
	}))
	defer p.Close()
	defer close(release)
	t.Setenv("AWS_ENDPOINT_URL", p.URL)
	// One try a request: that the SDK retries a stalled request is
	// stores/objstore's test; this one checks that --http-timeout reaches
	// each request and what the command says.
	t.Setenv("AWS_MAX_ATTEMPTS", "1")
	dir := t.TempDir()
	for _, c := range []struct {
		hang string
		args []string
	}{
		{"PUT /bkt/out.trv", []string{"fromavro", "--quiet", filepath.Join(email, "input.avro"), "s3://bkt/out.trv"}},
		{"GET list-type", []string{"count", "s3://bkt/logs/*.trv"}},
		{"HEAD /bkt/logs/a.trv", []string{"count", "s3://bkt/logs/a.trv"}},
		{"HEAD /bkt/new.trv", []string{"fromavro", "--quiet", filepath.Join(email, "input.avro"), "s3://bkt/new.trv"}},
	} {
		hang = c.hang
		start := time.Now()
		r := runLimited(t, dir, 60*time.Second, nil, append(c.args, "--http-timeout", "300ms")...)
		checkHostile(t, r, c.args[0], "the store stalled", dir)
		if !strings.Contains(r.stderr, "--http-timeout") {
			t.Errorf("%s: error %q does not name --http-timeout", c.hang, r.stderr)
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("%s: took %v", c.hang, d)
		}
		t.Logf("%s: %v: %s", c.hang, time.Since(start).Round(time.Millisecond), strings.TrimSpace(r.stderr))
	}
	hang = ""
	for _, k := range s.Keys(t, "bkt") {
		if k != "logs/a.trv" {
			t.Errorf("left %s", k)
		}
	}
}
