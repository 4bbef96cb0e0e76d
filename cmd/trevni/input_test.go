package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenInput checks the streaming input that conversion commands use.
func TestOpenInput(t *testing.T) {
	var sb strings.Builder
	ctx, cancel := context.WithCancel(t.Context())
	e := &env{ctx: ctx, app: newApp(nil, &sb, &sb), name: "test", stdin: strings.NewReader("from stdin"), stdout: &sb, stderr: &sb}
	r, err := e.openInput("-")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(r); err != nil || string(b) != "from stdin" {
		t.Errorf("stdin: %q, %v", b, err)
	}
	r.Close()
	r, err = e.openInput(tinyRLE)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(r); err != nil || len(b) != 355 {
		t.Errorf("file: %d bytes, %v", len(b), err)
	}
	r.Close()
	if _, err := e.openInput(interopDir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	if _, err := e.openInput(interopDir + "/nosuch"); err == nil {
		t.Error("missing file opened")
	}
	// Reading standard input stops once the run is interrupted.
	e.stdin = strings.NewReader("more")
	r, _ = e.openInput("-")
	cancel()
	if _, err := io.ReadAll(r); err != context.Canceled {
		t.Errorf("interrupted read: %v", err)
	}
}

// TestStdinDefault checks that a reading command with no input reads
// standard input when it is not a terminal, and is a usage error when it
// is one.
func TestStdinDefault(t *testing.T) {
	email := filepath.Join(interopDir, "email", "email.deflate.crc32.trv")
	data := readFile(t, email)
	for _, cmd := range []string{"dump", "meta", "validate", "tojson", "schema"} {
		named := runIn(t, bytes.NewReader(data), cmd, "-")
		r := runIn(t, bytes.NewReader(data), cmd)
		if r != named {
			t.Errorf("%s < file: %+v, want as with -: %+v", cmd, r, named)
		}
		var out, errOut bytes.Buffer
		a := newApp(bytes.NewReader(data), &out, &errOut)
		a.stdinTTY = true
		if code := a.run(context.Background(), []string{cmd}); code != exitUsage || !strings.Contains(errOut.String(), "terminal") {
			t.Errorf("%s with a terminal: status %d, stderr %q", cmd, code, errOut.String())
		}
	}
	f, err := os.Open(email)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if r := runBin(t, f, "tojson"); r.code != 0 || r.stdout != runIn(t, nil, "tojson", email).stdout {
		t.Errorf("tojson < file: %+v", r)
	}
}
