//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestNamedPipeInput checks that a named pipe given as the input of a
// command that needs random access is read as standard input is (copied),
// not reported as a truncated file.
func TestNamedPipeInput(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(interopDir, "email", "email.deflate.crc32.trv")
	data := readFile(t, src)
	want := readFile(t, filepath.Join(interopDir, "email", "expected.jsonl"))
	for _, args := range [][]string{{"tojson"}, {"validate"}, {"tocsv", "--fields", "id"}, {"meta"}} {
		fifo := filepath.Join(dir, "p")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		go func() {
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			f.Write(data)
			f.Close()
		}()
		r := runIn(t, nil, append(args, fifo)...)
		os.Remove(fifo)
		if r.code != exitOK {
			t.Errorf("%s of a named pipe: status %d, stderr %q", args[0], r.code, r.stderr)
			continue
		}
		if args[0] == "tojson" && r.stdout != string(want) {
			t.Errorf("tojson of a named pipe: %d bytes, want the %d of expected.jsonl", len(r.stdout), len(want))
		}
	}
}
