package protoschema_test

import (
	"testing"

	"github.com/trevni-go/trevni/internal/testing/prototest"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/protoschema"
)

func TestMatchFieldNumber(t *testing.T) {
	writer, err := schema.Parse(`{"type":"record","name":"M","fields":[
		{"name":"a","type":"int","protobuf.number":1},
		{"name":"b","type":"int"},
		{"name":"c","type":"long","protobuf.number":7}]}`)
	if err != nil {
		t.Fatal(err)
	}
	reader, err := schema.Parse(`{"type":"record","name":"M","fields":[
		{"name":"renamed","type":"long","protobuf.number":7},
		{"name":"x","type":"int","protobuf.number":2},
		{"name":"y","type":"int"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{2, -1, -1} {
		if got := protoschema.MatchFieldNumber(reader.Fields[i], writer); got != want {
			t.Errorf("%s: %d, want %d", reader.Fields[i].Name, got, want)
		}
	}
	// The mapping's own tree carries the numbers as the parsed text does.
	files := prototest.Compile(t)
	mp, err := protoschema.New(prototest.Message(t, files, "trevni.test.p3.Everything"), nil)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := schema.Parse(mp.Schema.String())
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range parsed.Fields {
		want := i
		if f.Name == "_unknown" {
			want = -1
		}
		if got := protoschema.MatchFieldNumber(f, mp.Schema); got != want {
			t.Errorf("%s: %d, want %d", f.Name, got, want)
		}
	}
}
