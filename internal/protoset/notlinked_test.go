package protoset

import (
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/timestamppb"
)

// This test binary does not link schema/protoload: every call that needs
// the descriptor packages fails with ErrNotLinked, and says what to import.
func TestNotLinked(t *testing.T) {
	if Linked() {
		t.Fatal("Linked() in a program without schema/protoload")
	}
	md := (&timestamppb.Timestamp{}).ProtoReflect().Descriptor()
	var errs []error
	_, err := ParseSet(nil)
	errs = append(errs, err)
	_, err = SetFor(md)
	errs = append(errs, err)
	_, err = AppendJSON(nil, &timestamppb.Timestamp{}, JSONOptions{})
	errs = append(errs, err)
	errs = append(errs, UnmarshalJSON([]byte("{}"), &timestamppb.Timestamp{}, nil))
	for i, err := range errs {
		if !errors.Is(err, ErrNotLinked) || !strings.Contains(err.Error(), `import _ "`+Import+`"`) {
			t.Errorf("call %d: %v, not ErrNotLinked naming the import", i, err)
		}
	}
}
