package trevniarrow_test

import (
	"os"
	"strings"
	"testing"
)

// nodePackages are the Node packages the DuckDB and Arrow JavaScript
// tests drive, at the versions .ci/run installs (TestNodePackagesAsCI
// holds the two together).
const nodePackages = "@duckdb/node-api@1.5.6-r.1 apache-arrow@21.2.0"

// nodeInstall is the command that installs nodePackages where the tests
// look for them.
const nodeInstall = "npm install --prefix .ci/node " + nodePackages

// nodeMissing fails the test when CI is set and skips it otherwise, with
// a message that names what is missing and the command that installs it.
func nodeMissing(t *testing.T, what string, err error) {
	t.Helper()
	msg := what + " is not installed: run " + nodeInstall + " at the repository's root (as .ci/run does; node and npm come from Debian's nodejs and npm packages), or set TREVNI_DUCKDB_NODE to a folder holding node_modules"
	if os.Getenv("CI") != "" {
		t.Fatalf("CI is set and %s: %v", msg, err)
	}
	t.Skipf("%s (%v)", msg, err)
}

// TestNodePackagesAsCI checks that .ci/run installs the packages, at the
// versions, that the skip messages name.
func TestNodePackagesAsCI(t *testing.T) {
	run, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(run), " "+nodePackages+"\n") {
		t.Errorf(".ci/run does not install %q: change nodePackages here or the npm install line there", nodePackages)
	}
}
