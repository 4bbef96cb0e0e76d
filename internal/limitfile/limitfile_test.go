package limitfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(path, 5); err != nil || string(b) != "12345" {
		t.Errorf("at the limit: %q, %v", b, err)
	}
	if _, err := ReadFile(path, 4); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "4 bytes") {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := ReadFile(dir, 4); err == nil {
		t.Error("a directory: no error")
	}
	// An endless input stops at the limit.
	if _, err := ReadFile("/dev/zero", 1<<20); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "1 MiB") {
		t.Errorf("/dev/zero: %v", err)
	}
	if _, err := Read(bytes.NewReader(make([]byte, 10)), "x", 9); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Read: %v", err)
	}
}
