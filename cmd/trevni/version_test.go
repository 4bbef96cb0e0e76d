package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// modulePath reads the module path from go.mod.
func modulePath(t testing.TB) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^module (\S+)$`).FindSubmatch(readFile(t, "../../go.mod"))
	if m == nil {
		t.Fatal("no module line in go.mod")
	}
	return string(m[1])
}

// TestE2EVersion checks "trevni version" and "trevni --version" on the
// built binary: the module path of go.mod, the Go release it was built
// with, and the codecs (which TestE2ECodecNames writes and reads back).
func TestE2EVersion(t *testing.T) {
	r := runBin(t, nil, "version")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("version: %+v", r)
	}
	if r2 := runBin(t, nil, "--version"); r2 != r {
		t.Errorf("--version: %+v, version: %+v", r2, r)
	}
	lines := strings.Split(r.stdout, "\n")
	if want := "(module " + modulePath(t) + ")"; !strings.HasPrefix(lines[0], "trevni ") || !strings.HasSuffix(lines[0], want) {
		t.Errorf("first line %q, want trevni VERSION %s", lines[0], want)
	}
	for _, want := range []string{
		"built with " + runtime.Version() + " for " + runtime.GOOS + "/" + runtime.GOARCH + "\n",
		"Trevni codecs: null, deflate, snappy, bzip2, zstd\n",
		"Avro codecs: null, deflate, snappy, bzip2, xz, zstandard\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("version lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestREADMEInstallPath checks that the README tells people to install and
// import the module by the path go.mod declares.
func TestREADMEInstallPath(t *testing.T) {
	readme := string(readFile(t, "../../README.md"))
	mod := modulePath(t)
	for _, want := range []string{"go install " + mod + "/cmd/trevni@latest", "go get " + mod} {
		if !strings.Contains(readme, want) {
			t.Errorf("README lacks %q", want)
		}
	}
	for _, m := range regexp.MustCompile(`go (?:install|get) (\S+)`).FindAllStringSubmatch(readme, -1) {
		if p := m[1]; !strings.HasPrefix(p, "./") && !strings.HasPrefix(p, mod) {
			t.Errorf("README installs %s, not under %s", p, mod)
		}
	}
}

// TestREADMEQuickStart runs the commands of the README's first code block
// with the built tool: they succeed, and the last prints the first three
// records Java reads from the sample.
func TestREADMEQuickStart(t *testing.T) {
	readme := string(readFile(t, "../../README.md"))
	start := strings.Index(readme, "```\n")
	end := strings.Index(readme[start+4:], "```")
	if start < 0 || end < 0 {
		t.Fatal("no code block in the README")
	}
	testdata, err := filepath.Abs("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var last result
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(readme[start+4:start+4+end]), "\n") {
		args, ok := strings.CutPrefix(line, "go run ./cmd/trevni ")
		if !ok {
			t.Fatalf("the first code block runs %q, not the tool", line)
		}
		fields := strings.Fields(strings.ReplaceAll(args, "testdata", testdata))
		cmd := exec.Command(trevniBin, fields...)
		cmd.Dir = dir
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, errOut.String())
		}
		last = result{0, out.String(), errOut.String()}
		n++
	}
	want := readLines(t, filepath.Join(interopDir, "email", "expected.jsonl"))[:3]
	if got := splitLines(t, strings.NewReader(last.stdout)); n < 2 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%d commands; the last printed:\n%s\nwant:\n%s", n, last.stdout, strings.Join(want, "\n"))
	}
}
