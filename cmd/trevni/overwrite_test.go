package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// copyFile copies src into dir under name, and returns its path.
func copyFile(t testing.TB, src, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	writeFileT(t, p, readFile(t, src))
	return p
}

// checkRefused checks a run refused to write: status 1, one line naming
// the file and containing want, and every file of dir as it was.
func checkRefused(t *testing.T, r result, command, file, want string, dir string, before map[string][]byte) {
	t.Helper()
	checkOneLineError(t, r, command)
	if !strings.Contains(r.stderr, file) || !strings.Contains(r.stderr, want) {
		t.Errorf("%s: message %q does not name %s and %q", command, r.stderr, file, want)
	}
	checkUnchanged(t, dir, before)
}

// snapshot reads every file of dir, for checkUnchanged.
func snapshot(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	for _, n := range dirNames(t, dir) {
		if fi, err := os.Lstat(filepath.Join(dir, n)); err == nil && fi.Mode().IsRegular() {
			m[n] = readFile(t, filepath.Join(dir, n))
		}
	}
	return m
}

// checkUnchanged checks that dir holds exactly the regular files of before,
// byte for byte, and no temporary file or directory.
func checkUnchanged(t testing.TB, dir string, before map[string][]byte) {
	t.Helper()
	after := snapshot(t, dir)
	if !reflect.DeepEqual(after, before) {
		for n := range before {
			if !bytes.Equal(after[n], before[n]) {
				t.Errorf("%s changed", n)
			}
		}
	}
	for _, n := range dirNames(t, dir) {
		if strings.HasPrefix(n, ".") || strings.Contains(n, "trevni-") {
			t.Errorf("temporary file left: %s", n)
		}
	}
}

// TestE2ENoOverwriteInput checks that no command writes over one of its
// own inputs, however the output names it, even with --force.
func TestE2ENoOverwriteInput(t *testing.T) {
	dir := t.TempDir()
	trv := copyFile(t, filepath.Join(interopDir, "email", "email.deflate.crc32.trv"), dir, "a.trv")
	avro := copyFile(t, filepath.Join(interopDir, "email", "input.avro"), dir, "a.avro")
	avsc := copyFile(t, filepath.Join(interopDir, "email", "schema.avsc"), dir, "s.avsc")
	jsonl := copyFile(t, filepath.Join(interopDir, "email", "input.jsonl"), dir, "in.jsonl")
	hard := filepath.Join(dir, "hard.trv")
	if err := os.Link(trv, hard); err != nil {
		t.Fatal(err)
	}
	soft := filepath.Join(dir, "soft.trv")
	if err := os.Symlink("a.trv", soft); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	for _, c := range []struct {
		args []string
		file string // the output named in the message
	}{
		// meta, dump, tojson and toproto read an existing Trevni file
		// named last as one more input (dataset_test.go), so name the
		// output in a list of several inputs instead.
		{[]string{"toavro", trv, hard, trv}, trv},
		{[]string{"toavro", trv, soft}, soft},
		{[]string{"schema", trv, trv}, trv},
		{[]string{"toavro", trv, trv}, trv},
		{[]string{"fromavro", avro, avro}, avro},
		{[]string{"fromavro", avro, avro, avro}, avro},
		{[]string{"fromjson", "--schema", avsc, jsonl, avsc}, avsc},
		{[]string{"fromjson", "--schema", avsc, jsonl, jsonl}, jsonl},
		{[]string{"tojson", "--schema", avsc, trv, avsc}, avsc},
		{[]string{"random", avsc, "10", avsc}, avsc},
		{[]string{"fromproto", "--message", "google.protobuf.Empty", trv, trv}, trv},
	} {
		for _, force := range []bool{false, true} {
			args := slices.Clone(c.args)
			if force {
				args = append([]string{args[0], "--force"}, args[1:]...)
			}
			r := runBin(t, nil, args...)
			t.Logf("%q: %s", args, strings.TrimSpace(r.stderr))
			checkRefused(t, r, args[0], c.file, "refusing to write over it", dir, before)
		}
	}
	// The input read from standard input, as a file.
	f, err := os.Open(trv)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	checkRefused(t, runBin(t, f, "toavro", "--force", "-", hard), "toavro", hard, "refusing", dir, before)
}

