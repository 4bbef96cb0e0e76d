package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni/format"
)

// startPiped starts "trevni fromjson" of the email records into out, its
// input a pipe the test controls, and waits until the command has
// created its temporary output beside out: the run is then under way and
// waits for its input. Writing the records and closing the pipe lets it
// finish; the result arrives on the channel.
func startPiped(t *testing.T, out string, extra ...string) (*io.PipeWriter, <-chan result) {
	t.Helper()
	dir := filepath.Dir(out)
	before, _ := filepath.Glob(filepath.Join(dir, ".trevni-*"))
	pr, pw := io.Pipe()
	args := append([]string{"fromjson", "--quiet", "--schema", filepath.Join(interopDir, "email", "schema.avsc")}, extra...)
	args = append(args, "-", out)
	done := make(chan result, 1)
	go func() { done <- runIn(t, pr, args...) }()
	for deadline := time.Now().Add(10 * time.Second); ; {
		now, _ := filepath.Glob(filepath.Join(dir, ".trevni-*"))
		if len(now) > len(before) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command did not create its temporary output")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return pw, done
}

// feed writes the email records to the command's input and closes it.
func feed(t *testing.T, pw *io.PipeWriter) {
	t.Helper()
	if _, err := pw.Write(readFile(t, filepath.Join(interopDir, "email", "input.jsonl"))); err != nil {
		t.Error(err)
	}
	pw.Close()
}

// TestCommitDoesNotReplaceFileCreatedMeanwhile checks that without
// --force an output file that another process creates while the command
// runs is not replaced: the command fails saying so, and the file is left
// as that process wrote it. With --force it is replaced.
func TestCommitDoesNotReplaceFileCreatedMeanwhile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.trv")
	pw, done := startPiped(t, out)
	writeFileT(t, out, []byte("someone else's"))
	feed(t, pw)
	r := <-done
	if r.code != exitError || !strings.Contains(r.stderr, out+": another file was created under this name while this command ran") ||
		!strings.Contains(r.stderr, "--force") {
		t.Errorf("status %d, stderr %q; want 1 and a message that the file appeared", r.code, r.stderr)
	}
	if got := string(readFile(t, out)); got != "someone else's" {
		t.Errorf("the file created meanwhile was changed: %q", got)
	}
	checkUnchanged(t, dir, map[string][]byte{"out.trv": []byte("someone else's")})

	// --force replaces it.
	os.Remove(out)
	pw, done = startPiped(t, out, "--force")
	writeFileT(t, out, []byte("someone else's"))
	feed(t, pw)
	if r := <-done; r.code != exitOK {
		t.Fatalf("with --force: status %d, stderr %q", r.code, r.stderr)
	}
	rd, err := format.Open(out)
	if err != nil {
		t.Fatalf("with --force the output is not the command's: %v", err)
	}
	rd.Close()
}

// TestConcurrentRunsOneWins checks that of two runs writing the same new
// name without --force, both under way at once, exactly one succeeds and
// the other fails leaving the winner's file.
func TestConcurrentRunsOneWins(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.trv")
	pw1, done1 := startPiped(t, out)
	pw2, done2 := startPiped(t, out)
	feed(t, pw1)
	r1 := <-done1
	feed(t, pw2)
	r2 := <-done2
	if r1.code != exitOK {
		t.Errorf("first run: status %d, stderr %q", r1.code, r1.stderr)
	}
	if r2.code != exitError || !strings.Contains(r2.stderr, "another file was created under this name") {
		t.Errorf("second run: status %d, stderr %q; want it refused", r2.code, r2.stderr)
	}
	rd, err := format.Open(out)
	if err != nil {
		t.Fatalf("the winner's file: %v", err)
	}
	defer rd.Close()
	if rd.RowCount() == 0 {
		t.Error("the winner's file holds no rows")
	}
	names := dirNames(t, dir)
	if len(names) != 1 {
		t.Errorf("files left: %v", names)
	}
}
