package schema

import (
	"strings"
	"testing"
)

// TestDifference: schemas that describe the same data (written otherwise,
// with other docs, defaults and aliases, recursive) have no difference;
// each change of what data means is found at its place.
func TestDifference(t *testing.T) {
	base := `{"type":"record","name":"R","namespace":"n","fields":[
		{"name":"x","type":"int"},
		{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},
		{"name":"l","type":{"type":"array","items":["null","R"]}},
		{"name":"m","type":{"type":"map","values":{"type":"fixed","name":"F","size":4}}},
		{"name":"t","type":{"type":"long","logicalType":"timestamp-millis"}},
		{"name":"p","type":"string","custom":1}]}`
	same := []string{
		base,
		`{"name":"n.R","type":"record","doc":"d","aliases":["Q"],"fields":[
		{"name":"x","type":{"type":"int"},"default":3,"doc":"x"},
		{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"],"default":"A"}},
		{"name":"l","type":{"type":"array","items":["null","n.R"]}},
		{"name":"m","type":{"type":"map","values":{"type":"fixed","name":"F","size":4}}},
		{"name":"t","type":{"logicalType":"timestamp-millis","type":"long"}},
		{"name":"p","custom":1,"type":"string"}]}`,
	}
	changed := map[string]string{
		`"x","type":"int"`:         "x: int, then enum",
		`"symbols":["A","B"]`:      "e: symbols",
		`"items":["null","R"]`:     "l[]: union of 2 branches, then 3",
		`"size":4`:                 "m{}: fixed of 4 bytes, then 5",
		`"logicalType":"timestamp`: "t: long (timestamp-millis), then long (timestamp-micros)",
		`"custom":1`:               "p: field properties",
		`{"name":"p"`:              "fields",
	}
	replace := map[string]string{
		`"x","type":"int"`:         `"x","type":{"type":"enum","name":"X","symbols":["Y"]}`,
		`"symbols":["A","B"]`:      `"symbols":["B","A"]`,
		`"items":["null","R"]`:     `"items":["null","R","int"]`,
		`"size":4`:                 `"size":5`,
		`"logicalType":"timestamp`: `"logicalType":"timestamp-micros","x":"`,
		`"custom":1`:               `"custom":2`,
		`{"name":"p"`:              `{"name":"q"`,
	}
	a := MustParse(base)
	for _, text := range same {
		if d := Difference(a, MustParse(text)); d != "" {
			t.Errorf("same data, difference %q", d)
		}
	}
	for old, want := range changed {
		text := strings.Replace(base, old, replace[old], 1)
		if text == base {
			t.Fatalf("%s: no change", old)
		}
		d := Difference(a, MustParse(text))
		if !strings.Contains(d, want) {
			t.Errorf("changing %s: difference %q, want %q", old, d, want)
		}
		if back := Difference(MustParse(text), a); back == "" {
			t.Errorf("changing %s: no difference the other way", old)
		}
	}
}
