//go:build unix

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestTableCommandsTakeForce checks that fromcsv, tocsv, fromclmn and
// toclmn, whose "exists" error tells the user to give --force, take it:
// refused without, replaced with.
func TestTableCommandsTakeForce(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "in.csv")
	writeFileT(t, csv, []byte("a,b\n1,x\n2,y\n"))
	clmnFile := filepath.Join(dir, "in.clmn")
	if r := runIn(t, nil, "fromcsv", "--quiet", csv, clmnFile); r.code != exitOK {
		t.Fatalf("fromcsv to CLMN: %+v", r)
	}
	trv := filepath.Join(dir, "in.trv")
	if r := runIn(t, nil, "fromcsv", "--quiet", csv, trv); r.code != exitOK {
		t.Fatalf("fromcsv: %+v", r)
	}
	for _, c := range []struct {
		cmd, in, out string
	}{
		{"fromcsv", csv, "out.trv"},
		{"tocsv", trv, "out.csv"},
		{"fromclmn", clmnFile, "out.trv"},
		{"toclmn", trv, "out.clmn"},
	} {
		out := filepath.Join(dir, c.out)
		writeFileT(t, out, []byte("old"))
		r := runIn(t, nil, c.cmd, "--quiet", c.in, out)
		if r.code != exitError || !strings.Contains(r.stderr, "exists: give --force to replace it") {
			t.Errorf("%s without --force: status %d, stderr %q", c.cmd, r.code, r.stderr)
		}
		if r := runIn(t, nil, c.cmd, "--quiet", "--force", c.in, out); r.code != exitOK {
			t.Errorf("%s --force: status %d, stderr %q", c.cmd, r.code, r.stderr)
		}
		if string(readFile(t, out)) == "old" {
			t.Errorf("%s --force did not replace the file", c.cmd)
		}
	}
}

// TestNamedPipeInput checks that a named pipe given as the input of a
// command that needs random access is read as standard input is (copied),
// not reported as a truncated file.
func TestNamedPipeInput(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(interopDir, "email", "email.deflate.crc32.trv")
	data := readFile(t, src)
	want := readFile(t, filepath.Join(interopDir, "email", "expected.jsonl"))
	for _, args := range [][]string{{"tojson"}, {"validate"}, {"tocsv", "--fields", "id"}, {"meta"}} {
		fifo := filepath.Join(dir, "p")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		go func() {
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				return
			}
			f.Write(data)
			f.Close()
		}()
		r := runIn(t, nil, append(args, fifo)...)
		os.Remove(fifo)
		if r.code != exitOK {
			t.Errorf("%s of a named pipe: status %d, stderr %q", args[0], r.code, r.stderr)
			continue
		}
		if args[0] == "tojson" && r.stdout != string(want) {
			t.Errorf("tojson of a named pipe: %d bytes, want the %d of expected.jsonl", len(r.stdout), len(want))
		}
	}
}

// TestFromcsvErrorNamesInput checks that fromcsv's "schema is too large"
// (its schema is the input's header's) names the input.
func TestFromcsvErrorNamesInput(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "wide.csv")
	writeFileT(t, csv, []byte("a,b,c\n1,2,3\n"))
	r := runIn(t, nil, "fromcsv", "--max-columns", "2", csv, filepath.Join(dir, "out.trv"))
	if r.code != exitError || !strings.HasPrefix(r.stderr, "trevni: fromcsv: "+csv+": ") || !strings.Contains(r.stderr, "schema is too large") {
		t.Errorf("status %d, stderr %q; want the input named first", r.code, r.stderr)
	}
}

// TestUnknownFieldsDeterministic checks that of several unknown --fields
// names the one reported is the first in the order given, on every run
// (the reader checks them in map order).
func TestUnknownFieldsDeterministic(t *testing.T) {
	file := filepath.Join(interopDir, "email", "email.deflate.crc32.trv")
	for range 20 {
		r := runIn(t, nil, "tojson", "--fields", "id,zz1,zz2,zz3,zz4,zz5", file)
		if r.code == exitOK || !strings.Contains(r.stderr, ": zz1: ") || strings.Contains(strings.ReplaceAll(r.stderr, "zz1", ""), "zz") {
			t.Fatalf("status %d, stderr %q; want zz1 reported", r.code, r.stderr)
		}
	}
}

