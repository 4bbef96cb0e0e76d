package schema

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParsePrimitives(t *testing.T) {
	for k := Null; k <= String; k++ {
		for _, text := range []string{`"` + k.String() + `"`, `{"type":"` + k.String() + `"}`} {
			s, err := Parse(text)
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			if s.Kind != k || s.FullName() != k.String() || !s.IsSimple() {
				t.Errorf("%s: got kind %v", text, s.Kind)
			}
			if got := s.String(); got != `"`+k.String()+`"` {
				t.Errorf("%s: String() = %s", text, got)
			}
		}
	}
}

func TestParseNames(t *testing.T) {
	s := MustParse(`{"type":"record","name":"Outer","namespace":"a.b","fields":[
		{"name":"in","type":{"type":"record","name":"Inner","fields":[]}},
		{"name":"in2","type":"Inner"},
		{"name":"in3","type":"a.b.Inner"},
		{"name":"dotted","type":{"type":"enum","name":"x.y.E","namespace":"ignored","symbols":["A"]}},
		{"name":"inE","type":{"type":"record","name":"UnderE","fields":[{"name":"e","type":"E"}],"namespace":"x.y"}},
		{"name":"other","type":{"type":"record","name":"Mid","namespace":"c","fields":[
			{"name":"deep","type":{"type":"fixed","name":"Deep","size":1}},
			{"name":"g","type":{"type":"fixed","name":"G","namespace":"","size":2}},
			{"name":"g2","type":"G"}]}},
		{"name":"g3","type":"G"},
		{"name":"self","type":["null","Outer"]}]}`)
	check := func(got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	check(s.Name, "a.b.Outer")
	check(s.Namespace(), "a.b")
	check(s.ShortName(), "Outer")
	inner := s.Field("in").Type
	check(inner.Name, "a.b.Inner")
	if s.Field("in2").Type != inner || s.Field("in3").Type != inner {
		t.Error("references to Inner are not the same node")
	}
	check(s.Field("dotted").Type.Name, "x.y.E")
	ue := s.Field("inE").Type
	check(ue.Name, "x.y.UnderE")
	if ue.Fields[0].Type != s.Field("dotted").Type {
		t.Error("E is not resolved in namespace x.y")
	}
	mid := s.Field("other").Type
	check(mid.Name, "c.Mid")
	check(mid.Field("deep").Type.Name, "c.Deep")
	g := mid.Field("g").Type
	check(g.Name, "G")
	check(g.Namespace(), "")
	if mid.Field("g2").Type != g || s.Field("g3").Type != g {
		t.Error("G is not found in the null namespace")
	}
	if s.Field("self").Type.Branches[1] != s {
		t.Error("the recursive reference is not the record itself")
	}
	// Written back, the schema reads the same.
	roundTrip(t, s)
	if !strings.Contains(s.String(), `"name":"G","namespace":""`) {
		t.Errorf("the null namespace inside c is not written: %s", s)
	}
}

func roundTrip(t *testing.T, s *Schema) {
	t.Helper()
	text := s.String()
	s2, err := Parse(text)
	if err != nil {
		t.Fatalf("reparsing %s: %v", text, err)
	}
	if got := s2.String(); got != text {
		t.Errorf("String() is not stable:\n%s\n%s", text, got)
	}
	if s2.Canonical() != s.Canonical() {
		t.Errorf("canonical forms differ:\n%s\n%s", s.Canonical(), s2.Canonical())
	}
}

func TestParseAttributes(t *testing.T) {
	s := MustParse(`{"type":"record","name":"R","namespace":"n","doc":"a record","aliases":["Old","o.Older"],
		"x-first":1,"fields":[
		{"name":"a","type":"long","default":9007199254740993,"doc":"big","order":"descending","aliases":["aa"],"x-f":{"k":[true,null]}},
		{"name":"b","type":{"type":"enum","name":"E","symbols":["X","Y"],"default":"Y","x-e":"v"},"default":"X","order":"ignore"},
		{"name":"c","type":{"type":"array","items":"int","x-a":2},"default":[1,2]},
		{"name":"d","type":["null","string"],"default":null},
		{"name":"e","type":{"type":"map","values":"R"},"default":{}}],
		"x-last":"z"}`)
	if s.Doc != "a record" || !reflect.DeepEqual(s.Aliases, []string{"n.Old", "o.Older"}) {
		t.Errorf("doc %q aliases %q", s.Doc, s.Aliases)
	}
	wantProps := []Property{{"x-first", json.Number("1")}, {"x-last", "z"}}
	if !reflect.DeepEqual(s.Props, wantProps) {
		t.Errorf("props %#v", s.Props)
	}
	a := s.Field("a")
	if a.Default != json.Number("9007199254740993") || !a.HasDefault || a.Doc != "big" || a.Order != Descending ||
		!reflect.DeepEqual(a.Aliases, []string{"aa"}) {
		t.Errorf("field a: %+v", a)
	}
	if v, ok := a.Prop("x-f"); !ok || !reflect.DeepEqual(v, map[string]any{"k": []any{true, nil}}) {
		t.Errorf("field a prop: %#v", v)
	}
	e := s.Field("b").Type
	if e.EnumDefault != "Y" || e.SymbolIndex("Y") != 1 || e.SymbolIndex("Z") != -1 || s.Field("b").Order != Ignore {
		t.Errorf("enum: %+v", e)
	}
	if v, _ := e.Prop("x-e"); v != "v" {
		t.Errorf("enum prop %v", v)
	}
	if v, _ := s.Field("c").Type.Prop("x-a"); v != json.Number("2") {
		t.Errorf("array prop %v", v)
	}
	if d := s.Field("d"); !d.HasDefault || d.Default != nil {
		t.Errorf("field d: %+v", d)
	}
	if s.Field("e").Type.Values != s {
		t.Error("map values are not the record")
	}
	if s.Field("zz") != nil {
		t.Error("Field of a missing name")
	}
	roundTrip(t, s)
	want := `{"type":"record","name":"R","namespace":"n","doc":"a record","fields":[` +
		`{"name":"a","type":"long","doc":"big","default":9007199254740993,"order":"descending","aliases":["aa"],"x-f":{"k":[true,null]}},` +
		`{"name":"b","type":{"type":"enum","name":"E","symbols":["X","Y"],"default":"Y","x-e":"v"},"default":"X","order":"ignore"},` +
		`{"name":"c","type":{"type":"array","items":"int","x-a":2},"default":[1,2]},` +
		`{"name":"d","type":["null","string"],"default":null},` +
		`{"name":"e","type":{"type":"map","values":"R"},"default":{}}],` +
		`"x-first":1,"x-last":"z","aliases":["Old","o.Older"]}`
	if got := s.String(); got != want {
		t.Errorf("String():\n got %s\nwant %s", got, want)
	}
}

func TestParseLogicalTypes(t *testing.T) {
	tests := []struct {
		schema string
		want   LogicalType
		prec   int
		scale  int
	}{
		{`{"type":"int","logicalType":"date"}`, LogicalDate, 0, 0},
		{`{"type":"int","logicalType":"time-millis"}`, LogicalTimeMillis, 0, 0},
		{`{"type":"long","logicalType":"time-micros"}`, LogicalTimeMicros, 0, 0},
		{`{"type":"long","logicalType":"timestamp-millis"}`, LogicalTimestampMillis, 0, 0},
		{`{"type":"long","logicalType":"timestamp-micros"}`, LogicalTimestampMicros, 0, 0},
		{`{"type":"long","logicalType":"timestamp-nanos"}`, LogicalTimestampNanos, 0, 0},
		{`{"type":"long","logicalType":"local-timestamp-millis"}`, LogicalLocalTimestampMillis, 0, 0},
		{`{"type":"long","logicalType":"local-timestamp-micros"}`, LogicalLocalTimestampMicros, 0, 0},
		{`{"type":"long","logicalType":"local-timestamp-nanos"}`, LogicalLocalTimestampNanos, 0, 0},
		{`{"type":"string","logicalType":"uuid"}`, LogicalUUID, 0, 0},
		{`{"type":"fixed","name":"U","size":16,"logicalType":"uuid"}`, LogicalUUID, 0, 0},
		{`{"type":"fixed","name":"D","size":12,"logicalType":"duration"}`, LogicalDuration, 0, 0},
		{`{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}`, LogicalDecimal, 9, 2},
		{`{"type":"bytes","logicalType":"decimal","precision":4}`, LogicalDecimal, 4, 0},
		{`{"type":"bytes","logicalType":"big-decimal"}`, LogicalBigDecimal, 0, 0},
		{`{"type":"fixed","name":"F","size":4,"logicalType":"decimal","precision":9,"scale":9}`, LogicalDecimal, 9, 9},
		// Invalid or unknown: ignored.
		{`{"type":"fixed","name":"F","size":4,"logicalType":"decimal","precision":10}`, "", 0, 0},
		{`{"type":"bytes","logicalType":"decimal","precision":2,"scale":3}`, "", 0, 0},
		{`{"type":"bytes","logicalType":"decimal","precision":0}`, "", 0, 0},
		{`{"type":"bytes","logicalType":"decimal"}`, "", 0, 0},
		{`{"type":"bytes","logicalType":"decimal","precision":"4"}`, "", 0, 0},
		{`{"type":"bytes","logicalType":"decimal","precision":4.5}`, "", 0, 0},
		{`{"type":"long","logicalType":"date"}`, "", 0, 0},
		{`{"type":"int","logicalType":"timestamp-millis"}`, "", 0, 0},
		{`{"type":"fixed","name":"D","size":11,"logicalType":"duration"}`, "", 0, 0},
		{`{"type":"int","logicalType":"uuid"}`, "", 0, 0},
		{`{"type":"string","logicalType":"made-up"}`, "", 0, 0},
		{`{"type":"record","name":"R","fields":[],"logicalType":"date"}`, "", 0, 0},
	}
	for _, tt := range tests {
		s, err := Parse(tt.schema)
		if err != nil {
			t.Fatalf("%s: %v", tt.schema, err)
		}
		if s.Logical != tt.want || s.Precision != tt.prec || s.Scale != tt.scale {
			t.Errorf("%s: got %q(%d,%d)", tt.schema, s.Logical, s.Precision, s.Scale)
		}
		_, kept := s.Prop("logicalType")
		if kept != (tt.want == "") {
			t.Errorf("%s: logicalType kept as a property: %v", tt.schema, kept)
		}
		roundTrip(t, s)
	}
	// Every valid one writes back as it was read.
	s := MustParse(`{"type":"bytes","logicalType":"decimal","precision":9,"scale":2,"x":1}`)
	if got := s.String(); got != `{"type":"bytes","logicalType":"decimal","precision":9,"scale":2,"x":1}` {
		t.Errorf("String() = %s", got)
	}
	if got := s.Canonical(); got != `"bytes"` {
		t.Errorf("Canonical() = %s", got)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ schema, want string }{
		{``, `avro schema: invalid JSON at offset 0: unexpected EOF`},
		{`{"type":"record"`, `invalid JSON`},
		{`"int" "long"`, `unexpected data after the schema`},
		{`int`, `invalid JSON`},
		{`42`, `a schema must be a string, an object or an array, not a number`},
		{`{}`, `missing "type"`},
		{`{"type":{"type":"int"}}`, `"type" must be a string, not an object`},
		{`"record"`, `type "record" must be written as an object`},
		{`"Nope"`, `unknown type "Nope"`},
		{`{"type":"Nope"}`, `unknown type "Nope"`},
		{`{"type":"record","fields":[]}`, `record is missing "name"`},
		{`{"type":"record","name":"R"}`, `record R: record is missing "fields"`},
		{`{"type":"record","name":"R","fields":{}}`, `record R: "fields" must be an array, not an object`},
		{`{"type":"record","name":"1R","fields":[]}`, `record 1R: invalid name: "1R"`},
		{`{"type":"record","name":"a..R","fields":[]}`, `record a..R: invalid name: "a..R" has an empty part`},
		{`{"type":"record","name":"R","namespace":"x-y","fields":[]}`, `record x-y.R: invalid name: "x-y"`},
		{`{"type":"record","name":"R","namespace":7,"fields":[]}`, `"namespace" must be a string`},
		{`{"type":"fixed","name":"int","size":1}`, `cannot take the name of a primitive type`},
		{`{"type":"record","name":"R","fields":[{"name":"a-b","type":"int"}]}`, `field R.a-b: invalid field name: "a-b"`},
		{`{"type":"record","name":"R","fields":[{"type":"int"}]}`, `record R field 0: missing "name"`},
		{`{"type":"record","name":"R","fields":[{"name":"a"}]}`, `field R.a: missing "type"`},
		{`{"type":"record","name":"R","fields":["int"]}`, `record R: field 0 must be an object, not a string`},
		{`{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"a","type":"long"}]}`,
			`field R.a: record R already has a field "a"`},
		{`{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"array","items":["null","Nope"]}}]}`,
			`avro schema: field R.a, items, union branch 1: unknown type "Nope"`},
		{`{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"map","values":{"type":"enum","name":"R","symbols":[]}}}]}`,
			`field R.a, values, enum R: type "R" is already defined`},
		{`{"type":"record","name":"R","fields":[{"name":"a","type":"int","order":"up"}]}`, `"order" must be`},
		{`{"type":"record","name":"R","fields":[{"name":"a","type":"int","aliases":["b c"]}]}`, `field R.a: invalid alias`},
		{`{"type":"record","name":"R","aliases":"S","fields":[]}`, `record R: "aliases": must be an array of strings`},
		{`{"type":"record","name":"R","fields":[{"name":"a","type":"Later"},{"name":"b","type":{"type":"fixed","name":"Later","size":1}}]}`,
			`field R.a: unknown type "Later"`},
		{`{"type":"record","name":"a.Outer","fields":[{"name":"i","type":{"type":"fixed","name":"In","size":1}},
			{"name":"c","type":{"type":"record","name":"C","namespace":"c","fields":[{"name":"r","type":"In"}]}}]}`,
			`field c.C.r: unknown type "In"`},
		{`["int",["long"]]`, `union branch 1: a union cannot contain a union directly`},
		{`["int","string","int"]`, `union branch 2: union already has a branch of type "int" (branch 0)`},
		{`[{"type":"enum","name":"E","symbols":["A"]},"E"]`, `union already has a branch of type "E"`},
		{`{"type":"array"}`, `array is missing "items"`},
		{`{"type":"map","values":"Nope"}`, `values: unknown type "Nope"`},
		{`{"type":"enum","name":"E"}`, `enum E: enum is missing "symbols"`},
		{`{"type":"enum","name":"E","symbols":["A",1]}`, `"symbols": element 1 must be a string, not a number`},
		{`{"type":"enum","name":"E","symbols":["A","A"]}`, `duplicate symbol "A"`},
		{`{"type":"enum","name":"E","symbols":["A","9"]}`, `invalid symbol: "9"`},
		{`{"type":"enum","name":"E","symbols":["A"],"default":"B"}`, `default "B" is not one of the symbols`},
		{`{"type":"fixed","name":"F"}`, `fixed F: fixed is missing "size"`},
		{`{"type":"fixed","name":"F","size":-1}`, `"size" must be a non-negative integer, not -1`},
		{`{"type":"fixed","name":"F","size":"4"}`, `"size" must be a non-negative integer, not "4"`},
		{`{"type":"fixed","name":"F","size":1.5}`, `"size" must be a non-negative integer`},
		{`{"type":"record","name":"R","fields":[{"name":"a","type":"int","default":"x"}]}`,
			`field R.a: default value "x" does not match the field's type int`},
		{`{"type":"record","name":"R","fields":[{"name":"a","type":"int","default":2147483648}]}`, `default value 2147483648`},
		{`{"type":"record","name":"R","fields":[{"name":"a","type":"long","default":1.0}]}`, `default value 1`},
		{`{"type":"record","name":"R","fields":[{"name":"a","type":"boolean","default":"true"}]}`, `default value "true"`},
		{`{"type":"record","name":"R","fields":[{"name":"a","type":"null","default":0}]}`, `default value 0`},
		{`{"type":"record","name":"R","fields":[{"name":"a","type":["null","int"],"default":"x"}]}`, `default value "x"`},
		{`{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"array","items":"int"},"default":[1,"2"]}]}`,
			`default value [1,"2"]`},
		{`{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"map","values":"int"},"default":[]}]}`, `default value []`},
		{`{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"record","name":"S","fields":[{"name":"x","type":"int"}]},"default":{}}]}`,
			`field R.a: default value {} does not match the field's type record S`},
	}
	for _, tt := range tests {
		_, err := Parse(tt.schema)
		if err == nil {
			t.Errorf("%s: no error, want %s", tt.schema, tt.want)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s:\n got %v\nwant %s", tt.schema, err, tt.want)
		}
		var se *Error
		if !errors.As(err, &se) {
			t.Errorf("%s: error %T is not *Error", tt.schema, err)
		}
	}
}

func TestParseValidDefaults(t *testing.T) {
	for _, text := range []string{
		`{"type":"record","name":"R","fields":[{"name":"a","type":["null","int"],"default":3}]}`,
		`{"type":"record","name":"R","fields":[{"name":"a","type":"float","default":1e10}]}`,
		`{"type":"record","name":"R","fields":[{"name":"a","type":"long","default":-9223372036854775808}]}`,
		`{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"fixed","name":"F","size":2},"default":"\u00ff\u0000"}]}`,
		`{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"record","name":"S","fields":[
			{"name":"x","type":"int","default":1},{"name":"y","type":"string"}]},"default":{"y":"z"}}]}`,
		`{"type":"record","name":"L","fields":[{"name":"next","type":["null","L"],"default":{"next":null}}]}`,
		`{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"map","values":["null","boolean"]},"default":{"k":true,"l":null}}]}`,
	} {
		if _, err := Parse(text); err != nil {
			t.Errorf("%s: %v", text, err)
		}
	}
}

func TestParseUnicodeNames(t *testing.T) {
	s, err := Parse(`{"type":"record","name":"Größe","namespace":"données","fields":[{"name":"ñ_1","type":"int"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "données.Größe" || s.Fields[0].Name != "ñ_1" {
		t.Errorf("got %q %q", s.Name, s.Fields[0].Name)
	}
	roundTrip(t, s)
}

// Vectors from the Avro specification's test data for the Parsing
// Canonical Form and its fingerprint.
func TestCanonical(t *testing.T) {
	tests := []struct {
		in, canonical string
		fingerprint   int64
	}{
		{`"null"`, `"null"`, 7195948357588979594},
		{`{"type":"boolean"}`, `"boolean"`, -6970731678124411036},
		{`"int"`, `"int"`, 8247732601305521295},
		{`{"type":"long"}`, `"long"`, -3434872931120570953},
		{`"float"`, `"float"`, 5583340709985441680},
		{`"double"`, `"double"`, -8181574048448539266},
		{`"bytes"`, `"bytes"`, 5746618253357095269},
		{`"string"`, `"string"`, -8142146995180207161},
		{`[  ]`, `[]`, -1241056759729112623},
		{`[ "int"  ]`, `["int"]`, -5232228896498058493},
		{`[ "int" , {"type":"boolean"} ]`, `["int","boolean"]`, 5392556393470105090},
		{`{"fields":[], "type":"record", "name":"foo"}`, `{"name":"foo","type":"record","fields":[]}`, -4824392279771201922},
		{`{"fields":[], "type":"record", "name":"foo", "namespace":"x.y"}`, `{"name":"x.y.foo","type":"record","fields":[]}`, 5916914534497305771},
		{`{"fields":[], "type":"record", "name":"a.b.foo", "namespace":"x.y"}`, `{"name":"a.b.foo","type":"record","fields":[]}`, -4616218487480524110},
		{`{"fields":[], "type":"record", "name":"foo", "doc":"Useful info", "aliases":["foo","bar"]}`, `{"name":"foo","type":"record","fields":[]}`, -4824392279771201922},
		{`{"fields":[{"type":{"type":"boolean"}, "name":"f1"}], "type":"record", "name":"foo"}`,
			`{"name":"foo","type":"record","fields":[{"name":"f1","type":"boolean"}]}`, 7843277075252814651},
		{`{"fields":[{"type":"boolean", "aliases":[], "name":"f1", "default":true},
			{"order":"descending","name":"f2","doc":"Hello","type":"int"}], "type":"record", "name":"foo"}`,
			`{"name":"foo","type":"record","fields":[{"name":"f1","type":"boolean"},{"name":"f2","type":"int"}]}`, -4860222112080293046},
		{`{"type":"enum", "name":"foo", "symbols":["A1"]}`, `{"name":"foo","type":"enum","symbols":["A1"]}`, -6342190197741309591},
		{`{"namespace":"x.y.z", "type":"enum", "name":"foo", "doc":"foo bar", "symbols":["A1", "A2"]}`,
			`{"name":"x.y.z.foo","type":"enum","symbols":["A1","A2"]}`, -4448647247586288245},
		{`{"name":"foo","type":"fixed","size":15}`, `{"name":"foo","type":"fixed","size":15}`, 1756455273707447556},
		{`{"namespace":"x.y.z", "type":"fixed", "name":"foo", "doc":"foo bar", "size":32}`,
			`{"name":"x.y.z.foo","type":"fixed","size":32}`, -3064184465700546786},
		{`{ "items":{"type":"null"}, "type":"array"}`, `{"type":"array","items":"null"}`, -589620603366471059},
		{`{ "values":"string", "type":"map"}`, `{"type":"map","values":"string"}`, -8732877298790414990},
		{`{"name":"PigValue","type":"record", "fields":[{"name":"value", "type":["null", "int", "long", "PigValue"]}]}`,
			`{"name":"PigValue","type":"record","fields":[{"name":"value","type":["null","int","long","PigValue"]}]}`, -1759257747318642341},
	}
	for _, tt := range tests {
		s, err := Parse(tt.in)
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if got := s.Canonical(); got != tt.canonical {
			t.Errorf("%s:\n got %s\nwant %s", tt.in, got, tt.canonical)
		}
		if got := int64(s.Fingerprint64()); got != tt.fingerprint {
			t.Errorf("%s: fingerprint %d, want %d", tt.in, got, tt.fingerprint)
		}
	}
	// Names are written in full, references included.
	s := MustParse(`{"type":"record","name":"R","namespace":"n","fields":[
		{"name":"e","type":{"type":"enum","name":"E","symbols":["A"],"doc":"x"}},
		{"name":"f","type":"E"},{"name":"d","type":{"type":"int","logicalType":"date"}}]}`)
	want := `{"name":"n.R","type":"record","fields":[{"name":"e","type":{"name":"n.E","type":"enum","symbols":["A"]}},` +
		`{"name":"f","type":"n.E"},{"name":"d","type":"int"}]}`
	if got := s.Canonical(); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func TestStringEscapes(t *testing.T) {
	s := MustParse(`{"type":"record","name":"R","doc":"q\"b\\n\n\u0001é<>&","fields":[]}`)
	want := `{"type":"record","name":"R","doc":"q\"b\\n\n\u0001é<>&","fields":[]}`
	if got := s.String(); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"s": s}); err != nil || b.String() != `{"s":`+want+"}\n" {
		t.Errorf("MarshalJSON: %s %v", b.String(), err)
	}
}

func TestInteropSchemasRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("../testdata/interop/*/*.avsc")
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Parse(string(text))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		roundTrip(t, s)
	}
}

func TestHelpers(t *testing.T) {
	syms := make([]string, 40)
	for i := range syms {
		syms[i] = "S" + strings.Repeat("x", i)
	}
	s := MustParse(`{"type":"enum","name":"E","symbols":["` + strings.Join(syms, `","`) + `"]}`)
	for i, sym := range syms {
		if s.SymbolIndex(sym) != i {
			t.Errorf("SymbolIndex(%q) = %d", sym, s.SymbolIndex(sym))
		}
	}
	if s.SymbolIndex("nope") != -1 {
		t.Error("SymbolIndex of a missing symbol")
	}
	u := MustParse(`["null","int",{"type":"array","items":"int"},{"type":"fixed","name":"a.F","size":1}]`)
	for i, name := range []string{"null", "int", "array", "a.F"} {
		if u.Branch(name) != i {
			t.Errorf("Branch(%q) = %d", name, u.Branch(name))
		}
	}
	if u.Branch("long") != -1 || u.Branches[3].ShortName() != "F" || u.Branches[3].Namespace() != "a" {
		t.Error("Branch or names")
	}
	if Kind(99).String() != "Kind(99)" || Order(9).String() != "Order(9)" ||
		Union.IsPrimitive() || !Fixed.IsNamed() {
		t.Error("String methods")
	}
	var se *Error
	_, err := Parse(`{"type":"fixed","name":"F","size":-1}`)
	if !errors.As(err, &se) || se.Path != "fixed F" || errors.Unwrap(err) == nil {
		t.Errorf("error %#v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("MustParse did not panic")
		}
	}()
	MustParse(`"nope"`)
}

// TestErrorType accepts a record declared as an error, as Java does, and
// writes it back as an error.
func TestErrorType(t *testing.T) {
	text := `{"type":"error","name":"Oops","fields":[{"name":"code","type":"int"},{"name":"why","type":"string"}]}`
	s, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if s.Kind != Record || !s.IsError {
		t.Fatalf("kind %s, error %v", s.Kind, s.IsError)
	}
	if got := s.String(); got != text {
		t.Fatalf("written back as %s", got)
	}
}

// TestAllowInvalidDefaults keeps a default that does not match its field
// when asked to, as data files written by older Java need.
func TestAllowInvalidDefaults(t *testing.T) {
	text := `{"type":"record","name":"R","fields":[{"name":"a","type":"int","default":"x"}]}`
	if _, err := Parse(text); err == nil {
		t.Fatal("Parse accepted an invalid default")
	}
	s, err := ParseWith(text, &ParseOptions{AllowInvalidDefaults: true})
	if err != nil {
		t.Fatal(err)
	}
	if f := s.Field("a"); !f.HasDefault || f.Default != "x" {
		t.Fatalf("default %v", f.Default)
	}
}
