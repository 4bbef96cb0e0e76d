package trevniio

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ProjectSchema returns the Avro schema (JSON text) that keeps, of the
// record schema text, only the fields named by paths: dotted paths of
// field names ("a.b.c"), passing through arrays, maps and unions as
// assemble.Options.Fields does. A path naming a record keeps all of it.
// The result is a projection, a reader schema that reads files of text.
func ProjectSchema(text string, paths []string) (string, error) {
	var root any
	if err := json.Unmarshal([]byte(text), &root); err != nil {
		return "", fmt.Errorf("schema: %w", err)
	}
	// Named types are defined once and then referred to by name; a
	// projection must keep one definition of each, so named types a
	// projection changes are not supported beyond their first use.
	for _, p := range paths {
		if p == "" {
			return "", fmt.Errorf("field path is empty")
		}
	}
	out, err := project(root, paths, "")
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// project returns the part of schema node s that holds paths (relative to
// s); where is the path of s, for errors.
func project(s any, paths []string, where string) (any, error) {
	switch t := s.(type) {
	case []any: // a union
		// Branches that can hold fields are projected; the others (null,
		// primitives) are kept as they are.
		out := make([]any, 0, len(t))
		var firstErr error
		projected := false
		for _, b := range t {
			if !container(b) {
				out = append(out, b)
				continue
			}
			pb, err := project(b, paths, where)
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				out = append(out, b)
				continue
			}
			projected = true
			out = append(out, pb)
		}
		if !projected {
			if firstErr != nil {
				return nil, firstErr
			}
			return nil, fmt.Errorf("field %s: no record in the union to select %q in", where, paths[0])
		}
		return out, nil
	case map[string]any:
		switch t["type"] {
		case "array":
			items, err := project(t["items"], paths, where)
			if err != nil {
				return nil, err
			}
			return with(t, "items", items), nil
		case "map":
			values, err := project(t["values"], paths, where)
			if err != nil {
				return nil, err
			}
			return with(t, "values", values), nil
		case "record", "error":
			fields, _ := t["fields"].([]any)
			var kept []any
			used := make([]bool, len(paths))
			for _, f := range fields {
				fm, _ := f.(map[string]any)
				name, _ := fm["name"].(string)
				var sub []string
				whole := false
				for i, p := range paths {
					head, rest, more := strings.Cut(p, ".")
					if head != name {
						continue
					}
					used[i] = true
					if !more {
						whole = true
					} else {
						sub = append(sub, rest)
					}
				}
				switch {
				case whole:
					kept = append(kept, fm)
				case len(sub) > 0:
					ft, err := project(fm["type"], sub, join(where, name))
					if err != nil {
						return nil, err
					}
					kept = append(kept, with(fm, "type", ft))
				}
			}
			for i, u := range used {
				if !u {
					return nil, fmt.Errorf("field %s: no such field", join(where, paths[i]))
				}
			}
			return with(t, "fields", kept), nil
		}
		if len(paths) > 0 {
			return nil, fmt.Errorf("field %s: not a record", join(where, paths[0]))
		}
		return t, nil
	default:
		// A primitive or a reference to a named type: nothing to select.
		return nil, fmt.Errorf("field %s: cannot select %q inside %v", where, paths[0], s)
	}
}

// with returns a copy of m with key set to v.
func with(m map[string]any, key string, v any) map[string]any {
	c := make(map[string]any, len(m))
	for k, x := range m {
		c[k] = x
	}
	c[key] = v
	return c
}

// join joins field path prefix and name with a dot.
func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// container reports whether schema node s is a record, an array, a map or
// a union: a type that a field path can go into.
func container(s any) bool {
	switch t := s.(type) {
	case []any:
		return true
	case map[string]any:
		switch t["type"] {
		case "record", "error", "array", "map":
			return true
		}
	}
	return false
}
