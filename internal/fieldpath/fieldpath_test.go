package fieldpath

import (
	"errors"
	"testing"

	"github.com/trevni-go/trevni/schema"
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

func TestRecord(t *testing.T) {
	base := errors.New("bad")
	err := Record(At(At(New(base), "b"), "a"), 7)
	var se *schema.Error
	if !errors.As(err, &se) || se.Record != 7 || se.Path != "a.b" || !errors.Is(err, base) {
		t.Fatalf("Record gave %#v", err)
	}
	if err.Error() != "record 7, field a.b: bad" {
		t.Fatalf("message %q", err.Error())
	}
	if Record(err, 9) != err {
		t.Fatal("Record rewrapped a record error")
	}
	if got := Record(base, 0).Error(); got != "record 0: bad" {
		t.Fatalf("plain error: %q", got)
	}
}
