package main

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestAtomicCommit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	a, err := createAtomic(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(a, "hello\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("target exists before Commit: %v", err)
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := string(readFile(t, path)); got != "hello\n" {
		t.Errorf("got %q", got)
	}
	if err := a.Abort(); err != nil {
		t.Errorf("Abort after Commit: %v", err)
	}
	if a.Commit() == nil {
		t.Error("second Commit succeeded")
	}
	if names := dirNames(t, dir); !reflect.DeepEqual(names, []string{"out.txt"}) {
		t.Errorf("files: %q", names)
	}
}

func TestAtomicAbort(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	a, err := createAtomic(path)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(a, "partial")
	if err := a.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := a.Abort(); err != nil {
		t.Errorf("second Abort: %v", err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("files left: %q", names)
	}
	if _, err := io.WriteString(a, "more"); err == nil {
		t.Error("Write after Abort succeeded")
	}
	if a.Commit() == nil {
		t.Error("Commit after Abort succeeded")
	}
}

// TestAtomicExisting checks that an existing file is untouched until
// Commit, untouched by Abort, and keeps its permissions when replaced.
func TestAtomicExisting(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o640)
	a, err := createAtomic(path)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(a, "new")
	if got := string(readFile(t, path)); got != "old" {
		t.Fatalf("target changed before Commit: %q", got)
	}
	a.Abort()
	if got := string(readFile(t, path)); got != "old" {
		t.Fatalf("target changed by Abort: %q", got)
	}

	a, err = createAtomic(path)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(a, "new")
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := string(readFile(t, path)); got != "new" {
		t.Fatalf("got %q", got)
	}
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o640 {
			t.Errorf("permissions %v, want 0640", fi.Mode().Perm())
		}
	}
}

// TestAtomicSymlink replaces the file a link points to, keeping the link.
func TestAtomicSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links")
	}
	dir := t.TempDir()
	real := filepath.Join(dir, "real.txt")
	link := filepath.Join(dir, "link.txt")
	os.WriteFile(real, []byte("old"), 0o666)
	if err := os.Symlink("real.txt", link); err != nil {
		t.Fatal(err)
	}
	a, err := createAtomic(link)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(a, "new")
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link replaced: %v", err)
	}
	if got := string(readFile(t, real)); got != "new" {
		t.Errorf("got %q", got)
	}
}

func TestAtomicErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := createAtomic(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	missing := filepath.Join(dir, "no", "such", "dir", "out.txt")
	_, err := createAtomic(missing)
	if err == nil || !strings.Contains(err.Error(), missing+": cannot create") || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("missing directory: %v", err)
	}
}

// TestAtomicDevice writes a target that is not a regular file directly.
func TestAtomicDevice(t *testing.T) {
	if _, err := os.Stat(os.DevNull); err != nil || runtime.GOOS == "windows" {
		t.Skip("no", os.DevNull)
	}
	a, err := createAtomic(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	if a.tmp != "" {
		t.Fatalf("%s written through a temporary file %s", os.DevNull, a.tmp)
	}
	io.WriteString(a, "x")
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode().IsRegular() {
		t.Fatalf("%s replaced: %v", os.DevNull, err)
	}
}

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
