package schema

import (
	"strings"
	"testing"
)

// TestResolvePath resolves paths that name fields by their source names
// (dots and all), through records, arrays, maps and unions, and checks
// that a path naming fields in two ways is refused naming both, and that
// one naming none comes back as it is.
func TestResolvePath(t *testing.T) {
	s, err := Parse(`{"type":"record","name":"Row","fields":[
		{"name":"_timestamp","type":"string","json.name":"@timestamp"},
		{"name":"log_level","type":"string","json.name":"log.level"},
		{"name":"http","type":["null",{"type":"record","name":"H","fields":[
			{"name":"user_agent","type":"string","json.name":"user-agent"},
			{"name":"status","type":"int"}]}]},
		{"name":"spans","type":{"type":"array","items":{"type":"record","name":"S","fields":[
			{"name":"a_b","type":"long","arrow.name":"a b"}]}}},
		{"name":"m","type":{"type":"map","values":"H"}},
		{"name":"a_b","type":"int"},
		{"name":"a_b_2","type":"int","csv.name":"a_b"},
		{"name":"log","type":{"type":"record","name":"L","fields":[{"name":"level","type":"int"}]}},
		{"name":"x_y","type":"int","json.name":"x.y"}
	]}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want, err string }{
		{"@timestamp", "_timestamp", ""},
		{"_timestamp", "_timestamp", ""},
		{"http.user-agent", "http.user_agent", ""},
		{"http.user_agent", "http.user_agent", ""},
		{"http", "http", ""},
		{"spans.a b", "spans.a_b", ""},
		{"m.user-agent", "m.user_agent", ""},
		{"x.y", "x_y", ""},
		{"nothing.here", "nothing.here", ""},
		{"http.nothing", "http.nothing", ""},
		// log.level: the source name of log_level, and field level of
		// record log; a_b: one field's Avro name, another's source name.
		{"log.level", "", `"log.level" names fields in more than one way: log_level and log.level`},
		{"a_b", "", `"a_b" names fields in more than one way: a_b and a_b_2`},
	} {
		got, err := ResolvePath(s, tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: %q, %v; want error %q", tc.in, got, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%q: %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if f, err := s.LookupField("@timestamp"); err != nil || f == nil || f.Name != "_timestamp" {
		t.Errorf("LookupField(@timestamp) = %v, %v", f, err)
	}
	if _, err := s.LookupField("a_b"); err == nil || !strings.Contains(err.Error(), "a_b, and a_b_2 by its source name") {
		t.Errorf("LookupField(a_b): %v", err)
	}
	if f, err := s.LookupField("none"); f != nil || err != nil {
		t.Errorf("LookupField(none) = %v, %v", f, err)
	}
}

// TestResolvePathRepeatedNames walks a recursive record whose fields all
// have one source name along a long path that names nothing at its end:
// the walk must not try every combination (2^60 here).
func TestResolvePathRepeatedNames(t *testing.T) {
	s, err := Parse(`{"type":"record","name":"R","fields":[
		{"name":"p","type":["null","R"],"csv.name":"a"},
		{"name":"q","type":["null","R"],"csv.name":"a"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	path := strings.Repeat("a.", 60) + "z"
	if got, err := ResolvePath(s, path); err != nil || got != path {
		t.Errorf("%q: %q, %v", path, got, err)
	}
	if _, err := ResolvePath(s, "a.a"); err == nil {
		t.Error("a.a names p.p, p.q, q.p and q.q: no error")
	}
}
