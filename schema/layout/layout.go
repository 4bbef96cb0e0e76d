// Package layout lays an Avro schema out as Trevni columns.
//
// One walk of the schema, [New], produces both views of the layout that the
// rest of the project needs: the flat list of [Column]s that a file stores,
// in Java's order and with Java's names, and the tree of [Node]s (one per
// position in the schema) that the shredders and assemblers walk. Both come
// from the same walk, so they cannot disagree.
//
// The layout is what Java's AvroColumnator (Apache Avro's trevni-avro)
// computes, which a file must follow for Java's reader to read it:
//   - a value of a simple type (primitive, enum, fixed) is one column; at the
//     top level it is named after its type ("string", "ns.Color");
//   - a record adds nothing itself: its fields are laid out under
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
// Enums are stored as int (ordinals) and fixed as bytes ([ColumnType]).
//
// A schema is a graph: a named type may be used in many places, and every
// use is laid out again. A small schema can therefore claim an enormous
// layout (a record with two fields of the previous record type, 26 levels
// deep, has 2^26 columns). The walk counts columns and nodes as it goes and
// stops at [Options.MaxColumns] (and four times as many nodes) before
// allocating more, and it stops at
// [Options.MaxDepth] levels of nesting. A recursive schema has no finite
// layout and is reported with [ErrRecursive].
//
// The package imports format for the Trevni column types and metadata that
// a layout is made of; format itself knows nothing of Avro.
package layout

import (
	"errors"
	"fmt"
	"strings"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/coltype"
)

// MetaAvroSchema is the file metadata key under which a Trevni file
// written from Avro (or from protobuf, through its derived Avro schema)
// stores the schema's JSON text, as Java's trevni-avro does.
const MetaAvroSchema = "avro.schema"

// Limits applied when Options leave them zero.
const (
	// DefaultMaxColumns bounds the columns of a layout (and its nodes to
	// four times as many). Real schemas have hundreds of columns, rarely
	// thousands.
	DefaultMaxColumns = 1 << 16
	// DefaultMaxDepth bounds how deeply complex types (records, arrays,
	// maps, unions) may nest.
	DefaultMaxDepth = 1000
)

var (
	// ErrRecursive is returned (wrapped) for a schema that contains itself:
	// such a schema has no finite column layout.
	ErrRecursive = errors.New("cannot shred recursive schema")
	// ErrTooLarge is returned (wrapped) for a schema whose layout exceeds
	// Options.MaxColumns or Options.MaxDepth. It is schema.ErrTooLarge, so
	// one test catches a schema too deep to parse and one too large to lay
	// out.
	ErrTooLarge = schema.ErrTooLarge
)

// Options bounds a layout. A nil *Options means the defaults.
type Options struct {
	// MaxColumns bounds the number of columns of the layout, and its
	// nodes (positions, including records, which have no column of their
	// own) to four times as many; 0 means DefaultMaxColumns.
	MaxColumns int
	// MaxDepth bounds the nesting of complex types; 0 means
	// DefaultMaxDepth.
	MaxDepth int
}

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
	Schema *schema.Schema
}

// Meta returns the column's metadata as the Trevni writer stores it.
func (c *Column) Meta() format.ColumnMeta {
	return format.ColumnMeta{Name: c.Name, Type: c.Type, Array: c.Array, Parent: c.ParentName}
}

// Node is one position of a schema in the column layout. A named type used
// in several places gets a Node at each.
type Node struct {
	Schema *schema.Schema
	Kind   schema.Kind
	// Col is the column of a simple value, or the length column of an
	// array or map; -1 for records and unions.
	Col int
	// Type is the column type of a simple value.
	Type format.ValueType
	// Fields holds a record's fields in order.
	Fields []*Node
	// Items holds an array's items or a map's values. Simple array items
	// live in the array column itself: Items.Col == Col.
	Items *Node
	// KeyCol is a map's key column.
	KeyCol int
	// Branches holds a union's branches in order, nil for the null
	// branch, and BranchCols the column of each (-1 for null). A simple
	// branch's values live in its branch column.
	Branches   []*Node
	BranchCols []int
	// First and End delimit the columns of the node's subtree: First to
	// End-1.
	First, End int
	// MinSize is the fewest bytes a value takes in Avro's binary encoding.
	MinSize int
}

