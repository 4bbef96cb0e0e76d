package main

import (
	"strings"
	"testing"
)

// TestHeadCountForms checks the forms of head's count that users type:
// -n 2, -n2, -n=2, --limit 2, before or after the input, all printing the
// same two records; and that a joined value reaches only flags that take
// one.
func TestHeadCountForms(t *testing.T) {
	in := interopTrv(t)[0]
	want := runBin(t, nil, "head", "-n", "2", in)
	if want.code != 0 || strings.Count(want.stdout, "\n") != 2 {
		t.Fatalf("head -n 2: %+v", want)
	}
	for _, args := range [][]string{{"-n2", in}, {in, "-n2"}, {"-n=2", in}, {"--limit", "2", in}, {"--limit=2", in}} {
		r := runBin(t, nil, append([]string{"head"}, args...)...)
		if r.code != 0 || r.stdout != want.stdout {
			t.Errorf("head %q: %+v, want head -n 2's output", args, r)
		}
	}
	// -qx is not -q with a value: -q takes none.
	if r := runBin(t, nil, "head", "-quietx", in); r.code == 0 {
		t.Errorf("head -quietx ran: %+v", r)
	}
}
