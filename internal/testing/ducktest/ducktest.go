// Package ducktest runs DuckDB, and Apache Arrow's JavaScript library,
// for the tests of every module of the repository, through their Node
// packages (@duckdb/node-api, apache-arrow): the independent reader
// against which the tests check the files the module writes (Parquet,
// Arrow IPC) and the tables it reads (CSV, JSON).
//
// .ci/run installs the packages into .ci/node at the repository's root
// (Install is its command); TREVNI_DUCKDB_NODE names another folder
// holding their node_modules. Without node or a package, a test that
// needs them fails when the environment variable CI is set and is skipped
// otherwise, saying what to install.
//
// Query and ReadParquet are served by node processes that a test binary
// starts once and keeps (one for each call running at the same time),
// each request in a fresh in-memory DuckDB: starting node and loading
// DuckDB's package is about three quarters of a CPU second, a fresh DuckDB
// about a twentieth. Run starts a process for each call.
package ducktest

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Packages are the Node packages the tests drive, at the versions .ci/run
// installs (TestPackagesAsCI holds the two together).
const Packages = "@duckdb/node-api@1.5.6-r.1 apache-arrow@21.2.0"

// Install is the command, run at the repository's root, that installs
// Packages where the tests look for them.
const Install = "npm install --prefix .ci/node " + Packages

// DuckDB and ArrowJS are the packages' names, for Node.
const (
	DuckDB  = "@duckdb/node-api"
	ArrowJS = "apache-arrow"
)

// Root returns the repository's root: the working directory of the test
// (a package's folder, in any module of the repository) or the first
// folder above it that holds go.work.
func Root(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			tb.Fatal("no go.work in the working directory or above it: not in the repository")
		}
		dir = up
	}
}

// Node returns the node binary and the folder whose node_modules holds
// package pkg (DuckDB or ArrowJS). Without them the test fails under CI
// and is skipped elsewhere, with a message that names what is missing and
// the command that installs it.
func Node(tb testing.TB, pkg string) (node, dir string) {
	tb.Helper()
	dir = os.Getenv("TREVNI_DUCKDB_NODE")
	if dir == "" {
		dir = filepath.Join(Root(tb), ".ci", "node")
	}
	dir, err := filepath.Abs(dir)
	if err == nil {
		node, err = exec.LookPath("node")
	}
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg)))
	}
	if err != nil {
		msg := "node or the Node package " + pkg + " is not installed: run " + Install + " at the repository's root (as .ci/run does; node and npm come from Debian's nodejs and npm packages), or set TREVNI_DUCKDB_NODE to a folder holding node_modules"
		if os.Getenv("CI") != "" {
			tb.Fatalf("CI is set and %s: %v", msg, err)
		}
		tb.Skipf("%s (%v)", msg, err)
	}
	return node, dir
}

