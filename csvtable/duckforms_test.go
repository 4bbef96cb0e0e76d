package csvtable

import (
	"reflect"
	"strings"
	"testing"
)

// TestInferDuckDBForms checks the forms DuckDB's read_csv_auto takes that
// Infer once read as strings: booleans in any case, -0 among integers.
func TestInferDuckDBForms(t *testing.T) {
	for _, tc := range []struct {
		cells string
		want  Type
	}{
		{"TRUE|False|tRuE|false", Boolean},
		{"TRUE|yes", String},
		{"-0|5", Int},
		{"-0|1.5", Double},
		{"-00|5", String}, // leading zeros stay text (codes, zip codes)
		{"+5|5", String},
	} {
		text := "a\n" + strings.ReplaceAll(tc.cells, "|", "\n") + "\n"
		fields, _, err := Infer(strings.NewReader(text), ',', nil)
		if err != nil {
			t.Fatal(err)
		}
		if fields[0].Type != tc.want {
			t.Errorf("%q: %v, want %v", tc.cells, fields[0].Type, tc.want)
		}
	}
	var c Cell
	if err := parseText(&Field{Type: Boolean}, "FALSE", &c); err != nil || c.B {
		t.Errorf("FALSE: %v %v", c.B, err)
	}
	if err := parseText(&Field{Type: Int}, "-0", &c); err != nil || c.I != 0 {
		t.Errorf("-0: %v %v", c.I, err)
	}
}

// TestDuplicateHeader checks that repeated header names are renamed as
// DuckDB's read_csv renames them (compared with DuckDB in the command's
// TestCSVAsDuckDB).
func TestDuplicateHeader(t *testing.T) {
	for _, tc := range []struct{ header, want string }{
		{"a,a,a", "a,a_1,a_2"},
		{"a,a_1,a,a", "a,a_1,a_1_1,a_2"},
		{"a,A", "a,A_1"},
		{"a,b", "a,b"},
	} {
		rd, err := NewReader(strings.NewReader(tc.header+"\n"), ',', nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := rd.Header(); !reflect.DeepEqual(got, strings.Split(tc.want, ",")) {
			t.Errorf("%s: %v, want %s", tc.header, got, tc.want)
		}
	}
}
