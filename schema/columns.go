package schema

import (
	"errors"
	"fmt"
	"strings"

	"github.com/trevni-go/trevni/format"
)

// ErrRecursive is returned (wrapped) by Columns for a schema that contains
// itself: such a schema has no finite column layout.
var ErrRecursive = errors.New("cannot shred recursive schema")

// Role tells why a column exists.
type Role uint8

// The column roles.
const (
	// RoleValue: a column of single values: a record field, a map value or
	// a top-level value of a simple type. Schema is that simple type.
	RoleValue Role = iota
	// RoleArray: the column of an Avro array. Schema is the array. If its
	// items are simple, the column holds them; otherwise it is a NULL
	// column whose children hold them.
	RoleArray
	// RoleMap: the NULL array column of an Avro map, whose children hold
	// its keys and values. Schema is the map.
	RoleMap
	// RoleMapKey: the string column of a map's keys. Schema is the map.
	RoleMapKey
	// RoleBranch: the array column of one non-null union branch, holding a
	// length of 1 when the branch is taken and 0 otherwise. Schema is the
	// branch. If the branch is simple the column holds its values;
	// otherwise it is a NULL column whose children hold them.
	RoleBranch
)

var roleNames = [...]string{"value", "array", "map", "map key", "union branch"}

// String names the role.
func (r Role) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return fmt.Sprintf("Role(%d)", uint8(r))
}

// Column is one Trevni column of an Avro schema.
type Column struct {
	// Index is the column's position in the file.
	Index int
	// Name is the column's path: "a#b" for field b of record field a,
	// "a[]" for array a, "m>", "m>key" and "m>value" for map m, "u/T" for
	// branch T of union u.
	Name string
	// Type is the type of the column's values; Null for a column that
	// only holds lengths for its children.
	Type format.ValueType
	// Array marks a column that holds a length per row (or per parent
	// value) before its values.
	Array bool
	// Parent is the index of the column's parent column, or -1, and
	// ParentName its name, or "".
	Parent     int
	ParentName string
	// Width is the number of columns in the column's subtree, itself
	// included: 1 for a column without children. The columns of the
	// subtree are Index to Index+Width-1.
	Width int
	// Role tells what Schema is.
	Role Role
	// Schema is the schema node the column was made for (see Role).
	Schema *Schema
}

// Meta returns the column's metadata as the Trevni writer stores it.
func (c *Column) Meta() format.ColumnMeta {
	return format.ColumnMeta{Name: c.Name, Type: c.Type, Array: c.Array, Parent: c.ParentName}
}

// Columns returns the Trevni columns that hold values of schema s, in the
// order and with the names, types and parents that Java's AvroColumnator
// (Apache Avro's trevni-avro) gives them, which is the order in which
// Java's reader expects them.
//
// The schema is walked depth first, in schema order:
//   - a value of a simple type (primitive, enum, fixed) is one column; at the
//     top level it is named after its type ("string", "ns.Color");
//   - a record adds nothing itself: its fields are columnized under
//     "path#field" (just "field" at the top level);
//   - an array is an array column "path[]" ("[]" at the top level): of the
//     item type if the items are simple, otherwise of type null with the
//     items' columns as its children;
//   - a map is a null array column "path>" with children "path>key"
//     (string) and the columns of "path>value";
//   - a union has, for each non-null branch in order, an array column
//     "path/T" where T is the branch's FullName, built like an array
//     column whose items are the branch. A union of null alone has no
//     column.
//
// Enums are stored as int (ordinals) and fixed as bytes. A recursive schema
// has no layout: the error wraps ErrRecursive and names the cycle.
func Columns(s *Schema) ([]Column, error) {
	w := &columnator{}
	if err := w.walk(s, "", true, -1); err != nil {
		return nil, err
	}
	return w.cols, nil
}

// Metas returns the metadata of every column, in order.
func Metas(cols []Column) []format.ColumnMeta {
	out := make([]format.ColumnMeta, len(cols))
	for i := range cols {
		out[i] = cols[i].Meta()
	}
	return out
}

type columnator struct {
	cols  []Column
	stack []*Schema // the complex nodes being walked, outermost first
}

// simpleType maps a simple Avro type to the Trevni type of its column.
func simpleType(s *Schema) format.ValueType {
	switch s.Kind {
	case Null:
		return format.Null
	case Boolean:
		return format.Boolean
	case Int, Enum:
		return format.Int
	case Long:
		return format.Long
	case Float:
		return format.Float
	case Double:
		return format.Double
	case String:
		return format.String
	}
	return format.Bytes // bytes, fixed
}

func (w *columnator) add(name string, t format.ValueType, parent int, array bool, role Role, s *Schema) int {
	c := Column{Index: len(w.cols), Name: name, Type: t, Array: array, Parent: parent, Width: 1, Role: role, Schema: s}
	if parent >= 0 {
		c.ParentName = w.cols[parent].Name
	}
	w.cols = append(w.cols, c)
	return c.Index
}

// close sets the width of column i once its subtree is complete.
func (w *columnator) close(i int) { w.cols[i].Width = len(w.cols) - i }

// walk adds the columns of a value of type s found at path. top marks the
// schema's root, where there is no path yet.
func (w *columnator) walk(s *Schema, path string, top bool, parent int) error {
	if s.IsSimple() {
		if top {
			path = s.FullName()
		}
		w.add(path, simpleType(s), parent, false, RoleValue, s)
		return nil
	}
	for i, t := range w.stack {
		if t == s {
			return w.recursion(i, path)
		}
	}
	w.stack = append(w.stack, s)
	defer func() { w.stack = w.stack[:len(w.stack)-1] }()

	switch s.Kind {
	case Record:
		for _, f := range s.Fields {
			p := f.Name
			if !top {
				p = path + "#" + f.Name
			}
			if err := w.walk(f.Type, p, false, parent); err != nil {
				return err
			}
		}
	case Array:
		return w.repeated(path+"[]", s.Items, parent, RoleArray, s)
	case Map:
		path += ">"
		m := w.add(path, format.Null, parent, true, RoleMap, s)
		w.add(path+"key", format.String, m, false, RoleMapKey, s)
		if err := w.walk(s.Values, path+"value", false, m); err != nil {
			return err
		}
		w.close(m)
	case Union:
		for _, b := range s.Branches {
			if b.Kind == Null {
				continue
			}
			p := b.FullName()
			if !top {
				p = path + "/" + p
			}
			if err := w.repeated(p, b, parent, RoleBranch, b); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("cannot shred schema node of kind %s", s.Kind)
	}
	return nil
}

// repeated adds the array column at path whose elements have type elem:
// one column if elem is simple, else a null column and elem's columns.
func (w *columnator) repeated(path string, elem *Schema, parent int, role Role, s *Schema) error {
	if elem.IsSimple() {
		w.add(path, simpleType(elem), parent, true, role, s)
		return nil
	}
	c := w.add(path, format.Null, parent, true, role, s)
	if err := w.walk(elem, path, false, c); err != nil {
		return err
	}
	w.close(c)
	return nil
}

// recursion reports the cycle that starts at w.stack[i] and comes back to
// it at path.
func (w *columnator) recursion(i int, path string) error {
	var names []string
	for _, t := range w.stack[i:] {
		if t.Kind.IsNamed() {
			names = append(names, t.Name)
		}
	}
	if len(names) == 0 {
		names = append(names, w.stack[i].Kind.String())
	}
	names = append(names, names[0])
	if path == "" {
		path = "the top level"
	}
	return fmt.Errorf("%w: %s (again at %q)", ErrRecursive, strings.Join(names, " -> "), path)
}
