package main

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// walkNames lists every file and directory under dir, relative to it.
func walkNames(t testing.TB, dir string) []string {
	t.Helper()
	var names []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != dir {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, rel)
		}
		return nil
	})
	return names
}

// interruptBlocked starts the tool with args in dir, writes input to its
// standard input and keeps the pipe open, waits until a file whose name
// holds waitFor appears under dir, sends sig, and checks that the tool
// exits with 128+sig, says it was interrupted, and leaves dir holding only
// the files it held before. env, if any, is added to the tool's
// environment.
func interruptBlocked(t *testing.T, sig syscall.Signal, dir string, env []string, input []byte, waitFor string, args ...string) {
	t.Helper()
	before := walkNames(t, dir)
	cmd := exec.Command(trevniBin, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	go stdin.Write(input) // and keep the pipe open
	found := func() bool {
		for _, n := range walkNames(t, dir) {
			if strings.Contains(filepath.Base(n), waitFor) {
				return true
			}
		}
		return false
	}
	deadline := time.Now().Add(20 * time.Second)
	for !found() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !found() {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("%q: no %s file appeared; files %q; stderr %s", args, waitFor, walkNames(t, dir), stderr.String())
	}
	time.Sleep(50 * time.Millisecond) // let it block reading the pipe
	cmd.Process.Signal(sig)
	start := time.Now()
	cmd.Wait()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("%q: took %v to stop", args, d)
	}
	if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) {
		t.Errorf("%q %v: exit status %d, want %d; stderr %s", args, sig, code, 128+int(sig), stderr.String())
	}
	if got, want := stderr.String(), "trevni: "+args[0]+": interrupted\n"; got != want {
		t.Errorf("%q %v: stderr %q, want %q", args, sig, got, want)
	}
	if after := walkNames(t, dir); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Errorf("%q %v: files left: %q, before %q", args, sig, after, before)
	}
}

// bigAvro makes an Avro container file of random email records large
// enough that a 1 MiB writer budget spills.
func bigAvro(t *testing.T, dir string) []byte {
	t.Helper()
	trv := filepath.Join(dir, "big.trv")
	avro := filepath.Join(dir, "big.avro")
	if r := runBin(t, nil, "random", "--quiet", "--codec", "null", filepath.Join(interopDir, "email", "schema.avsc"), "20000", trv); r.code != 0 {
		t.Fatal(r)
	}
	if r := runBin(t, nil, "toavro", "--quiet", "--codec", "null", trv, avro); r.code != 0 {
		t.Fatal(r)
	}
	data := readFile(t, avro)
	os.Remove(trv)
	os.Remove(avro)
	return data
}

// TestE2ESignalSpill interrupts fromavro and fromproto while they are
// blocked reading a pipe with a spill file open beside the output: they
// exit with 128+signal and leave no file behind (issue 10, class 6). Each
// run waits out the grace period (the tool is blocked reading the pipe),
// so the runs are parallel subtests.
func TestE2ESignalSpill(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	data := bigAvro(t, t.TempDir())
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String()+"/file", func(t *testing.T) {
			t.Parallel()
			interruptBlocked(t, sig, t.TempDir(), nil, data, "trevni-spill-",
				"fromavro", "--memory", "1MiB", "--codec", "null", "-", "out.trv")
		})
		// Standard output: the spill file goes to a private directory
		// under the system's temporary directory, removed as well.
		t.Run(sig.String()+"/stdout", func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			interruptBlocked(t, sig, tmp, []string{"TMPDIR=" + tmp}, data, "trevni-spill-",
				"fromavro", "--memory", "1MiB", "--codec", "null", "-", "-")
		})
	}
}

// TestE2ESignalProto interrupts fromproto blocked reading a pipe of
// protobuf messages: no file is left.
func TestE2ESignalProto(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	// google.protobuf.Duration messages, length-delimited: {seconds: n}.
	var in bytes.Buffer
	for n := 1; n < 200000; n++ {
		msg := []byte{0x08}
		for v := uint64(n); ; v >>= 7 {
			if v < 0x80 {
				msg = append(msg, byte(v))
				break
			}
			msg = append(msg, byte(v)|0x80)
		}
		in.WriteByte(byte(len(msg)))
		in.Write(msg)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel() // a run may wait out the grace period
			interruptBlocked(t, sig, t.TempDir(), nil, in.Bytes(), "trevni-spill-",
				"fromproto", "--message", "google.protobuf.Duration", "--memory", "1KiB", "--codec", "null", "--block-size", "1024", "-", "out.trv")
		})
	}
}

