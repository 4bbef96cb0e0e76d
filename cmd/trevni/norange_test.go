package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// noRangeServer serves data at every path as a server without byte ranges
// does: every GET is answered 200 with the whole body, Range headers
// ignored; withLength says whether the answer declares its length.
func noRangeServer(t *testing.T, data []byte, withLength bool) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if withLength {
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		}
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			for b := data; len(b) > 0; {
				n := min(len(b), 4096)
				w.Write(b[:n])
				w.(http.Flusher).Flush() // without a length: chunks
				b = b[n:]
			}
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// emptyDir fails the test if dir holds anything.
func emptyDir(t *testing.T, dir, when string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) > 0 {
		t.Errorf("%s: %s holds %s", when, dir, ents[0].Name())
	}
}

// TestNoRangeServerDownloads: a file at a server that serves no byte
// ranges is downloaded into a temporary file, read as the local file
// reads, with a note, and the temporary file is removed; one larger than
// --max-download is refused naming the flag.
func TestNoRangeServerDownloads(t *testing.T) {
	dir := t.TempDir()
	trv := bigFile(t, dir)
	data := readFile(t, trv)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	local := runIn(t, nil, "tojson", trv)
	if local.code != 0 || local.stdout == "" {
		t.Fatalf("tojson of the local file: %+v", local)
	}
	for _, withLength := range []bool{true, false} {
		s := noRangeServer(t, data, withLength)
		url := s.URL + "/big.trv"
		r := runIn(t, nil, "tojson", url)
		if r.code != 0 || r.stdout != local.stdout {
			t.Fatalf("length %v: tojson of the URL: status %d, %d bytes, stderr %s", withLength, r.code, len(r.stdout), r.stderr)
		}
		note := fmt.Sprintf("trevni: tojson: %s: the server does not serve byte ranges: downloaded %d bytes to a temporary file\n", url, len(data))
		if r.stderr != note {
			t.Errorf("length %v: stderr %q, want %q", withLength, r.stderr, note)
		}
		emptyDir(t, tmp, "after tojson")
		if r := runIn(t, nil, "count", "--quiet", url); r.code != 0 || r.stdout != "200000\n" || r.stderr != "" {
			t.Errorf("length %v: count --quiet: %+v", withLength, r)
		}
		emptyDir(t, tmp, "after count")
		limit := strconv.Itoa(len(data) - 1)
		r = runIn(t, nil, "tojson", "--max-download", limit, url)
		if r.code != exitError || r.stdout != "" || !strings.Contains(r.stderr, url) || !strings.Contains(r.stderr, "--max-download") || !strings.Contains(r.stderr, "download limit of "+limit+" bytes") {
			t.Errorf("length %v: a file over --max-download: %+v", withLength, r)
		}
		emptyDir(t, tmp, "after the refusal")
		if r := runIn(t, nil, "count", "--max-download", strconv.Itoa(len(data)), url); r.code != 0 || r.stdout != "200000\n" {
			t.Errorf("length %v: a file of exactly --max-download: %+v", withLength, r)
		}
		emptyDir(t, tmp, "after count")
	}
	if got, err := filepath.Glob(filepath.Join(dir, "*")); err != nil || len(got) != 1 {
		t.Errorf("the served directory holds %v", got)
	}
}
