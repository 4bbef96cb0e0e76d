package fieldpath

import (
	"errors"
	"testing"
)

func TestPath(t *testing.T) {
	base := errors.New("bad")
	err := At(At(At(At(New(base), "algo"), Index(0)), "sigs"), Key("k\"1"))
	err = At(err, "received")
	path, inner := Split(err)
	if path != `received["k\"1"].sigs[0].algo` || inner != base || !errors.Is(err, base) {
		t.Fatalf("path %q, inner %v", path, inner)
	}
	if err.Error() != path+": bad" {
		t.Fatalf("message %q", err.Error())
	}
	if p, e := Split(base); p != "" || e != base {
		t.Fatalf("a plain error split to %q, %v", p, e)
	}
	if At(base, "x").Error() != "x: bad" {
		t.Fatal("At on a plain error")
	}
}
