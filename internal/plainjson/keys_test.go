package plainjson

import (
	"reflect"
	"testing"

	"github.com/trevni-go/trevni/schema"
)

// TestInferKeysNotAvroNames checks that keys which are not Avro names get
// made ones, distinct within their record, with the key kept in
// json.name, and that Decode reads the lines by those keys.
func TestInferKeysNotAvroNames(t *testing.T) {
	lines := []string{
		`{"@timestamp":"t","a.b":1,"a_b":2,"":3,"1st":{"user-agent":"x"},"é":4}`,
		`{"@timestamp":"u","a.b":5,"a_b":6,"":7,"1st":{"user-agent":"y"},"é":8}`,
	}
	var in Inferrer
	for _, l := range lines {
		if err := in.Add([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	text, err := in.Schema()
	if err != nil {
		t.Fatal(err)
	}
	s, err := schema.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	type name struct{ avro, key string }
	var got []name
	for _, f := range s.Fields {
		got = append(got, name{f.Name, f.SourceName()})
	}
	got = append(got, name{s.Fields[4].Type.Fields[0].Name, s.Fields[4].Type.Fields[0].SourceName()})
	want := []name{{"_timestamp", "@timestamp"}, {"a_b", "a.b"}, {"a_b_2", "a_b"}, {"_", ""}, {"_1st", "1st"}, {"__2", "é"}, {"user_agent", "user-agent"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("names %v, want %v", got, want)
	}
	v, err := Decode(s, []byte(lines[1]))
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if m["a_b"] != int64(5) || m["a_b_2"] != int64(6) || m["_"] != int64(7) || m["__2"] != int64(8) {
		t.Errorf("decoded %v", m)
	}
	// A key is read only under its own name: the Avro name of a renamed
	// field is not a key of it.
	if _, err := Decode(s, []byte(`{"_timestamp":"t","a.b":1,"a_b":2,"":3,"1st":{"user-agent":"x"},"é":4}`)); err == nil {
		t.Error("took a renamed field's Avro name as its key")
	}
}
