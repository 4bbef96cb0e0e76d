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
//     exactly when the command fails, and its block is followed right away
//     by a ```text block that holds the first line it prints on standard
//     error.
//   - A ```sh block of commands that succeed followed right away by a
//     ```text block shows their output: what they print (each command's
//     standard output, then its standard error) must be that block, line
//     for line, a line ending in "..." standing for any line with what
//     comes before as a prefix, a line "..." alone for any lines
//     (matchOutput).
//   - The commands of a file run one after the other in one fresh work
//     directory holding testdata/ (a symbolic link to the repository's), each
//     with bash -e -o pipefail, with the trevni command built from this
//     checkout (without its PGO profile) first on PATH. "go run
//     ./cmd/trevni" runs that same binary, "https://example.com/" is a
//     local HTTP server (with range requests) serving the work directory,
//     and "go test" lines are not run (they would run this test). A pipe into head is refused: under pipefail the
//     command it cuts short fails with SIGPIPE, now and then.
//   - Every other fence needs a tag: ```text for output and notation,
//     ```go, ```json and the like for code; none of them may hold a line
//     starting with "trevni " or "go run ./cmd/trevni" (a command shown but
//     not run), except a block tagged ```console-norun, kept for what cannot
//     run here (a Beam cluster, a global install).
package doctest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// root is the repository root, relative to this package's directory.
const root = "../../.."

// command is one shell command of a ```sh block and the line it starts on.
// A command shown failing ("! trevni ...") carries the lines of the ```text
// block that follows its block: the first line of its standard error must
// be one of them.
type command struct {
	line   int
	text   string
	fails  bool
	expect []string
	// output, on the last command of a ```sh block of commands that
	// succeed followed right away by a ```text block, is that block's
	// lines: the output of the block's commands (from first on), each
	// command's standard output then its standard error, which must match
	// them (see matchOutput).
	output []string
	first  int
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
		// failing holds the indexes in cmds of the failing commands of the
		// ```sh block just closed, until the ```text block after it.
		failing  []int
		shEnd    int // the line that closed that block
		textFrom int // the index in lines where the following text block starts
		// shFirst is the index in cmds of the first command of the last
		// ```sh block, outFrom where its output's text block starts (0:
		// none).
		shFirst, outFrom int
		shOK             bool // the last ```sh block's commands all succeed
	)
	lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	for i, line := range lines {
		n := i + 1
		if m := fence.FindStringSubmatch(line); m != nil {
			if !inBlock {
				tag = strings.TrimSpace(m[1])
				if tag == "" {
					return nil, fmt.Errorf("%s:%d: a code block without a tag (```sh, ```text, ```go ...)", name, n)
				}
				if len(failing) > 0 {
					if tag != "text" || strings.TrimSpace(strings.Join(lines[shEnd:i], "")) != "" {
						return nil, fmt.Errorf("%s:%d: a command shown failing needs its message in a ```text block right after its block", name, cmds[failing[0]].line)
					}
					textFrom = i + 1
				} else if tag == "text" && shOK && shEnd > 0 && strings.TrimSpace(strings.Join(lines[shEnd:i], "")) == "" {
					outFrom = i + 1
				}
				shOK = false
				if tag == "sh" {
					shFirst, shOK = len(cmds), true
				}
				inBlock = true
				continue
			}
			if strings.TrimSpace(m[1]) == "" {
				if pending != nil {
					return nil, fmt.Errorf("%s:%d: the block ends inside a continued command", name, pending.line)
				}
				inBlock = false
				switch {
				case tag == "text" && len(failing) > 0:
					for _, k := range failing {
						cmds[k].expect = lines[textFrom:i]
					}
					failing = nil
				case tag == "text" && outFrom > 0:
					cmds[len(cmds)-1].output = lines[outFrom:i]
					cmds[len(cmds)-1].first = shFirst
					outFrom = 0
				case tag == "sh":
					for k := range cmds {
						if cmds[k].fails && cmds[k].expect == nil && !slices.Contains(failing, k) {
							failing = append(failing, k)
						}
					}
					shEnd = n
					shOK = len(failing) == 0 && len(cmds) > shFirst
				}
				continue
			}
		}
		if !inBlock {
			if len(failing) > 0 && strings.TrimSpace(line) != "" {
				return nil, fmt.Errorf("%s:%d: a command shown failing needs its message in a ```text block right after its block", name, cmds[failing[0]].line)
			}
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
			pending = &command{line: n, text: line, fails: strings.HasPrefix(t, "! ")}
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
	if inBlock {
		return nil, fmt.Errorf("%s: a code block is not closed", name)
	}
	if len(failing) > 0 {
		return nil, fmt.Errorf("%s:%d: a command shown failing needs its message in a ```text block right after its block", name, cmds[failing[0]].line)
	}
	return cmds, nil
}

// buildTrevni builds the command from this checkout into a new directory
// and returns that directory. It builds with go run, which keeps the
// executables it links in the build cache, and has the binary copied
// rather than run (-exec cp): unless the command's sources changed since
// the last run, nothing is linked (a go build -o into a new directory
// linked the whole command, seconds of CPU, on every run). It builds
// without the command's PGO profile (-pgo=off), which changes how fast
// the command runs, not what it does: with the profile, every package the
// command imports would be compiled once more, with it, on a build cache
// that holds only the core's test builds (a plain go test ./...).
func buildTrevni(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	build := exec.Command("go", "run", "-pgo=off", "-exec", "cp", "./cmd/trevni", filepath.Join(bin, "trevni"))
	build.Dir = root
	// The command is a module of its own, reached through the
	// repository's workspace whatever GOWORK the test runs with.
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	build.Env = append(os.Environ(), "GOWORK="+filepath.Join(abs, "go.work"))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go run -pgo=off -exec cp ./cmd/trevni: %v\n%s", err, out)
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
			t.Parallel() // each page runs in its own directory
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
	outputs := make([]string, len(cmds)) // each command's standard output then error
	for k, c := range cmds {
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
		var stdout, stderr bytes.Buffer
		cmd.Stdout = &stdout
		cmd.Stderr = &stderr
		err := cmd.Run()
		cancel()
		outputs[k] = stdout.String() + stderr.String()
		if err != nil {
			t.Fatalf("%s:%d: %s\n%v\nstderr:\n%s", file, c.line, c.text, err, stderr.String())
		}
		if c.fails {
			first, _, _ := strings.Cut(stderr.String(), "\n")
			if !slices.Contains(c.expect, first) {
				t.Fatalf("%s:%d: %s\nfailed with\n%s\nwhich the text block after it does not show:\n%s", file, c.line, c.text, first, strings.Join(c.expect, "\n"))
			}
		}
		if c.output != nil {
			got := strings.Split(strings.TrimSuffix(strings.Join(outputs[c.first:k+1], ""), "\n"), "\n")
			if !matchOutput(c.output, got) {
				t.Errorf("%s:%d: the output of the block's commands\n%s\nis not what the text block after it shows:\n%s", file, cmds[c.first].line, strings.Join(got, "\n"), strings.Join(c.output, "\n"))
			}
		}
	}
}

// matchOutput reports whether the lines a block printed, got, are those
// its text block shows, want: line for line, where a line of want ending
// in "..." stands for any line starting with what comes before, and a
// line "..." alone for any lines, none included (what depends on the
// machine: times, core counts, sizes of compressed data). Trailing spaces
// are ignored.
func matchOutput(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0 || len(got) == 1 && strings.TrimSpace(got[0]) == ""
	}
	w := strings.TrimRight(want[0], " ")
	if w == "..." {
		for i := 0; i <= len(got); i++ {
			if matchOutput(want[1:], got[i:]) {
				return true
			}
		}
		return false
	}
	if len(got) == 0 {
		return false
	}
	g := strings.TrimRight(got[0], " ")
	if prefix, ok := strings.CutSuffix(w, "..."); ok {
		if !strings.HasPrefix(g, prefix) {
			return false
		}
	} else if g != w {
		return false
	}
	return matchOutput(want[1:], got[1:])
}

