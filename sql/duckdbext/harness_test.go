package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/trevni-go/trevni"

	"github.com/trevni-go/trevni/trevniparquet"
)

// The tests build trevni.duckdb_extension with the command of
// docs/duckdb.md and load it into DuckDB's Node package
// (@duckdb/node-api, which .ci/run installs into .ci/node; DuckDB 1.5.6).
// Without node or the package they fail under CI and are skipped
// elsewhere, saying what to install.

// docsBuildCommand returns the first line of the first console-norun block of
// docs/duckdb.md: the command that builds the extension.
func docsBuildCommand(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "duckdb.md"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "```console-norun" && sc.Scan() {
			return strings.TrimSpace(sc.Text())
		}
	}
	t.Fatal("docs/duckdb.md has no console-norun block")
	return ""
}

var buildOnce struct {
	sync.Once
	path string
	err  error
}

// extension builds the extension once, by the command of the docs with
// its -o pointed into a temporary directory, and returns its path.
func extension(t *testing.T) string {
	t.Helper()
	cmdline := docsBuildCommand(t)
	buildOnce.Do(func() {
		args := strings.Fields(cmdline)
		out := -1
		for i, a := range args {
			if a == "-o" && i+1 < len(args) {
				out = i + 1
			}
		}
		if args[0] != "go" || out < 0 || !strings.HasSuffix(args[out], "trevni.duckdb_extension") {
			buildOnce.err = errors.New("docs/duckdb.md's build command " + cmdline + " is not a go command with -o ...trevni.duckdb_extension")
			return
		}
		dir, err := os.MkdirTemp("", "trevni-duckdb-ext-")
		if err != nil {
			buildOnce.err = err
			return
		}
		buildOnce.path = filepath.Join(dir, "trevni.duckdb_extension")
		args[out] = buildOnce.path
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = filepath.Join("..", "..") // the repository root
		if b, err := cmd.CombinedOutput(); err != nil {
			buildOnce.err = errors.New(cmdline + ": " + err.Error() + "\n" + string(b))
		}
	})
	if buildOnce.err != nil {
		t.Fatal(buildOnce.err)
	}
	return buildOnce.path
}

// nodeDuckDB returns node and the directory of DuckDB's Node package.
func nodeDuckDB(t *testing.T) (node, dir string) {
	t.Helper()
	dir = os.Getenv("TREVNI_DUCKDB_NODE")
	if dir == "" {
		dir, _ = filepath.Abs(filepath.Join("..", "..", ".ci", "node"))
	}
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api"))
	}
	if err != nil {
		msg := "DuckDB's Node package is not installed: run npm install --prefix .ci/node @duckdb/node-api@1.5.6-r.1 (as .ci/run does), or set TREVNI_DUCKDB_NODE"
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set and %s: %v", msg, err)
		}
		t.Skip(msg)
	}
	return node, dir
}

// step is statements run on one database of the Node process.
type step struct {
	DB       string   `json:"db,omitempty"`
	SQLs     []string `json:"sqls"`
	Parallel bool     `json:"parallel,omitempty"`
	// InterruptMS interrupts each statement's connection that long after
	// it starts (0: never).
	InterruptMS int `json:"interrupt_ms,omitempty"`
}

// result is what one statement gave.
type result struct {
	SQL     string   `json:"sql"`
	Columns []string `json:"columns"`
	Types   []string `json:"types"`
	Rows    [][]any  `json:"rows"`
	Error   string   `json:"error"`
	MS      int      `json:"ms"` // the statement's milliseconds, with InterruptMS
}

// runDuckDB runs the steps in one Node process and returns the results
// of their statements in order. A crash of the process fails the test.
func runDuckDB(t *testing.T, steps ...step) []result {
	t.Helper()
	node, dir := nodeDuckDB(t)
	script, err := os.ReadFile(filepath.Join("testdata", "duckdb.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	// The script must sit beside node_modules to import the package.
	f, err := os.CreateTemp(dir, "trevni-duckdb-ext-*.mjs")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(script); err != nil {
		t.Fatal(err)
	}
	f.Close()
	spec, _ := json.Marshal(map[string]any{"steps": steps})
	specFile := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(specFile, spec, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, f.Name(), specFile)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("DuckDB's Node process: %v\n%s", err, stderr.String())
	}
	var rs []result
	if err := json.Unmarshal(out, &rs); err != nil {
		t.Fatalf("DuckDB's Node process printed %q: %v", out, err)
	}
	return rs
}

// load returns the statement that loads the extension.
func load(t *testing.T) string {
	return "LOAD " + quote(extension(t))
}

// quote quotes a SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// toParquet writes the records of the data set source as Parquet into
// dir (what trevni toparquet writes) and returns its path.
func toParquet(t *testing.T, source, dir string) string {
	t.Helper()
	ctx := context.Background()
	ds, err := trevni.Open(ctx, source, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	path := filepath.Join(dir, strings.NewReplacer("/", "_", "*", "_").Replace(filepath.Base(source))+".parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := trevniparquet.Write(ctx, f, ds, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// must fails the test on a statement's error and returns its result.
func must(t *testing.T, r result) result {
	t.Helper()
	if r.Error != "" {
		t.Fatalf("%s: %s", r.SQL, r.Error)
	}
	return r
}
