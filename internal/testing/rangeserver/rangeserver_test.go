package rangeserver

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

func get(t *testing.T, url, rng string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rng != "" {
		req.Header.Set("Range", rng)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body) // a cut body ends in an error after what was sent
	return resp.StatusCode, b
}

func TestRangesCountsAndFailure(t *testing.T) {
	data := []byte("0123456789abcdefghij")
	s := Bytes(t, data, &Options{FailAfter: 1})
	if code, b := get(t, s.URL+"/x", "bytes=2-5"); code != http.StatusPartialContent || !bytes.Equal(b, data[2:6]) {
		t.Fatalf("first range: %d %q", code, b)
	}
	if code, b := get(t, s.URL+"/x", "bytes=10-19"); code != http.StatusPartialContent || !bytes.Equal(b, data[10:15]) {
		t.Fatalf("range after FailAfter: %d %q, want half of it", code, b)
	}
	if code, b := get(t, s.URL+"/x", ""); code != http.StatusOK || !bytes.Equal(b, data) {
		t.Fatalf("whole file: %d %q", code, b)
	}
	if s.Requests.Load() != 3 || s.Sent.Load() != 4+5+20 {
		t.Fatalf("%d requests, %d bytes sent", s.Requests.Load(), s.Sent.Load())
	}
	s.Reset()
	if code, b := get(t, s.URL+"/x", "bytes=0-3"); code != http.StatusPartialContent || !bytes.Equal(b, data[:4]) || s.Requests.Load() != 1 {
		t.Fatalf("after Reset: %d %q, %d requests", code, b, s.Requests.Load())
	}
}

func TestDirAndNoHead(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.trv"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Dir(t, dir, &Options{NoHead: true})
	if code, b := get(t, s.URL+"/a.trv", "bytes=1-2"); code != http.StatusPartialContent || string(b) != "el" {
		t.Fatalf("a.trv: %d %q", code, b)
	}
	if code, _ := get(t, s.URL+"/missing.trv", ""); code != http.StatusNotFound {
		t.Fatalf("missing file: %d", code)
	}
	resp, err := http.Head(s.URL + "/a.trv")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("HEAD: %d", resp.StatusCode)
	}
}
