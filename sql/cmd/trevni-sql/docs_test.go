package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocExamples runs the trevni-sql examples of docs/sql.md and README.md (the root
// module's doctest cannot: it builds the pure-Go trevni only, so they are
// ```console-norun blocks there) in a work directory holding testdata/,
// and checks that each block's last command prints what the ```text block
// right after it shows (standard output, then standard error). A block
// with a line that is not a trevni-sql command (an install) is not run. A
// command written "! trevni-sql ..." must fail with status 1.
func TestDocExamples(t *testing.T) {
	for _, doc := range []struct {
		path string
		min  int
	}{{"docs/sql.md", 5}, {"README.md", 1}} {
		t.Run(doc.path, func(t *testing.T) { testDocExamples(t, doc.path, doc.min) })
	}
}

// testDocExamples runs the examples of one page, which must have at least
// min of them.
func testDocExamples(t *testing.T, page string, min int) {
	src, err := os.ReadFile(filepath.Join("..", "..", "..", filepath.FromSlash(page)))
	if err != nil {
		t.Fatal(err)
	}
	data, err := filepath.Abs(filepath.Join("..", "..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := docBlocks(string(src))
	if len(blocks) < min {
		t.Fatalf("%s: %d runnable examples, want at least %d", page, len(blocks), min)
	}
	work := t.TempDir()
	if err := os.Symlink(data, filepath.Join(work, "testdata")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	for _, b := range blocks {
		var out string
		for _, c := range b.cmds {
			fails := strings.HasPrefix(c, "! ")
			args, err := shellWords(strings.TrimPrefix(strings.TrimPrefix(c, "! "), "trevni-sql "))
			if err != nil {
				t.Fatalf("%s:%d: %v", page, b.line, err)
			}
			code, stdout, stderr := runCmd(t, args...)
			if fails != (code == 1) || (!fails && code != 0) {
				t.Errorf("%s:%d: %s: status %d: %s", page, b.line, c, code, stderr)
			}
			out = stdout + stderr
		}
		if b.hasWant && out != b.want {
			t.Errorf("%s:%d: output\n%s\nthe doc shows\n%s", page, b.line, out, b.want)
		}
	}
}

// docBlock is a runnable example: its commands and the output shown after
// it.
type docBlock struct {
	line    int
	cmds    []string
	want    string
	hasWant bool
}

// docBlocks returns the runnable examples of a Markdown text.
func docBlocks(src string) []docBlock {
	lines := strings.Split(src, "\n")
	var out []docBlock
	for i := 0; i < len(lines); i++ {
		if lines[i] != "```console-norun" {
			continue
		}
		b := docBlock{line: i + 1}
		runnable := true
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			l := strings.TrimSpace(lines[i])
			if l == "" {
				continue
			}
			if !strings.HasPrefix(l, "trevni-sql ") && !strings.HasPrefix(l, "! trevni-sql ") {
				runnable = false
			}
			b.cmds = append(b.cmds, l)
		}
		if !runnable {
			continue
		}
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) == "" {
			j++
		}
		if j < len(lines) && lines[j] == "```text" {
			var w []string
			for j++; j < len(lines) && lines[j] != "```"; j++ {
				w = append(w, lines[j]+"\n")
			}
			b.want, b.hasWant = strings.Join(w, ""), true
		}
		out = append(out, b)
	}
	return out
}

// shellWords splits a command line as a POSIX shell does quotes: '...'
// literally, "..." with \" \\ \$ \` escaped, a backslash outside quotes
// escaping the next character.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unclosed ' in %s", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unclosed \" in %s", s)
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