// TestConcatSchemasDiffer checks that concat of files of different
// schemas says so and names the first differing column and both parts.
func TestConcatSchemasDiffer(t *testing.T) {
	a := filepath.Join(interopDir, "email", "email.deflate.crc32.trv")
	b := filepath.Join(interopDir, "primitives", "primitives.null.crc32.trv")
	r := runIn(t, nil, "concat", a, b, filepath.Join(t.TempDir(), "out.trv"))
	want := a + " and " + b + ` cannot be joined: their schemas differ at column 0: "id" (int) in the first, "n" (null) in the second`
	if r.code != exitError || !strings.Contains(r.stderr, want) {
		t.Errorf("status %d, stderr %q; want %q", r.code, r.stderr, want)
	}
	// A part with the first part's columns and more: the first extra
	// column is named, absent from the first part.
	dir := t.TempDir()
	short, long := filepath.Join(dir, "short.avsc"), filepath.Join(dir, "long.avsc")
	writeFileT(t, short, []byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}`))
	writeFileT(t, long, []byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"long"}]}`))
	for _, s := range []string{short, long} {
		if r := runIn(t, nil, "random", "--quiet", s, "2", strings.TrimSuffix(s, ".avsc")+".trv"); r.code != exitOK {
			t.Fatalf("random: %+v", r)
		}
	}
	r = runIn(t, nil, "concat", filepath.Join(dir, "short.trv"), filepath.Join(dir, "long.trv"), filepath.Join(dir, "out.trv"))
	if r.code != exitError || !strings.Contains(r.stderr, `differ at column 1: absent in the first, "b" (long) in the second`) {
		t.Errorf("status %d, stderr %q", r.code, r.stderr)
	}
}

// TestDumpLimit checks dump --limit against the full dump: the first N
// rows, across the parts of a data set, and with --where the first N
// rows that match.
func TestDumpLimit(t *testing.T) {
	file := filepath.Join(interopDir, "email", "email.deflate.crc32.trv")
	all := runIn(t, nil, "dump", file)
	lines := strings.SplitAfter(all.stdout, "\n")
	lines = lines[:len(lines)-1]
	for _, n := range []int{0, 1, 7, len(lines), len(lines) + 5} {
		r := runIn(t, nil, "dump", "--limit", strconv.Itoa(n), file)
		if want := strings.Join(lines[:min(n, len(lines))], ""); r.code != exitOK || r.stdout != want {
			t.Errorf("--limit %d: status %d, %d bytes, want %d", n, r.code, len(r.stdout), len(want))
		}
	}
	// Two parts: the limit runs on into the second.
	r := runIn(t, nil, "dump", "--limit", strconv.Itoa(len(lines)+3), file, file)
	if want := strings.Join(append(slices.Clone(lines), lines[:3]...), ""); r.code != exitOK || r.stdout != want {
		t.Errorf("--limit across two parts: status %d, %d bytes, want %d", r.code, len(r.stdout), len(want))
	}
	// With --where, the first N matches.
	where := "id > 100"
	matched := runIn(t, nil, "dump", "--where", where, file).stdout
	mlines := strings.SplitAfter(matched, "\n")
	r = runIn(t, nil, "dump", "--where", where, "--limit", "4", file)
	if len(mlines) < 5 || r.code != exitOK || r.stdout != strings.Join(mlines[:4], "") {
		t.Errorf("--where --limit 4: status %d, got %q", r.code, r.stdout)
	}
}

// TestHelpListsStdinCommands checks that the help names every command
// that reads standard input in its sentence about it.
func TestHelpListsStdinCommands(t *testing.T) {
	r := runIn(t, nil, "help")
	text := strings.Join(strings.Fields(r.stdout), " ")
	i := strings.Index(text, "The reading commands (")
	if i < 0 {
		t.Fatal("no sentence on the reading commands")
	}
	sentence, _, _ := strings.Cut(text[i:], ")")
	for _, c := range commandTable() {
		if c.stdin && !strings.Contains(sentence, c.name) {
			t.Errorf("%s reads standard input but the help does not list it: %q", c.name, sentence)
		}
	}
	if !strings.Contains(sentence, "count") || !strings.Contains(sentence, "head") {
		t.Errorf("count and head missing from %q", sentence)
	}
}
