package main

import (
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestOutputCleanup checks that an output file is registered for removal
// if the process must stop, and unregistered once done.
func TestOutputCleanup(t *testing.T) {
	dir := t.TempDir()
	var sb strings.Builder
	a := newApp(strings.NewReader(""), &sb, &sb)
	e := &env{ctx: t.Context(), app: a, name: "test", stdout: &sb, stderr: &sb}
	o, err := e.createOutput(filepath.Join(dir, "a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(o, "partial")
	done, err := e.createOutput(filepath.Join(dir, "b.txt"))
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(done, "complete")
	if err := done.Commit(); err != nil {
		t.Fatal(err)
	}
	if len(a.cleanups) != 1 {
		t.Fatalf("%d cleanups registered, want 1", len(a.cleanups))
	}
	a.abort()
	if names := dirNames(t, dir); !reflect.DeepEqual(names, []string{"b.txt"}) {
		t.Errorf("files after abort: %q", names)
	}
	if sb.String() != "trevni: interrupted\n" {
		t.Errorf("abort printed %q", sb.String())
	}
	o.Abort() // after the forced abort: harmless
	// Outputs created after the abort are removed at once.
	late, err := e.createOutput(filepath.Join(dir, "c.txt"))
	if err == nil {
		io.WriteString(late, "x")
		late.Commit()
	}
	if names := dirNames(t, dir); !reflect.DeepEqual(names, []string{"b.txt"}) {
		t.Errorf("files after a late output: %q", names)
	}
}

func TestOutputStdout(t *testing.T) {
	var sb strings.Builder
	e := &env{ctx: t.Context(), app: newApp(nil, &sb, &sb), name: "test", stdout: &sb, stderr: &sb}
	for _, name := range []string{"", "-"} {
		sb.Reset()
		o, err := e.createOutput(name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(o, "data")
		if o.Name() != "standard output" {
			t.Errorf("name %q", o.Name())
		}
		if sb.Len() != 0 {
			t.Error("output not buffered")
		}
		if err := o.Commit(); err != nil || sb.String() != "data" {
			t.Errorf("Commit: %v, wrote %q", err, sb.String())
		}
	}
}
