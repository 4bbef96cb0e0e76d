package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const interopDir = "../../testdata/interop"

// trevniBin is the tool run as a process by the end-to-end tests: this
// test binary, which runs as the command when asCommand is set in its
// environment (see TestMain).
var trevniBin string

// asCommand is the environment variable that makes this test binary run as
// the trevni command rather than run its tests.
const asCommand = "TREVNI_TEST_RUN_AS_COMMAND"

// TestMain runs the tests, or, started with asCommand=1 by a test, the
// command itself: main, with the arguments it was given. The end-to-end
// tests run the command's own code as a process (signals, exit statuses,
// standard streams, memory) without a go build of their own, which cost
// the package a link of the whole command (seconds of CPU) on every run.
func TestMain(m *testing.M) {
	if os.Getenv(asCommand) == "1" {
		os.Unsetenv(asCommand)
		main()
		return // main exits
	}
	os.Exit(testMain(m))
}

// The heaviest tests (a second of CPU or more, or waiting on other
// processes) call t.Parallel: they run two at a time on two cores, after
// the others. Tests that set the environment (t.Setenv, s3server.Start)
// cannot; the hostile-input tests, which bound the memory of the tool's
// runs, do not (a run starved of CPU by a neighbour once peaked above the
// bound).
func testMain(m *testing.M) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "finding the test binary:", err)
		return 1
	}
	trevniBin = exe
	// Every process the tests start inherits it; no test starts this
	// binary for anything but the command.
	if err := os.Setenv(asCommand, "1"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// result is what one run of the tool did.
type result struct {
	code           int
	stdout, stderr string
}

// runIn runs the tool in-process.
func runIn(t testing.TB, stdin io.Reader, args ...string) result {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errOut bytes.Buffer
	code := run(args, stdin, &out, &errOut)
	return result{code, out.String(), errOut.String()}
}

// runBin runs the built tool.
func runBin(t testing.TB, stdin io.Reader, args ...string) result {
	t.Helper()
	cmd := exec.Command(trevniBin, args...)
	cmd.Stdin = stdin
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, out.String(), errOut.String()}
}

// checkOneLineError checks a failed run: status 1 and one line on stderr
// in the tool's format, with no sign of a panic.
func checkOneLineError(t testing.TB, r result, command string) {
	t.Helper()
	if r.code != exitError {
		t.Errorf("exit status %d, want 1; stderr:\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if len(lines) != 1 || !strings.HasSuffix(r.stderr, "\n") {
		t.Errorf("stderr is not one line:\n%s", r.stderr)
	}
	checkMessages(t, r.stderr, command)
}

// checkMessages checks that every line of stderr is a message of the
// command, with no panic or internal error.
func checkMessages(t testing.TB, stderr, command string) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if !strings.HasPrefix(l, "trevni: "+command+": ") || strings.HasPrefix(l, "trevni: "+command+": trevni:") {
			t.Errorf("message not in the tool's format: %q", l)
		}
		for _, p := range libraryPackages {
			if strings.Contains(strings.TrimPrefix(l, "trevni: "+command), ": "+p+": ") {
				t.Errorf("message shows the package prefix %q: %q", p, l)
			}
		}
		if len(l) > maxMessage+100 {
			t.Errorf("message of %d bytes", len(l))
		}
	}
	for _, bad := range []string{"panic", "goroutine ", "internal error", ".go:"} {
		if strings.Contains(stderr, bad) {
			t.Errorf("stderr shows %q:\n%s", bad, stderr)
		}
	}
}

// interopTrv lists every interop .trv file.
func interopTrv(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(interopDir, "*", "*.trv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no interop files: %v", err)
	}
	return files
}

// readLines returns the non-empty lines of a file, gunzipping .gz files.
func readLines(t testing.TB, name string) []string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = gz
	}
	return splitLines(t, r)
}

func splitLines(t testing.TB, r io.Reader) []string {
	t.Helper()
	var lines []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			lines = append(lines, sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// decodeJSON parses JSON keeping numbers as json.Number.
func decodeJSON(t testing.TB, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%v in %.200s", err, s)
	}
	return v
}

// jsonDiff compares decoded JSON, numbers numerically (Java and Go print
// floats differently). If subset, got may have object keys that want has
// not. It returns where they differ, or "".
func jsonDiff(got, want any, subset bool, path string) string {
	switch w := want.(type) {
	case json.Number:
		g, ok := got.(json.Number)
		if !ok {
			return fmt.Sprintf("%s: got %v, want %v", path, got, want)
		}
		if g == w {
			return ""
		}
		if gi, err1 := strconv.ParseInt(string(g), 10, 64); err1 == nil {
			if wi, err2 := strconv.ParseInt(string(w), 10, 64); err2 == nil && gi == wi {
				return ""
			}
		}
		gf, err1 := strconv.ParseFloat(string(g), 64)
		wf, err2 := strconv.ParseFloat(string(w), 64)
		if err1 == nil && err2 == nil && (gf == wf || float32(gf) == float32(wf)) {
			return ""
		}
		return fmt.Sprintf("%s: got %s, want %s", path, g, w)
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || (!subset && len(g) != len(w)) {
			return fmt.Sprintf("%s: got %v, want %v", path, got, want)
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok {
				return fmt.Sprintf("%s: missing key %q", path, k)
			}
			if d := jsonDiff(gv, wv, subset, path+"."+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: got %v, want %v", path, got, want)
		}
		for i := range w {
			if d := jsonDiff(g[i], w[i], subset, fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	}
	if got != want {
		return fmt.Sprintf("%s: got %v, want %v", path, got, want)
	}
	return ""
}

// readFile reads a file, failing the test on error.
func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dirNames lists the names in dir.
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

// writeFileT writes a file, failing the test on error.
func writeFileT(t testing.TB, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(name, data, 0o666); err != nil {
		t.Fatal(err)
	}
}
