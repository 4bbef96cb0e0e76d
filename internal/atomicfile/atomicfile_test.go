package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFileT(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o666); err != nil {
		t.Fatal(err)
	}
}

func TestAtomicCommit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	a, err := Create(path, true)
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
	a, err := Create(path, true)
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
	a, err := Create(path, true)
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

	a, err = Create(path, true)
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
	a, err := Create(link, true)
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
	if _, err := Create(dir, true); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	missing := filepath.Join(dir, "no", "such", "dir", "out.txt")
	_, err := Create(missing, true)
	if err == nil || !strings.Contains(err.Error(), missing+": cannot create") || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("missing directory: %v", err)
	}
}

// TestAtomicDevice writes a target that is not a regular file directly.
func TestAtomicDevice(t *testing.T) {
	if _, err := os.Stat(os.DevNull); err != nil || runtime.GOOS == "windows" {
		t.Skip("no", os.DevNull)
	}
	a, err := Create(os.DevNull, true)
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

// TestRenameNoReplace checks both ways of committing without replacing:
// renameNoReplace (renameat2 where the system has it) and the link and
// unlink fallback; each moves the file to a free name, and refuses a
// taken one with ErrAppeared, leaving both files as they were.
func TestRenameNoReplace(t *testing.T) {
	for name, rename := range map[string]func(string, string) error{"renameNoReplace": renameNoReplace, "linkNoReplace": linkNoReplace} {
		dir := t.TempDir()
		from, to := filepath.Join(dir, "from"), filepath.Join(dir, "to")
		writeFileT(t, from, []byte("new"))
		writeFileT(t, to, []byte("theirs"))
		if err := rename(from, to); !errors.Is(err, ErrAppeared) {
			t.Errorf("%s over an existing file: %v, want ErrAppeared", name, err)
		}
		if string(readFile(t, to)) != "theirs" || string(readFile(t, from)) != "new" {
			t.Errorf("%s changed the files when refusing", name)
		}
		os.Remove(to)
		if err := rename(from, to); err != nil {
			t.Fatalf("%s to a free name: %v", name, err)
		}
		if _, err := os.Stat(from); !errors.Is(err, fs.ErrNotExist) || string(readFile(t, to)) != "new" {
			t.Errorf("%s to a free name: from left (%v) or to wrong", name, err)
		}
	}
}

func dirNames(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
