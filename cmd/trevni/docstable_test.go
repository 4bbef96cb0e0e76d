package main

import (
	"strings"
	"testing"
)

// TestCommandsTableNamesEveryCommand checks that the command table of
// docs/commands.md has a row for every command "trevni help" lists.
func TestCommandsTableNamesEveryCommand(t *testing.T) {
	doc := string(readFile(t, "../../docs/commands.md"))
	for _, c := range commandTable() {
		if !strings.Contains(doc, "\n| `trevni "+c.name+" ") && !strings.Contains(doc, "\n| `trevni "+c.name+"`") {
			t.Errorf("docs/commands.md: the command table has no row for %q", c.name)
		}
	}
}