// TestE2ENoOverwriteWithoutForce checks that every command that writes a
// file leaves an existing one alone unless --force is given, and replaces
// it with --force. The forgotten output of issue 11 is the first case:
// "fromavro p1.avro p2.avro" must not replace p2.avro.
func TestE2ENoOverwriteWithoutForce(t *testing.T) {
	dir := t.TempDir()
	src := t.TempDir()
	trv := copyFile(t, filepath.Join(interopDir, "email", "email.deflate.crc32.trv"), src, "a.trv")
	avro := copyFile(t, filepath.Join(interopDir, "email", "input.avro"), src, "p1.avro")
	avsc := copyFile(t, filepath.Join(interopDir, "email", "schema.avsc"), src, "s.avsc")
	jsonl := copyFile(t, filepath.Join(interopDir, "email", "input.jsonl"), src, "in.jsonl")
	srcBefore := snapshot(t, src)
	for _, args := range [][]string{
		{"fromavro", avro, "p2.avro"},
		{"toavro", trv, "out.avro"},
		{"tojson", trv, "b.trv"},
		{"fromjson", "--schema", avsc, jsonl, "out.trv"},
		{"random", avsc, "10", "out.trv"},
		{"schema", trv, "out.avsc"},
		{"meta", trv, "out.json"},
		{"dump", trv, "out.jsonl"},
	} {
		out := filepath.Join(dir, args[len(args)-1])
		args[len(args)-1] = out
		old := copyFile(t, filepath.Join(interopDir, "email", "input.avro"), dir, filepath.Base(out))
		before := snapshot(t, dir)
		r := runBin(t, nil, args...)
		checkRefused(t, r, args[0], old, "--force", dir, before)
		forced := append([]string{args[0], "--force", "--quiet"}, args[1:]...)
		if r := runBin(t, nil, forced...); r.code != 0 {
			t.Errorf("%q: %+v", forced, r)
		}
		if bytes.Equal(readFile(t, out), before[filepath.Base(out)]) {
			t.Errorf("%q: the file was not replaced", forced)
		}
		os.Remove(out)
		checkUnchanged(t, dir, map[string][]byte{})
	}
	checkUnchanged(t, src, srcBefore)

	// Outputs that are not regular files are written without --force.
	if r := runBin(t, nil, "dump", trv, os.DevNull); r.code != 0 {
		t.Errorf("dump to %s: %+v", os.DevNull, r)
	}
	if r := runBin(t, nil, "dump", trv, "-"); r.code != 0 || r.stdout == "" {
		t.Errorf("dump to -: %+v", r)
	}
}

// TestE2EDanglingLink checks that an output that is a symbolic link to a
// file that does not exist creates that file and keeps the link.
func TestE2EDanglingLink(t *testing.T) {
	dir := t.TempDir()
	trv := filepath.Join(interopDir, "tiny", "tiny_rle.trv")
	link := filepath.Join(dir, "link.jsonl")
	target := filepath.Join(dir, "sub", "target.jsonl")
	if err := os.Mkdir(filepath.Dir(target), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("sub", "target.jsonl"), link); err != nil {
		t.Fatal(err)
	}
	if r := runBin(t, nil, "dump", trv, link); r.code != 0 {
		t.Fatalf("dump: %+v", r)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v, %v", fi, err)
	}
	if got, want := string(readFile(t, target)), runIn(t, nil, "dump", trv).stdout; got != want {
		t.Errorf("target holds %q, want %q", got, want)
	}
	// Now the link leads to an existing file: --force is needed.
	checkOneLineError(t, runBin(t, nil, "dump", trv, link), "dump")
	if r := runBin(t, nil, "dump", "--force", trv, link); r.code != 0 {
		t.Errorf("dump --force: %+v", r)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v, %v", fi, err)
	}
	if names := dirNames(t, filepath.Dir(target)); !reflect.DeepEqual(names, []string{"target.jsonl"}) {
		t.Errorf("files beside the target: %q", names)
	}
}

// TestStdoutIsInput checks that a command whose standard output is one of
// its inputs (trevni tojson g.trv >> g.trv, or < g.trv >> g.trv) refuses
// to run, saying so, and leaves the file as it was; standard output to
// another file works.
func TestStdoutIsInput(t *testing.T) {
	dir := t.TempDir()
	g := copyFile(t, filepath.Join(interopDir, "email", "email.deflate.crc32.trv"), dir, "g.trv")
	before := readFile(t, g)
	appendTo := func(path string) *os.File {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	for _, c := range []struct {
		name  string
		args  []string
		stdin bool // g.trv is standard input
	}{
		{"tojson g.trv >> g.trv", []string{"tojson", g}, false},
		{"dump g.trv >> g.trv", []string{"dump", g}, false},
		{"head g.trv >> g.trv", []string{"head", g}, false},
		{"tojson < g.trv >> g.trv", []string{"tojson"}, true},
		{"meta - < g.trv >> g.trv", []string{"meta", "-"}, true},
	} {
		var stdin io.Reader = strings.NewReader("")
		if c.stdin {
			f, err := os.Open(g)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			stdin = f
		}
		var errOut bytes.Buffer
		code := run(c.args, stdin, appendTo(g), &errOut)
		if code != exitError || !strings.Contains(errOut.String(), "input file is output file") {
			t.Errorf("%s: status %d, stderr %q; want 1 and \"input file is output file\"", c.name, code, errOut.String())
		}
		if !bytes.Equal(readFile(t, g), before) {
			t.Fatalf("%s: the input was written to", c.name)
		}
	}
	// Standard output to another file is fine.
	other := filepath.Join(dir, "other.jsonl")
	var errOut bytes.Buffer
	if code := run([]string{"tojson", g}, strings.NewReader(""), appendTo(other), &errOut); code != exitOK {
		t.Fatalf("tojson g.trv >> other.jsonl: status %d, stderr %q", code, errOut.String())
	}
	want := readFile(t, filepath.Join(interopDir, "email", "expected.jsonl"))
	if got := readFile(t, other); !bytes.Equal(got, want) {
		t.Errorf("tojson g.trv >> other.jsonl wrote %d bytes, want the %d of expected.jsonl", len(got), len(want))
	}
}

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