// Run runs script, an ES module's source, under node with args, and
// returns what it printed. The script is written to a temporary folder
// beside a link to the node_modules that holds pkg, so that its imports
// find the package (the folder of the packages is left as it is: several
// tests, or checkouts, may share it). A failing script fails the test,
// with what it printed on standard error.
func Run(tb testing.TB, pkg string, script []byte, args ...string) []byte {
	tb.Helper()
	node, dir := Node(tb, pkg)
	tmp := tb.TempDir()
	if err := os.Symlink(filepath.Join(dir, "node_modules"), filepath.Join(tmp, "node_modules")); err != nil {
		tb.Fatal(err)
	}
	run := filepath.Join(tmp, "script.mjs")
	if err := os.WriteFile(run, script, 0o644); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(node, append([]string{run}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("node (%s): %v\n%s", pkg, err, stderr.Bytes())
	}
	return out
}

//go:embed query.mjs
var queryScript []byte

// Result is what DuckDB returned for one query: the columns' names and
// types and the rows as DuckDB renders them in JSON, or its error.
type Result struct {
	Names []string `json:"names"`
	Types []string `json:"types"`
	Rows  [][]any  `json:"rows"`
	Error string   `json:"error"`
}

// Query runs SQL queries, in order, in one in-memory DuckDB, and returns
// a Result for each. A query DuckDB refuses gives a Result with its Error;
// the later queries still run.
func Query(tb testing.TB, queries ...string) []Result {
	tb.Helper()
	var res []Result
	for _, line := range serve(tb, "query", queryScript, queries) {
		var r Result
		if err := json.Unmarshal(line, &r); err != nil {
			tb.Fatalf("DuckDB's output %.200q: %v", line, err)
		}
		res = append(res, r)
	}
	if len(res) != len(queries) {
		tb.Fatalf("DuckDB answered %d of %d queries", len(res), len(queries))
	}
	return res
}

//go:embed parquet.mjs
var parquetScript []byte

// Read is what DuckDB read from one Parquet file: its columns' names and
// types as DESCRIBE gives them, its row count and each row as DuckDB's
// to_json renders it, or DuckDB's error.
type Read struct {
	File string `json:"file"`
	// Columns are "NAME TYPE" of each column, in order.
	Columns []string `json:"columns"`
	Count   int64    `json:"count"`
	Rows    []string `json:"rows"`
	// Error is DuckDB's error, when it refuses the file (only from
	// ReadParquetEach).
	Error string `json:"error"`
}

// ReadParquet reads Parquet files with one DuckDB, by their names, and
// returns what it read of each. An argument "sql:STATEMENT" runs the
// statement instead, in order (to write files with DuckDB). A file DuckDB
// refuses fails the test.
func ReadParquet(tb testing.TB, files ...string) map[string]Read {
	tb.Helper()
	return readParquet(tb, "stop", files)
}

// ReadParquetEach is ReadParquet, but a file DuckDB refuses is a Read
// with its Error, and the files after it are read.
func ReadParquetEach(tb testing.TB, files ...string) map[string]Read {
	tb.Helper()
	return readParquet(tb, "keep-going", files)
}

func readParquet(tb testing.TB, mode string, files []string) map[string]Read {
	tb.Helper()
	reads := map[string]Read{}
	for _, line := range serve(tb, "parquet", parquetScript, append([]string{mode}, files...)) {
		var r Read
		if err := json.Unmarshal(line, &r); err != nil {
			tb.Fatalf("DuckDB's output %.200q: %v", line, err)
		}
		reads[r.File] = r
	}
	return reads
}

// The lines by which a serving script ends its answer to a request, and
// says that the request failed as a whole.
const (
	endLine   = "__trevni_ducktest_end__"
	errorLine = "__trevni_ducktest_error__ "
)

// A server is a node process running a serving script.
type server struct {
	name   string // the script's, by which the idle servers are kept
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *lockedBuffer
	tmp    string // the script's folder, removed after the first answer
}

// lockedBuffer is a buffer written by the process's stderr copier and
// read by the test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// idle holds, by script, the servers no call is using.
var idle = struct {
	sync.Mutex
	servers map[string][]*server
}{servers: map[string][]*server{}}

// serve sends request to a server of script (an idle one, or one it
// starts) and returns the lines of its answer. A server that fails or
// dies fails the test, with what it printed on standard error.
func serve(tb testing.TB, name string, script []byte, request []string) [][]byte {
	tb.Helper()
	idle.Lock()
	var s *server
	if list := idle.servers[name]; len(list) > 0 {
		s, idle.servers[name] = list[len(list)-1], list[:len(list)-1]
	}
	idle.Unlock()
	if s == nil {
		s = start(tb, name, script)
	}
	req, err := json.Marshal(request)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := s.in.Write(append(req, '\n')); err != nil {
		s.kill()
		tb.Fatalf("DuckDB (node): %v\n%s", err, s.stderr)
	}
	var lines [][]byte
	for {
		line, err := s.out.ReadBytes('\n')
		if err != nil {
			s.kill()
			tb.Fatalf("DuckDB (node) ended: %v\n%s", err, s.stderr)
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		if string(line) == endLine {
			break
		}
		if msg, ok := strings.CutPrefix(string(line), errorLine); ok {
			// The answer is whole: the server can serve the next request.
			s.release()
			tb.Fatalf("DuckDB: %s", msg)
		}
		lines = append(lines, line)
	}
	s.release()
	return lines
}

// start starts a server of script, from a temporary folder beside a link
// to the node_modules holding DuckDB's package (whose folder is left as
// it is).
func start(tb testing.TB, name string, script []byte) *server {
	tb.Helper()
	node, dir := Node(tb, DuckDB)
	tmp, err := os.MkdirTemp("", "ducktest-")
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "node_modules"), filepath.Join(tmp, "node_modules")); err != nil {
		tb.Fatal(err)
	}
	run := filepath.Join(tmp, "serve.mjs")
	if err := os.WriteFile(run, script, 0o644); err != nil {
		tb.Fatal(err)
	}
	s := &server{name: name, cmd: exec.Command(node, run), stderr: &lockedBuffer{}, tmp: tmp}
	s.cmd.Stderr = s.stderr
	if s.in, err = s.cmd.StdinPipe(); err != nil {
		tb.Fatal(err)
	}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	s.out = bufio.NewReaderSize(out, 1<<20)
	if err := s.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	return s
}

// release puts s back among the idle servers. The process ends when the
// test binary does (its standard input closes).
func (s *server) release() {
	if s.tmp != "" {
		// The script and the package are loaded by the first answer.
		os.RemoveAll(s.tmp)
		s.tmp = ""
	}
	idle.Lock()
	defer idle.Unlock()
	idle.servers[s.name] = append(idle.servers[s.name], s)
}

// kill ends a server that failed.
func (s *server) kill() {
	s.cmd.Process.Kill()
	s.cmd.Wait()
	if s.tmp != "" {
		os.RemoveAll(s.tmp)
	}
}
