package schema

import (
	"fmt"
	"strings"
)

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

// LookupField returns the field of record s that name names: by its Avro
// name, or by its source name (SourceName: the "@timestamp" of a field
// _timestamp), so that users may type the names their data has. It
// returns nil when no field has the name, and an error naming both
// fields when one field has it as its Avro name and another as its source
// name (JSON keys "_timestamp" and "@timestamp" make fields _timestamp_2
// and _timestamp).
func (s *Schema) LookupField(name string) (*Field, error) {
	var byName, bySource *Field
	for _, f := range s.Fields {
		if f.Name == name {
			byName = f
		} else if bySource == nil && f.SourceName() == name {
			bySource = f
		}
	}
	if byName != nil && bySource != nil {
		return nil, fmt.Errorf("%q names two fields of %s: %s, and %s by its source name; name it %s or %s", name, s.Name, byName.Name, bySource.Name, byName.Name, bySource.Name)
	}
	if byName != nil {
		return byName, nil
	}
	return bySource, nil
}

// maxPathDepth bounds the types ResolvePath walks into.
const maxPathDepth = 1000

// ResolvePath returns path, a dotted path of fields from the type s down
// (through records, the items of arrays, the values of maps and the
// branches of unions), with every field named by its Avro name, where
// path may name fields by their source names (SourceName), dots and all:
// "log.level", "http.user-agent", "@timestamp" give log_level,
// http.user_agent, _timestamp. A path that names fields in two ways
// ("a.b" as the source name of a field a_b, and as field b of a record a)
// is an error naming both; a path that names no field is returned as it
// is, for the caller's own error.
func ResolvePath(s *Schema, path string) (string, error) {
	r := &pathResolver{seen: map[string]bool{}, tried: map[resolveStep]int{}}
	r.walk(s, path, "", 0)
	switch len(r.found) {
	case 0:
		return path, nil
	case 1:
		return r.found[0], nil
	}
	return "", fmt.Errorf("field path %q names fields in more than one way: %s (by Avro names or source names); give one", path, strings.Join(r.found, " and "))
}

// pathResolver finds the Avro paths a path names.
type pathResolver struct {
	found []string
	seen  map[string]bool
	// tried counts the paths found from a type with the same rest of the
	// path: a step tried before that found none finds none again, so
	// that the walk stays linear in the schema and the path whatever
	// names repeat.
	tried map[resolveStep]int
}

type resolveStep struct {
	s    *Schema
	rest int // len(rest)
}

// walk adds every Avro path that rest names from the type s down, prefix
// being the Avro path that led to s; it stops once two are found.
func (r *pathResolver) walk(s *Schema, rest, prefix string, depth int) {
	if depth > maxPathDepth || len(r.found) > 1 {
		return
	}
	step := resolveStep{s, len(rest)}
	if n, ok := r.tried[step]; ok && n == 0 {
		return
	}
	before := len(r.found)
	defer func() { r.tried[step] += len(r.found) - before }()
	switch s.Kind {
	case Union:
		for _, b := range s.Branches {
			r.walk(b, rest, prefix, depth+1)
		}
	case Array:
		r.walk(s.Items, rest, prefix, depth+1)
	case Map:
		r.walk(s.Values, rest, prefix, depth+1)
	case Record:
		for _, f := range s.Fields {
			p := f.Name
			if prefix != "" {
				p = prefix + "." + f.Name
			}
			names := [2]string{f.Name, f.SourceName()}
			for k, n := range names {
				if k == 1 && n == names[0] {
					break
				}
				if rest == n {
					if !r.seen[p] {
						r.seen[p] = true
						r.found = append(r.found, p)
					}
				} else if len(rest) > len(n) && rest[len(n)] == '.' && strings.HasPrefix(rest, n) {
					r.walk(f.Type, rest[len(n)+1:], p, depth+1)
				}
			}
		}
	}
}

// ResolvePaths is ResolvePath of every path of paths.
func ResolvePaths(s *Schema, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return paths, nil
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		var err error
		if out[i], err = ResolvePath(s, p); err != nil {
			return nil, err
		}
	}
	return out, nil
}