// TestE2ESignalEndless interrupts dump of a file claiming 2^62 rows of no
// columns, which would stream forever: it stops promptly with 128+signal,
// and leaves no file.
func TestE2ESignalEndless(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	dir := t.TempDir()
	// A Trevni file: magic, row count, no columns, no metadata.
	endless := append([]byte("Trv\x02"), 0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0)
	in := filepath.Join(dir, "endless.trv")
	writeFileT(t, in, endless)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		for _, out := range []string{"-", "out.jsonl"} {
			cmd := exec.Command(trevniBin, "dump", "endless.trv", out)
			cmd.Dir = dir
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			first := make([]byte, 3)
			if out == "-" {
				if _, err := stdout.Read(first); err != nil || string(first) != "{}\n" {
					t.Fatalf("first row %q, %v", first, err)
				}
				go func() {
					buf := make([]byte, 64<<10)
					for {
						if _, err := stdout.Read(buf); err != nil {
							return
						}
					}
				}()
			} else {
				deadline := time.Now().Add(10 * time.Second)
				for len(walkNames(t, dir)) < 3 && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
			}
			time.Sleep(100 * time.Millisecond)
			cmd.Process.Signal(sig)
			start := time.Now()
			cmd.Wait()
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("dump to %s: took %v to stop", out, d)
			}
			if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) {
				t.Errorf("dump to %s %v: exit status %d; stderr %s", out, sig, code, stderr.String())
			}
			if names := walkNames(t, dir); len(names) != 1 {
				t.Errorf("dump to %s %v: files left: %q", out, sig, names)
			}
		}
	}
}

// endlessAvro is a Trevni file of 2^62 records of an Avro record with no
// fields: no column, so nothing is read while the records stream.
func endlessAvro() []byte {
	schema := `{"type":"record","name":"R","fields":[]}`
	b := append([]byte("Trv\x02"), 0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0)
	b = append(b, 2) // one metadata entry (zig-zag)
	b = append(b, byte(2*len("avro.schema")))
	b = append(b, "avro.schema"...)
	b = append(b, byte(2*len(schema)))
	b = append(b, schema...)
	return append(b, 0)
}

// TestEndlessStopsPromptly runs, in-process, the commands that stream the
// records of a file claiming 2^62 of them, and cancels the run: each
// returns by itself (the process's grace period is not there to end it).
func TestEndlessStopsPromptly(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "endless.trv")
	writeFileT(t, in, endlessAvro())
	for _, args := range [][]string{
		{"dump", in},
		{"tojson", in},
		{"tojson", in, filepath.Join(dir, "out.jsonl")},
		// Not toavro: assemble.ToContainer buffers records of no bytes
		// without end and takes no context yet; the process's grace
		// period ends it (TestE2ESignalEndless).
		{"validate", in},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		a := newApp(strings.NewReader(""), io.Discard, io.Discard)
		done := make(chan int, 1)
		go func() { done <- a.run(ctx, args) }()
		time.Sleep(100 * time.Millisecond)
		cancel()
		select {
		case code := <-done:
			if code != exitError && !(args[0] == "validate" && code == exitOK) {
				t.Errorf("%q: status %d", args, code)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%q: still running 10 s after the cancel", args)
		}
		if names := dirNames(t, dir); len(names) != 1 {
			t.Errorf("%q: files left: %q", args, names)
		}
	}
}

// TestE2ESignalEndlessToavro interrupts toavro of 2^62 records of no
// bytes, which the library buffers without end: the grace period ends
// the process, with 128+signal and no file left.
func TestE2ESignalEndlessToavro(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	dir := t.TempDir()
	writeFileT(t, filepath.Join(dir, "endless.trv"), endlessAvro())
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd := exec.Command(trevniBin, "toavro", "endless.trv", "out.avro")
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for len(walkNames(t, dir)) < 3 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond) // the output's temporary directory and file
		}
		cmd.Process.Signal(sig)
		start := time.Now()
		cmd.Wait()
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%v: took %v to stop", sig, d)
		}
		if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) || stderr.String() != "trevni: toavro: interrupted\n" {
			t.Errorf("%v: exit status %d, stderr %q", sig, code, stderr.String())
		}
		if names := walkNames(t, dir); len(names) != 1 {
			t.Errorf("%v: files left: %q", sig, names)
		}
	}
}

// TestE2ESignal interrupts a dump blocked reading standard input with its
// output file open: the process exits with 128+signal, one line, and leaves
// no partial file and an existing file untouched. Each run waits out the
// grace period (dump is blocked reading the pipe): parallel subtests.
func TestE2ESignal(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out := filepath.Join(dir, "out.jsonl")
			os.WriteFile(out, []byte("old\n"), 0o666)
			cmd := exec.Command(trevniBin, "dump", "--force", "-", out)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			stdin.Write(readFile(t, tinyRLE)[:100]) // and keep the pipe open
			deadline := time.Now().Add(10 * time.Second)
			for len(dirNames(t, dir)) < 2 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond) // wait for the temporary file
			}
			if len(dirNames(t, dir)) < 2 {
				t.Fatal("no temporary output file appeared")
			}
			cmd.Process.Signal(sig)
			err = cmd.Wait()
			stdin.Close()
			code := cmd.ProcessState.ExitCode()
			if code != 128+int(sig) {
				t.Errorf("%v: exit status %d (%v), want %d", sig, code, err, 128+int(sig))
			}
			if stderr.String() != "trevni: dump: interrupted\n" {
				t.Errorf("%v: stderr %q", sig, stderr.String())
			}
			if names := dirNames(t, dir); !reflect.DeepEqual(names, []string{"out.jsonl"}) {
				t.Errorf("%v: files left: %q", sig, names)
			}
			if got := string(readFile(t, out)); got != "old\n" {
				t.Errorf("%v: existing file changed to %q", sig, got)
			}
		})
	}
}