// TestParse checks the convention on small documents: the commands of
// ```sh blocks are found with their lines, a failing one with the lines of
// the text block after its block, and documents that break it fail.
func TestParse(t *testing.T) {
	doc := "# x\n```sh\ntrevni a \\\n  b\n# note\n\n! trevni c\n```\n\n```text\ntrevni: c: failed\n```\n"
	cmds, err := parse("d.md", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []command{
		{line: 3, text: "trevni a \\\n  b"},
		{line: 7, text: "! trevni c", fails: true, expect: []string{"trevni: c: failed"}},
	}
	if !reflect.DeepEqual(cmds, want) {
		t.Errorf("got %+v, want %+v", cmds, want)
	}
	for _, bad := range []string{
		"```\ntrevni a\n```\n",
		"```text\ntrevni a\n```\n",
		"```sh\n$ trevni a\n```\n",
		"```sh\ntrevni a \\\n```\n",
		"```sh\ntrevni a\n",
		"```sh\ntrevni a | head -2\n```\n",
		"```sh\n! trevni a\n```\n",                             // no message shown
		"```sh\n! trevni a\n```\nIt fails.\n```text\nx\n```\n", // not right after
		"```sh\n! trevni a\n```\n```go\nx\n```\n",
	} {
		if _, err := parse("d.md", []byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, err := parse("d.md", []byte("```console-norun\ntrevni a https://host/x\n```\n")); err != nil {
		t.Errorf("console-norun: %v", err)
	}
}

// TestMatchOutput checks the matching of a block's output with the text
// block that shows it.
func TestMatchOutput(t *testing.T) {
	for _, tc := range []struct {
		want, got string
		ok        bool
	}{
		{"a\nb", "a\nb", true},
		{"a\nb", "a\nc", false},
		{"a\nb", "a", false},
		{"a: ...\nb", "a: 1,234 bytes\nb", true},
		{"a: ...", "b: 1", false},
		{"a\n...\nz", "a\nb\nc\nz", true},
		{"a\n...\nz", "a\nz", true},
		{"a\n...\nz", "a\nb", false},
		{"a  ", "a", true},
	} {
		if got := matchOutput(strings.Split(tc.want, "\n"), strings.Split(tc.got, "\n")); got != tc.ok {
			t.Errorf("%q against %q: %v, want %v", tc.want, tc.got, got, tc.ok)
		}
	}
	doc := "```sh\ntrevni a\ntrevni b\n```\n\n```text\nout\n```\n"
	cmds, err := parse("d.md", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(cmds) != 2 || cmds[1].first != 0 || !reflect.DeepEqual(cmds[1].output, []string{"out"}) || cmds[0].output != nil {
		t.Errorf("parsed %+v", cmds)
	}
}
