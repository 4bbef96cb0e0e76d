package schema

import "strings"

// SourceNameProps are the field attributes that keep a field's name in the
// data it was converted from where that name is not a valid Avro name:
// "csv.name" (CSV and CLMN headers), "arrow.name" (Arrow and Parquet
// columns), "json.name" (the keys of JSON objects), looked up in that
// order by SourceName.
var SourceNameProps = [...]string{"csv.name", "arrow.name", "json.name"}

// SourceName returns the name the field had in its source data, kept in
// one of SourceNameProps when it is not a valid Avro name ("@timestamp",
// "log.level"), or else the field's Avro name. The outputs that are not
// Avro (plain JSON, CSV, Parquet) print it, so that the data comes back
// under its own names.
func (f *Field) SourceName() string {
	for _, k := range SourceNameProps {
		if v, ok := findProp(f.Props, k); ok {
			if name, ok := v.(string); ok {
				return name
			}
		}
	}
	return f.Name
}

// MakeName makes s a valid Avro name: every character other than A-Z, a-z,
// 0-9 and _ becomes _, and a name that is empty or starts with a digit
// gets a leading _.
func MakeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 128 && (r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	out := b.String()
	if out == "" || out[0] >= '0' && out[0] <= '9' {
		out = "_" + out
	}
	return out
}
