package layers

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// theDoor are the packages of ours the trevni command imports as any
// program of the library would: the front door (the root), the command's
// plumbing beside it (internal/frontdoor), the bridges to Arrow and
// Parquet, and the drivers a program links by importing them (HTTP and
// the stores).
var theDoor = []string{
	"", "internal/frontdoor", "trevniarrow", "trevniparquet",
	"remote/httpread", "stores/s3", "stores/gs", "stores/azblob",
}

// commandAllowHeading starts the section of docs/layout.md whose table
// lists, one item each ("- `pkg`, `pkg`: why"), the packages the command
// still imports beside the door.
const commandAllowHeading = "### What the command imports beside the front door"

// commandAllowList reads that list's packages.
func commandAllowList(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "layout.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(doc), commandAllowHeading+"\n")
	if !ok {
		t.Fatalf("docs/layout.md has no section %q", commandAllowHeading)
	}
	var pkgs []string
	for _, line := range strings.Split(sec, "\n") {
		item, ok := strings.CutPrefix(line, "- ")
		if !ok {
			if len(pkgs) > 0 {
				break // the list's end
			}
			continue
		}
		names, _, _ := strings.Cut(item, ": ")
		for _, p := range strings.Split(names, ",") {
			pkgs = append(pkgs, strings.Trim(strings.TrimSpace(p), "`"))
		}
	}
	if len(pkgs) == 0 {
		t.Fatalf("docs/layout.md's section %q lists no package", commandAllowHeading)
	}
	return pkgs
}

// TestCommandGoesThroughTheDoor checks, with go list, that the command's
// code (its tests aside) imports of our packages only the door and the
// packages docs/layout.md lists with why: a new direct import fails
// until it goes through the front door or is listed, and a listed
// package the command no longer imports fails until it is struck off.
func TestCommandGoesThroughTheDoor(t *testing.T) {
	allowed := commandAllowList(t)
	cmd := goCmd(t, "list", "-f", `{{join .Imports "\n"}}`, "./cmd/trevni")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	var used []string
	for _, imp := range strings.Fields(string(out)) {
		if imp != module && !strings.HasPrefix(imp, module+"/") {
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
		used = append(used, rel)
		if !slices.Contains(theDoor, rel) && !slices.Contains(allowed, rel) {
			t.Errorf("cmd/trevni imports %s directly: go through the root or internal/frontdoor, or list it with why in docs/layout.md (%s)", imp, commandAllowHeading)
		}
	}
	if !slices.Contains(used, "") {
		t.Fatalf("go list: the command imports no root package: %q", used)
	}
	for _, a := range allowed {
		if !slices.Contains(used, a) {
			t.Errorf("docs/layout.md lists %s among the command's direct imports, which it no longer imports: strike it off", a)
		}
	}
}
