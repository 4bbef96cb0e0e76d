package prototest

import (
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// TestTestProtos checks that the test files compile, hold messages of
// each syntax, and that Messages walks nested messages and leaves out map
// entries.
func TestTestProtos(t *testing.T) {
	files := Compile(t)
	syntaxes := map[protoreflect.Syntax]bool{}
	total := 0
	for _, p := range Files {
		mds := Messages(t, files, p)
		if len(mds) == 0 {
			t.Errorf("%s: no message", p)
		}
		for _, md := range mds {
			if md.IsMapEntry() {
				t.Errorf("%s: Messages listed the map entry %s", p, md.FullName())
			}
			syntaxes[md.ParentFile().Syntax()] = true
			if got := Message(t, files, string(md.FullName())); got.FullName() != md.FullName() {
				t.Errorf("Message(%s) = %s", md.FullName(), got.FullName())
			}
		}
		total += len(mds)
	}
	for _, s := range []protoreflect.Syntax{protoreflect.Proto2, protoreflect.Proto3, protoreflect.Editions} {
		if !syntaxes[s] {
			t.Errorf("no message of syntax %v in %v", s, Files)
		}
	}
	nested := false
	for _, md := range Messages(t, files, Files...) {
		if _, ok := md.Parent().(protoreflect.MessageDescriptor); ok {
			nested = true
		}
	}
	if !nested {
		t.Errorf("Messages listed no nested message of %d", total)
	}
}
