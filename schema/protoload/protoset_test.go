package protoload_test

import (
	"testing"
	"time"

	"github.com/trevni-go/trevni/internal/protoset"
	_ "github.com/trevni-go/trevni/schema/protoload"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// Importing this package registers the descriptor packages on
// internal/protoset, whose error names this package's import path.
func TestRegistersOnProtoset(t *testing.T) {
	if !protoset.Linked() {
		t.Fatal("protoset does not see the descriptor packages")
	}
	if want := "github.com/trevni-go/trevni/schema/protoload"; protoset.Import != want {
		t.Errorf("protoset.Import is %q, this package is %q", protoset.Import, want)
	}
	md := (&timestamppb.Timestamp{}).ProtoReflect().Descriptor()
	set, err := protoset.SetFor(md)
	if err != nil {
		t.Fatal(err)
	}
	files, err := protoset.ParseSet(set)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := protoset.FindMessage(files, string(md.FullName())); err != nil || got.FullName() != md.FullName() {
		t.Fatalf("FindMessage: %v, %v", got, err)
	}
	js, err := protoset.AppendJSON(nil, timestamppb.New(time.Unix(1, 0).UTC()), protoset.JSONOptions{})
	if err != nil || string(js) != `"1970-01-01T00:00:01Z"` {
		t.Fatalf("AppendJSON: %s, %v", js, err)
	}
	var ts timestamppb.Timestamp
	if err := protoset.UnmarshalJSON(js, &ts, nil); err != nil || ts.GetSeconds() != 1 {
		t.Fatalf("UnmarshalJSON: %v, %v", &ts, err)
	}
}
