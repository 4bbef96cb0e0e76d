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
// Each call runs one node process, however many files or queries it is
// given: a test hands all of its files to one call.
package ducktest

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
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
	out := Run(tb, DuckDB, queryScript, queries...)
	var res []Result
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		var r Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			tb.Fatalf("DuckDB's output %q: %v", sc.Bytes(), err)
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

// Read is what DuckDB read from one Parquet file: its row count and each
// row as DuckDB's to_json renders it, or DuckDB's error.
type Read struct {
	File  string   `json:"file"`
	Count int64    `json:"count"`
	Rows  []string `json:"rows"`
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
	out := Run(tb, DuckDB, parquetScript, append([]string{mode}, files...)...)
	reads := map[string]Read{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		var r Read
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			tb.Fatalf("DuckDB's output %.200q: %v", sc.Bytes(), err)
		}
		reads[r.File] = r
	}
	return reads
}
