package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

var tinyRLE = filepath.Join(interopDir, "tiny", "tiny_rle.trv")

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"--bogus", "meta", tinyRLE},
		{"schema", "a", "b", "c"},
		{"fromavro", "in.avro"},
		{"meta", "--bogus", tinyRLE},
		{"dump", "--pretty", tinyRLE},
		{"completion", "bash", "extra"},
		{"help", "frobnicate"},
		{"help", "meta", "dump"},
	} {
		r := runIn(t, nil, args...)
		if r.code != exitUsage {
			t.Errorf("%q: exit status %d, want 2; stderr:\n%s", args, r.code, r.stderr)
		}
		if r.stdout != "" {
			t.Errorf("%q: usage error wrote to stdout:\n%s", args, r.stdout)
		}
		if !strings.Contains(r.stderr, "usage: trevni") && !strings.Contains(r.stderr, "trevni help") {
			t.Errorf("%q: stderr shows no usage:\n%s", args, r.stderr)
		}
	}
}

func TestHelp(t *testing.T) {
	r := runIn(t, nil, "help")
	if r.code != 0 {
		t.Fatalf("help: exit status %d", r.code)
	}
	for _, c := range commandTable() {
		if !strings.Contains(r.stdout, c.name) {
			t.Errorf("help does not list %s", c.name)
		}
		for _, args := range [][]string{{"help", c.name}, {c.name, "-h"}, {c.name, "--help"}, {c.name, tinyRLE, "-h"}} {
			r := runIn(t, nil, args...)
			if r.code != 0 || r.stderr != "" {
				t.Errorf("%q: exit status %d, stderr %q", args, r.code, r.stderr)
			}
			for _, want := range []string{"usage: trevni " + c.name, "\nExamples", "\n\ttrevni " + c.name, "--quiet"} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("%q: help lacks %q:\n%s", args, want, r.stdout)
				}
			}
		}
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"help", "help"}} {
		if r := runIn(t, nil, args...); r.code != 0 || r.stdout == "" {
			t.Errorf("%q: exit status %d, stdout %q", args, r.code, r.stdout)
		}
	}
}

// TestCommandTable checks that every command is well formed.
func TestCommandTable(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range commandTable() {
		if seen[c.name] || c.name == "help" {
			t.Errorf("command %q defined twice", c.name)
		}
		seen[c.name] = true
		if c.summary == "" || c.help == "" || (c.args == "") != (c.maxArgs == 0) || c.setup == nil {
			t.Errorf("command %q: missing summary, help, args or setup", c.name)
		}
		if c.minArgs < 0 || c.maxArgs >= 0 && c.maxArgs < c.minArgs {
			t.Errorf("command %q: bad argument counts", c.name)
		}
		if lookupCommand(c.name) == nil {
			t.Errorf("command %q not found", c.name)
		}
	}
}

func TestParseArgs(t *testing.T) {
	for _, tc := range []struct {
		args, pos []string
		pretty    bool
	}{
		{[]string{"a", "b"}, []string{"a", "b"}, false},
		{[]string{"--pretty", "a"}, []string{"a"}, true},
		{[]string{"a", "--pretty", "b"}, []string{"a", "b"}, true},
		{[]string{"a", "b", "-pretty"}, []string{"a", "b"}, true},
		{[]string{"-", "--pretty"}, []string{"-"}, true},
		{[]string{"--", "--pretty", "a"}, []string{"--pretty", "a"}, false},
		{[]string{"a", "--", "-b"}, []string{"a", "-b"}, false},
		{nil, nil, false},
	} {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		pretty := fs.Bool("pretty", false, "")
		pos, err := parseArgs(fs, tc.args)
		if err != nil || !reflect.DeepEqual(pos, tc.pos) || *pretty != tc.pretty {
			t.Errorf("parseArgs(%q) = %q, pretty %v, %v; want %q, pretty %v", tc.args, pos, *pretty, err, tc.pos, tc.pretty)
		}
	}
}

func TestOneLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"trevni: column \"a\": bad", "column \"a\": bad"},
		{"x.trv: trevni: offset 3: bad", "x.trv: offset 3: bad"},
		{"two\nlines\r\n", "two lines"},
		{"ocf: header at offset 0: bad", "header at offset 0: bad"},
		{"x.trv: assemble: record 3: shred: y: ocf: z", "x.trv: record 3: y: z"},
		{"x.trv: avro schema: bad", "x.trv: avro schema: bad"},
		{"x.trv: offset 0: not a valid trevni file: trevni: not a valid trevni file: short", "x.trv: offset 0: not a valid trevni file: short"},
		{"a: b: a: b", "a: b: a: b"},
	} {
		if got := oneLine(errors.New(tc.in)); got != tc.want {
			t.Errorf("oneLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestPanicRecovered checks the last-resort recovery: a command that
// panics is reported on one line with exit status 1.
func TestPanicRecovered(t *testing.T) {
	a := newApp(strings.NewReader(""), &strings.Builder{}, &strings.Builder{})
	cmd := &command{name: "boom", args: "", maxArgs: -1, setup: func(fs *flag.FlagSet) runFunc {
		return func(e *env, args []string, _ *output) error { panic(fmt.Sprintf("bad\nthing %d", 42)) }
	}}
	code := a.runCommand(t.Context(), cmd, nil, false)
	stderr := a.stderr.(*strings.Builder).String()
	if code != exitError || stderr != "trevni: boom: internal error: bad thing 42\n" {
		t.Errorf("got status %d, stderr %q", code, stderr)
	}
}

// TestUsageErrorFromCommand checks that a command's own usage error exits
// with status 2, the message and the line saying where the usage is.
func TestUsageErrorFromCommand(t *testing.T) {
	var out, errOut strings.Builder
	a := newApp(strings.NewReader(""), &out, &errOut)
	cmd := &command{name: "picky", args: "X", maxArgs: -1, setup: func(fs *flag.FlagSet) runFunc {
		return func(e *env, args []string, _ *output) error { return e.usagef("X must be odd") }
	}}
	if code := a.runCommand(t.Context(), cmd, nil, false); code != exitUsage {
		t.Errorf("exit status %d, want 2", code)
	}
	if errOut.String() != "trevni: picky: X must be odd\nrun 'trevni help picky' for usage\n" {
		t.Errorf("stderr:\n%s", errOut.String())
	}
}

func TestGlobalQuiet(t *testing.T) {
	r := runIn(t, nil, "--quiet", "validate", tinyRLE)
	if r.code != 0 || !strings.Contains(r.stdout, "ok: 9 rows, 4 columns, 4 blocks checked") {
		t.Errorf("got %+v", r)
	}
}

// TestStdinDefault checks that a reading command with no input reads
// standard input when it is not a terminal, and is a usage error when it
// is one.
func TestStdinDefault(t *testing.T) {
	email := filepath.Join(interopDir, "email", "email.deflate.crc32.trv")
	data := readFile(t, email)
	for _, cmd := range []string{"dump", "meta", "validate", "tojson", "schema"} {
		named := runIn(t, bytes.NewReader(data), cmd, "-")
		r := runIn(t, bytes.NewReader(data), cmd)
		if r != named {
			t.Errorf("%s < file: %+v, want as with -: %+v", cmd, r, named)
		}
		var out, errOut bytes.Buffer
		a := newApp(bytes.NewReader(data), &out, &errOut)
		a.stdinTTY = true
		if code := a.run(context.Background(), []string{cmd}); code != exitUsage || !strings.Contains(errOut.String(), "terminal") {
			t.Errorf("%s with a terminal: status %d, stderr %q", cmd, code, errOut.String())
		}
	}
	f, err := os.Open(email)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if r := runBin(t, f, "tojson"); r.code != 0 || r.stdout != runIn(t, nil, "tojson", email).stdout {
		t.Errorf("tojson < file: %+v", r)
	}
}

// TestLibraryPackagesListed checks that every package of the module and
// of the stores module is in libraryPackages, so that none of their
// prefixes reaches a message.
func TestLibraryPackagesListed(t *testing.T) {
	for _, root := range []string{filepath.Join("..", ".."), filepath.Join("..", "..", "stores")} {
		libraryPackagesListed(t, root)
	}
}

func libraryPackagesListed(t *testing.T, root string) {
	seen := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != root {
			// A directory with its own go.mod (beam/) is another module.
			if _, serr := os.Stat(filepath.Join(p, "go.mod")); serr == nil {
				return fs.SkipDir
			}
		}
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		if name := f.Name.Name; name != "main" && !slices.Contains(libraryPackages, name) {
			t.Errorf("package %s (%s) is not in libraryPackages", name, p)
		}
		seen++
		return nil
	})
	if err != nil || seen == 0 {
		t.Fatalf("walking the module: %v, %d files", err, seen)
	}
}

// TestCapMessage checks that a long message keeps its head and tail, says
// how much was cut, and stays valid UTF-8.
func TestCapMessage(t *testing.T) {
	long := "x.avsc: field R.f" + strings.Repeat(", items ✓", 10000) + ": unknown type \"nosuch\""
	got := oneLine(errors.New(long))
	if len(got) > maxMessage+40 || !utf8.ValidString(got) {
		t.Fatalf("%d bytes, valid %v", len(got), utf8.ValidString(got))
	}
	if !strings.HasPrefix(got, "x.avsc: field R.f, items") || !strings.HasSuffix(got, `: unknown type "nosuch"`) ||
		!strings.Contains(got, "bytes cut]") {
		t.Errorf("got %q", got)
	}
	var n int
	if i := strings.Index(got, "... ["); i < 0 {
		t.Fatal("no count")
	} else if _, err := fmt.Sscanf(got[i+5:], "%d bytes cut", &n); err != nil {
		t.Fatal(err)
	}
	if kept := len(got) - len(fmt.Sprintf(" ... [%d bytes cut] ... ", n)); kept+n != len(long) {
		t.Errorf("says %d bytes cut, %d were", n, len(long)-kept)
	}
	if short := "a: b"; oneLine(errors.New(short)) != short {
		t.Error("a short message was changed")
	}
}

// TestUsageAligned checks that the list of commands and every command's
// flags are printed in aligned columns.
func TestUsageAligned(t *testing.T) {
	check := func(what, text, start string) {
		col := -1
		for _, l := range strings.Split(text, "\n") {
			if !strings.HasPrefix(l, start) {
				continue
			}
			i := strings.Index(strings.TrimLeft(l, " "), "  ")
			if i < 0 {
				t.Errorf("%s: no gap in %q", what, l)
				continue
			}
			i += len(l) - len(strings.TrimLeft(l, " "))
			i += len(l[i:]) - len(strings.TrimLeft(l[i:], " "))
			if col >= 0 && i != col {
				t.Errorf("%s: %q starts its text at %d, not %d", what, l, i, col)
			}
			col = i
		}
	}
	usage := runIn(t, nil, "help").stdout
	usage = usage[strings.Index(usage, "Commands:"):]
	check("usage", usage[:strings.Index(usage, "\n\n")], "  ")
	for _, c := range commandTable() {
		help := runIn(t, nil, "help", c.name).stdout
		check(c.name, help[strings.Index(help, "Flags:"):], "  -")
	}
}

// TestUsageErrorForm checks the form of every kind of usage error: the
// message, for a --where expression the expression with a caret under the
// character at fault, and one line saying where the usage is; no flag
// list. The full help still comes with help COMMAND and -h.
func TestUsageErrorForm(t *testing.T) {
	hint := "run 'trevni help tojson' for usage"
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"tojson", "--bogus", tinyRLE}, "trevni: tojson: unknown flag -bogus"},
		{[]string{"tojson", "--limit", "x", tinyRLE}, "trevni: tojson: invalid value \"x\" for flag -limit: parse error"},
		{[]string{"tojson", "--codec", "zz", tinyRLE}, "trevni: tojson: unknown flag -codec"},
		{[]string{"tojson", "--offset", "-1", filepath.Join(interopDir, "email", "email.deflate.crc32.trv")}, "trevni: tojson: --offset must not be negative"},
	} {
		r := runIn(t, nil, c.args...)
		if want := c.msg + "\n" + hint + "\n"; r.code != exitUsage || r.stderr != want {
			t.Errorf("%q: status %d, stderr\n%s\nwant 2 and\n%s", c.args, r.code, r.stderr, want)
		}
	}
	// --where: the expression, and a caret under the second '>'.
	expr := "amount >> 3"
	r := runIn(t, nil, "tojson", "--where", expr, filepath.Join(interopDir, "email", "email.deflate.crc32.trv"))
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if r.code != exitUsage || len(lines) != 4 || !strings.HasPrefix(lines[0], "trevni: tojson: --where: ") || lines[3] != hint {
		t.Fatalf("--where %q: status %d, stderr\n%s", expr, r.code, r.stderr)
	}
	at := strings.Index(lines[1], expr)
	if at < 0 || strings.TrimSpace(lines[2]) != "^" || strings.Index(lines[2], "^") != at+strings.Index(expr, ">>")+1 {
		t.Errorf("--where %q: the caret is not under the fault:\n%s\n%s", expr, lines[1], lines[2])
	}
	// help COMMAND and COMMAND -h print the whole help with the flags.
	for _, args := range [][]string{{"help", "tojson"}, {"tojson", "-h"}} {
		r := runIn(t, nil, args...)
		if r.code != exitOK || !strings.Contains(r.stdout, "Flags:") || !strings.Contains(r.stdout, "--where EXPR") {
			t.Errorf("%q: status %d, no flag list in\n%s", args, r.code, r.stdout)
		}
	}
}
