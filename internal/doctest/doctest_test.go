// Package doctest runs the command examples of the README and of docs/*.md,
// in order, on the data the repository ships, so that every example the
// documentation shows works as written.
//
// The convention (docs/testing.md tells it to writers):
//
//   - A fenced block tagged ```sh is run. Each line is one shell command,
//     written as a user types it, without a prompt; a line ending in a
//     backslash goes on on the next line; blank lines and lines starting
//     with # are skipped. A command must exit with status 0: one shown
//     failing is written "! trevni ...", which bash turns into a success
//     exactly when the command fails.
//   - The commands of a file run one after the other in one fresh work
//     directory holding testdata/ (a symbolic link to the repository's), each
//     with bash -e -o pipefail, with the trevni command built from this
//     checkout first on PATH. "go run ./cmd/trevni" runs that same binary,
//     "https://example.com/" is a local HTTP server (with range requests)
//     serving the work directory, and "go test" lines are not run (they
//     would run this test). A pipe into head is refused: under pipefail the
//     command it cuts short fails with SIGPIPE, now and then.
//   - Every other fence needs a tag: ```text for output and notation,
//     ```go, ```json and the like for code; none of them may hold a line
//     starting with "trevni " or "go run ./cmd/trevni" (a command shown but
//     not run), except a block tagged ```console-norun, kept for what cannot
//     run here (a Beam cluster, a global install).
package doctest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// root is the repository root, relative to this package's directory.
const root = "../.."

// command is one shell command of a ```sh block and the line it starts on.
type command struct {
	line int
	text string
}

// fence matches the opening or closing line of a fenced code block, giving
// its info string.
var fence = regexp.MustCompile("^```([^`]*)$")

// pipeHead matches a pipe into head, which ends the command before it
// has written everything.
var pipeHead = regexp.MustCompile(`\|\s*head\b`)

// parse returns the commands of the ```sh blocks of a Markdown file, in
// order, and an error for a block that breaks the convention.
func parse(name string, src []byte) ([]command, error) {
	var (
		cmds    []command
		inBlock bool
		tag     string
		pending *command // a command continued by a trailing backslash
	)
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if m := fence.FindStringSubmatch(line); m != nil {
			if !inBlock {
				tag = strings.TrimSpace(m[1])
				if tag == "" {
					return nil, fmt.Errorf("%s:%d: a code block without a tag (```sh, ```text, ```go ...)", name, n)
				}
				inBlock = true
				continue
			}
			if strings.TrimSpace(m[1]) == "" {
				if pending != nil {
					return nil, fmt.Errorf("%s:%d: the block ends inside a continued command", name, pending.line)
				}
				inBlock = false
				continue
			}
		}
		if !inBlock {
			continue
		}
		if tag != "sh" {
			t := strings.TrimSpace(line)
			if tag != "console-norun" && (strings.HasPrefix(t, "trevni ") || strings.HasPrefix(t, "go run ./cmd/trevni")) {
				return nil, fmt.Errorf("%s:%d: a command in a ```%s block: put it in a ```sh block, or in ```console-norun if it cannot run here", name, n, tag)
			}
			continue
		}
		if pending != nil {
			pending.text += "\n" + line
		} else {
			t := strings.TrimSpace(line)
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			if strings.HasPrefix(t, "$ ") {
				return nil, fmt.Errorf("%s:%d: a command with a prompt: write it as typed, without \"$ \"", name, n)
			}
			pending = &command{line: n, text: line}
		}
		if strings.HasSuffix(line, `\`) {
			continue
		}
		if pipeHead.MatchString(pending.text) {
			return nil, fmt.Errorf("%s:%d: output cut with | head: the command's SIGPIPE fails it under pipefail now and then; write a file and head that", name, pending.line)
		}
		cmds = append(cmds, *pending)
		pending = nil
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if inBlock {
		return nil, fmt.Errorf("%s: a code block is not closed", name)
	}
	return cmds, nil
}

// buildTrevni builds the command from this checkout into a new directory
// and returns that directory.
func buildTrevni(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "trevni"), "./cmd/trevni")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/trevni: %v\n%s", err, out)
	}
	return bin
}

// docFiles returns the README and docs/*.md, by their paths from the root.
func docFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(docs)
	files := []string{"README.md"}
	for _, d := range docs {
		files = append(files, filepath.Join("docs", filepath.Base(d)))
	}
	return files
}

// TestDocExamples runs every ```sh example of the documentation, file by file.
func TestDocExamples(t *testing.T) {
	files := docFiles(t)
	if len(files) < 2 {
		t.Fatalf("found only %v: docs/*.md is missing", files)
	}
	parsed := make(map[string][]command)
	total := 0
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		cmds, err := parse(f, src)
		if err != nil {
			t.Fatal(err)
		}
		parsed[f] = cmds
		total += len(cmds)
	}
	if len(parsed["README.md"]) == 0 {
		t.Fatal("README.md has no ```sh example")
	}
	bin := buildTrevni(t)
	testdata, err := filepath.Abs(filepath.Join(root, "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			runFile(t, f, parsed[f], bin, testdata)
		})
	}
	t.Logf("%d commands in %d files", total, len(files))
}

// runFile runs one file's commands in order in a fresh work directory.
func runFile(t *testing.T, file string, cmds []command, bin, testdata string) {
	work := t.TempDir()
	if err := os.Symlink(testdata, filepath.Join(work, "testdata")); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(work)))
	defer srv.Close()
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, c := range cmds {
		if strings.HasPrefix(strings.TrimSpace(c.text), "go test") {
			continue
		}
		text := strings.ReplaceAll(c.text, "go run ./cmd/trevni", "trevni")
		text = strings.ReplaceAll(text, "https://example.com/", srv.URL+"/")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", text)
		cmd.Dir = work
		cmd.Env = env
		cmd.Stdin = nil
		var stderr bytes.Buffer
		cmd.Stdout = new(bytes.Buffer)
		cmd.Stderr = &stderr
		err := cmd.Run()
		cancel()
		if err != nil {
			t.Fatalf("%s:%d: %s\n%v\nstderr:\n%s", file, c.line, c.text, err, stderr.String())
		}
	}
}

// TestParse checks the convention on a small document: the commands of
// ```sh blocks are found with their lines, and blocks that break it fail.
func TestParse(t *testing.T) {
	doc := "# x\n```sh\ntrevni a \\\n  b\n# note\n\n! trevni c\n```\n```text\ntrevni: c: failed\n```\n"
	cmds, err := parse("d.md", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []command{{3, "trevni a \\\n  b"}, {7, "! trevni c"}}
	if fmt.Sprint(cmds) != fmt.Sprint(want) {
		t.Errorf("got %+v, want %+v", cmds, want)
	}
	for _, bad := range []string{
		"```\ntrevni a\n```\n",
		"```text\ntrevni a\n```\n",
		"```sh\n$ trevni a\n```\n",
		"```sh\ntrevni a \\\n```\n",
		"```sh\ntrevni a\n",
		"```sh\ntrevni a | head -2\n```\n",
	} {
		if _, err := parse("d.md", []byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, err := parse("d.md", []byte("```console-norun\ntrevni a https://host/x\n```\n")); err != nil {
		t.Errorf("console-norun: %v", err)
	}
}
