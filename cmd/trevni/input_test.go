package main

import (
	"context"
	"io"
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
