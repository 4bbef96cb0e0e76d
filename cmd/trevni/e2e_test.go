package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestE2EBasic runs each command through the built binary.
func TestE2EBasic(t *testing.T) {
	file := filepath.Join(interopDir, "email", "email.deflate.crc32.trv")
	if r := runBin(t, nil, "validate", file); r.code != 0 || !validateOK.MatchString(r.stdout) || r.stderr != "" {
		t.Errorf("validate: %+v", r)
	}
	if r := runBin(t, nil, "meta", file); r.code != 0 || r.stdout != runIn(t, nil, "meta", file).stdout {
		t.Errorf("meta: %+v", r)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if r := runBin(t, f, "dump", "-"); r.code != 0 || r.stdout != runIn(t, nil, "dump", file).stdout {
		t.Errorf("dump from stdin: %+v", r)
	}
	if r := runBin(t, bytes.NewReader(readFile(t, file)), "dump", "--quiet", "-"); r.code != 0 || r.stderr != "" ||
		len(splitLines(t, strings.NewReader(r.stdout))) != 300 {
		t.Errorf("dump from a pipe: status %d, stderr %q", r.code, r.stderr)
	}
}

// TestE2EUsage checks that usage errors exit with status 2.
func TestE2EUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"nosuch"}, {"toavro", "x.trv"}, {"meta", "--nosuch", "x.trv"}, {"schema", "a", "b", "c"}} {
		r := runBin(t, nil, args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "trevni") || strings.Contains(r.stderr, "goroutine") {
			t.Errorf("%q: status %d, stderr:\n%s", args, r.code, r.stderr)
		}
	}
	if r := runBin(t, nil, "dump", "-h"); r.code != 0 || !strings.Contains(r.stdout, "Examples (the file names stand for your own):") {
		t.Errorf("dump -h: %+v", r)
	}
}

// TestE2ETruncated truncates files at many lengths: every command fails
// with one line and status 1.
func TestE2ETruncated(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, file := range []string{
		filepath.Join(interopDir, "email", "email.deflate.crc32.trv"),
		filepath.Join(interopDir, "raw_core", "raw_core.trv"),
		filepath.Join(interopDir, "tiny", "tiny_rle.trv"),
	} {
		data := readFile(t, file)
		lengths := []int{0, 1, 4, 15, 16, 17, 100, len(data) / 2, len(data) - 5, len(data) - 1}
		for _, n := range lengths {
			if n >= len(data) {
				continue
			}
			cut := filepath.Join(dir, "cut.trv")
			if err := os.WriteFile(cut, data[:n], 0o666); err != nil {
				t.Fatal(err)
			}
			for _, cmd := range []string{"meta", "dump", "validate"} {
				r := runBin(t, nil, cmd, cut)
				t.Logf("%s %s[:%d]: %s", cmd, filepath.Base(file), n, strings.TrimSpace(r.stderr))
				checkOneLineError(t, r, cmd)
				if !strings.Contains(r.stderr, cut) {
					t.Errorf("%s %s[:%d]: the message does not name the file", cmd, filepath.Base(file), n)
				}
			}
		}
	}
}

// TestE2ECorrupted damages a block of a file: dump fails with one line
// naming the column, block and offset; validate reports it.
func TestE2ECorrupted(t *testing.T) {
	data := readFile(t, filepath.Join(interopDir, "email", "email.deflate.crc32.trv"))
	data[3500] ^= 0x55 // column "from" (#2), which starts at 3455
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.trv")
	os.WriteFile(bad, data, 0o666)
	r := runBin(t, nil, "dump", bad)
	checkOneLineError(t, r, "dump")
	for _, want := range []string{`column "from" (#2)`, "block 0", "offset "} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("dump: %q lacks %q", r.stderr, want)
		}
	}
	r = runBin(t, nil, "validate", bad)
	checkOneLineError(t, r, "validate")
	if !strings.Contains(r.stderr, `column "from" (#2), block 0`) {
		t.Errorf("validate: %+v", r)
	}
	// Garbage that is not a Trevni file at all.
	os.WriteFile(bad, []byte(strings.Repeat("not trevni\n", 100)), 0o666)
	for _, cmd := range []string{"meta", "dump", "validate"} {
		checkOneLineError(t, runBin(t, nil, cmd, bad), cmd)
	}
}

// TestE2EAtomicOutput checks atomic output through the binary: a failed
// dump leaves no new file and an existing one untouched; a good one
// replaces it.
func TestE2EAtomicOutput(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(interopDir, "tiny", "tiny_rle.trv")
	bad := filepath.Join(dir, "bad.trv")
	data := readFile(t, filepath.Join(interopDir, "email", "email.deflate.crc32.trv"))
	os.WriteFile(bad, data[:len(data)-10], 0o666)

	out := filepath.Join(dir, "out.jsonl")
	checkOneLineError(t, runBin(t, nil, "dump", bad, out), "dump")
	if names := dirNames(t, dir); !reflect.DeepEqual(names, []string{"bad.trv"}) {
		t.Errorf("files after a failed dump: %q", names)
	}
	os.WriteFile(out, []byte("old\n"), 0o666)
	checkOneLineError(t, runBin(t, nil, "dump", "--force", bad, out), "dump")
	checkOneLineError(t, runBin(t, nil, "meta", "--force", bad, out), "meta")
	if got := string(readFile(t, out)); got != "old\n" {
		t.Errorf("existing file changed to %q", got)
	}
	if r := runBin(t, nil, "dump", "--force", good, out); r.code != 0 || r.stdout != "" {
		t.Fatalf("dump: %+v", r)
	}
	if got := string(readFile(t, out)); got != runIn(t, nil, "dump", good).stdout {
		t.Errorf("file holds %q", got)
	}
	if names := dirNames(t, dir); !reflect.DeepEqual(names, []string{"bad.trv", "out.jsonl"}) {
		t.Errorf("files: %q", names)
	}
	// An output directory that does not exist fails before reading.
	r := runBin(t, strings.NewReader("never read"), "dump", "-", filepath.Join(dir, "nodir", "out.jsonl"))
	checkOneLineError(t, r, "dump")
}