// Layout is the column layout of a schema: its columns in file order and
// the tree of its positions.
type Layout struct {
	Root    *Node
	Columns []Column
}

// Metas returns the metadata of every column, in order, as the Trevni
// writer takes it.
func (l *Layout) Metas() []format.ColumnMeta {
	out := make([]format.ColumnMeta, len(l.Columns))
	for i := range l.Columns {
		out[i] = l.Columns[i].Meta()
	}
	return out
}

// New lays out schema s. The error wraps ErrRecursive for a recursive
// schema and ErrTooLarge for one beyond the options' bounds.
func New(s *schema.Schema, opts *Options) (*Layout, error) {
	b := &builder{maxColumns: DefaultMaxColumns, maxDepth: DefaultMaxDepth}
	if opts != nil {
		if opts.MaxColumns > 0 {
			b.maxColumns = opts.MaxColumns
		}
		if opts.MaxDepth > 0 {
			b.maxDepth = opts.MaxDepth
		}
	}
	root, err := b.node(s, "", true, -1)
	if err != nil {
		return nil, err
	}
	return &Layout{Root: root, Columns: b.cols}, nil
}

// ParseStored parses the schema text stored in a data file (a Trevni
// file's avro.schema, an Avro container's header) for laying out with
// opts: nesting is bounded by opts' MaxDepth, and field defaults that do
// not match their fields are kept, since older Java wrote such schemas and
// a default matters only to a reader that uses it.
func ParseStored(text string, opts *Options) (*schema.Schema, error) {
	po := &schema.ParseOptions{AllowInvalidDefaults: true}
	if opts != nil && opts.MaxDepth > 0 {
		po.MaxDepth = opts.MaxDepth
	}
	return schema.ParseWith(text, po)
}

// Columns returns just the columns of schema s's layout; see New.
func Columns(s *schema.Schema, opts *Options) ([]Column, error) {
	l, err := New(s, opts)
	if err != nil {
		return nil, err
	}
	return l.Columns, nil
}

// ColumnType returns the type of the Trevni column that stores values of
// the simple schema s, and false if s is not simple (a record, array, map
// or union, stored as several columns): the project's one mapping from
// Avro types to Trevni types, [coltype.Of].
func ColumnType(s *schema.Schema) (format.ValueType, bool) { return coltype.Of(s) }

type builder struct {
	cols       []Column
	nodes      int
	stack      []*schema.Schema // the complex nodes being walked, outermost first
	maxColumns int
	maxDepth   int
}

// newNode counts a node against the limit before it is allocated.
func (b *builder) newNode(n Node) (*Node, error) {
	if b.nodes >= 4*b.maxColumns {
		return nil, fmt.Errorf("%w: more than %d positions, four times the column limit (layout.Options.MaxColumns)", ErrTooLarge, 4*b.maxColumns)
	}
	b.nodes++
	return &n, nil
}

// add appends a column, counting it against the limit first.
func (b *builder) add(name string, t format.ValueType, parent int, array bool, role Role, s *schema.Schema) (int, error) {
	if len(b.cols) >= b.maxColumns {
		return 0, fmt.Errorf("%w: more than %d columns (layout.Options.MaxColumns)", ErrTooLarge, b.maxColumns)
	}
	c := Column{Index: len(b.cols), Name: name, Type: t, Array: array, Parent: parent, Width: 1, Role: role, Schema: s}
	if parent >= 0 {
		c.ParentName = b.cols[parent].Name
	}
	b.cols = append(b.cols, c)
	return c.Index, nil
}

// close sets the width of column i once its subtree is complete.
func (b *builder) close(i int) { b.cols[i].Width = len(b.cols) - i }

// simple adds the node of a simple value stored in column col.
func (b *builder) simple(s *schema.Schema, col int) (*Node, error) {
	t, _ := ColumnType(s)
	n := Node{Schema: s, Kind: s.Kind, Col: col, Type: t, First: col, End: col + 1}
	switch s.Kind {
	case schema.Null:
	case schema.Float:
		n.MinSize = 4
	case schema.Double:
		n.MinSize = 8
	case schema.Fixed:
		n.MinSize = s.Size
	default:
		n.MinSize = 1
	}
	return b.newNode(n)
}

