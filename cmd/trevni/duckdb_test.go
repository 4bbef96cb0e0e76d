package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// duckResult is what DuckDB returned for one query: the columns' names
// and types and the rows as DuckDB renders them in JSON, or its error.
type duckResult struct {
	Names []string `json:"names"`
	Types []string `json:"types"`
	Rows  [][]any  `json:"rows"`
	Error string   `json:"error"`
}

// duckQuery runs SQL queries in DuckDB through its Node package (.ci/run
// installs it into .ci/node with npm install --prefix .ci/node
// @duckdb/node-api; TREVNI_DUCKDB_NODE names another folder holding
// node_modules). Without it the test fails under CI and is skipped
// elsewhere, saying what to install.
func duckQuery(t *testing.T, queries ...string) []duckResult {
	t.Helper()
	dir := os.Getenv("TREVNI_DUCKDB_NODE")
	if dir == "" {
		dir, _ = filepath.Abs("../../.ci/node")
	}
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api"))
	}
	if err != nil {
		msg := "node or DuckDB's Node package is not installed: run npm install --prefix .ci/node as .ci/run does, or set TREVNI_DUCKDB_NODE"
		if os.Getenv("CI") != "" {
			t.Fatalf("CI is set and %s: %v", msg, err)
		}
		t.Skipf("%s (%v)", msg, err)
	}
	script := readFile(t, "testdata/duckdb_query.mjs")
	// The script must sit beside node_modules to import the package.
	run := filepath.Join(dir, "trevni-cmd-duckdb-query.mjs")
	if err := os.WriteFile(run, script, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, append([]string{run}, queries...)...).Output()
	if err != nil {
		t.Fatalf("DuckDB: %v", err)
	}
	var res []duckResult
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r duckResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("DuckDB's output %q: %v", line, err)
		}
		res = append(res, r)
	}
	if len(res) != len(queries) {
		t.Fatalf("DuckDB answered %d of %d queries", len(res), len(queries))
	}
	return res
}

// sqlString quotes s as an SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
