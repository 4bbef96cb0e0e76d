package main

import (
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