// node lays out a value of type s found at path: its columns and its node.
// top marks the schema's root, where there is no path yet.
func (b *builder) node(s *schema.Schema, path string, top bool, parent int) (*Node, error) {
	if t, ok := ColumnType(s); ok {
		if top {
			path = s.FullName()
		}
		col, err := b.add(path, t, parent, false, RoleValue, s)
		if err != nil {
			return nil, err
		}
		return b.simple(s, col)
	}
	for i, t := range b.stack {
		if t == s {
			return nil, b.recursion(i, path)
		}
	}
	if len(b.stack) >= b.maxDepth {
		return nil, fmt.Errorf("%w: types nest more than %d deep at %q (layout.Options.MaxDepth)", ErrTooLarge, b.maxDepth, path)
	}
	b.stack = append(b.stack, s)
	defer func() { b.stack = b.stack[:len(b.stack)-1] }()

	first := len(b.cols)
	n, err := b.newNode(Node{Schema: s, Kind: s.Kind, Col: -1})
	if err != nil {
		return nil, err
	}
	switch s.Kind {
	case schema.Record:
		n.Fields = make([]*Node, 0, len(s.Fields))
		for _, f := range s.Fields {
			p := f.Name
			if !top {
				p = path + "#" + f.Name
			}
			fn, err := b.node(f.Type, p, false, parent)
			if err != nil {
				return nil, err
			}
			n.Fields = append(n.Fields, fn)
			n.MinSize += fn.MinSize
		}
	case schema.Array:
		n.MinSize = 1
		if n.Items, err = b.repeated(path+"[]", s.Items, parent, RoleArray, s, &n.Col); err != nil {
			return nil, err
		}
	case schema.Map:
		n.MinSize = 1
		path += ">"
		if n.Col, err = b.add(path, format.Null, parent, true, RoleMap, s); err != nil {
			return nil, err
		}
		if n.KeyCol, err = b.add(path+"key", format.String, n.Col, false, RoleMapKey, s); err != nil {
			return nil, err
		}
		if n.Items, err = b.node(s.Values, path+"value", false, n.Col); err != nil {
			return nil, err
		}
		b.close(n.Col)
	case schema.Union:
		n.MinSize = 1
		n.Branches = make([]*Node, len(s.Branches))
		n.BranchCols = make([]int, len(s.Branches))
		for i, br := range s.Branches {
			n.BranchCols[i] = -1
			if br.Kind == schema.Null {
				continue
			}
			p := br.FullName()
			if !top {
				p = path + "/" + p
			}
			if n.Branches[i], err = b.repeated(p, br, parent, RoleBranch, br, &n.BranchCols[i]); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fmt.Errorf("cannot shred schema node of kind %s", s.Kind)
	}
	n.First, n.End = first, len(b.cols)
	return n, nil
}

// repeated lays out the array column at path whose elements have type elem,
// storing the column's index in *col: one column if elem is simple, else a
// null column and elem's columns as its children. It returns the node of
// one element.
func (b *builder) repeated(path string, elem *schema.Schema, parent int, role Role, s *schema.Schema, col *int) (*Node, error) {
	if t, ok := ColumnType(elem); ok {
		c, err := b.add(path, t, parent, true, role, s)
		if err != nil {
			return nil, err
		}
		*col = c
		return b.simple(elem, c)
	}
	c, err := b.add(path, format.Null, parent, true, role, s)
	if err != nil {
		return nil, err
	}
	*col = c
	n, err := b.node(elem, path, false, c)
	if err != nil {
		return nil, err
	}
	b.close(c)
	return n, nil
}

// recursion reports the cycle that starts at b.stack[i] and comes back to
// it at path.
func (b *builder) recursion(i int, path string) error {
	var names []string
	for _, t := range b.stack[i:] {
		if t.Kind.IsNamed() {
			names = append(names, t.Name)
		}
	}
	if len(names) == 0 {
		names = append(names, b.stack[i].Kind.String())
	}
	names = append(names, names[0])
	if path == "" {
		path = "the top level"
	}
	return fmt.Errorf("%w: %s (again at %q)", ErrRecursive, strings.Join(names, " -> "), path)
}
