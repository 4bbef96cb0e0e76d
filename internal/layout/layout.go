// Package layout compiles an Avro schema into a tree of positions, each
// knowing the Trevni columns that hold its values, so that shredding and
// assembling walk the tree instead of the schema.
package layout

import (
	"fmt"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
)

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

// Compile returns the position tree of s and its columns as
// schema.Columns lays them out.
func Compile(s *schema.Schema) (*Node, []schema.Column, error) {
	cols, err := schema.Columns(s)
	if err != nil {
		return nil, nil, err
	}
	c := &compiler{cols: cols}
	n := c.node(s)
	if c.err == nil && c.next != len(cols) {
		c.err = fmt.Errorf("layout: compiled %d columns, the schema has %d", c.next, len(cols))
	}
	if c.err != nil {
		return nil, nil, c.err
	}
	return n, cols, nil
}

type compiler struct {
	cols []schema.Column
	next int
	err  error
}

// take claims the next column, checking that it is the one the walker made
// for this position.
func (c *compiler) take(s *schema.Schema, typ format.ValueType, array bool) int {
	i := c.next
	c.next++
	if c.err == nil {
		if i >= len(c.cols) || c.cols[i].Type != typ || c.cols[i].Array != array {
			c.err = fmt.Errorf("layout: column %d for %s does not match the schema's layout", i, s.FullName())
		}
	}
	return i
}

func simpleType(s *schema.Schema) format.ValueType {
	switch s.Kind {
	case schema.Null:
		return format.Null
	case schema.Boolean:
		return format.Boolean
	case schema.Int, schema.Enum:
		return format.Int
	case schema.Long:
		return format.Long
	case schema.Float:
		return format.Float
	case schema.Double:
		return format.Double
	case schema.String:
		return format.String
	}
	return format.Bytes
}

// simple returns the node of a simple value stored in column col.
func simpleNode(s *schema.Schema, col int) *Node {
	n := &Node{Schema: s, Kind: s.Kind, Col: col, Type: simpleType(s), First: col, End: col + 1}
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
	return n
}

// node compiles the value of schema s, claiming its columns.
func (c *compiler) node(s *schema.Schema) *Node {
	if s.IsSimple() {
		return simpleNode(s, c.take(s, simpleType(s), false))
	}
	first := c.next
	var n *Node
	switch s.Kind {
	case schema.Record:
		n = &Node{Schema: s, Kind: s.Kind, Col: -1}
		for _, f := range s.Fields {
			fn := c.node(f.Type)
			n.Fields = append(n.Fields, fn)
			n.MinSize += fn.MinSize
		}
	case schema.Array:
		n = &Node{Schema: s, Kind: s.Kind, MinSize: 1}
		n.Items = c.container(s.Items, &n.Col)
	case schema.Map:
		n = &Node{Schema: s, Kind: s.Kind, MinSize: 1}
		n.Col = c.take(s, format.Null, true)
		n.KeyCol = c.take(s, format.String, false)
		n.Items = c.node(s.Values)
	case schema.Union:
		n = &Node{Schema: s, Kind: s.Kind, Col: -1, MinSize: 1}
		for _, b := range s.Branches {
			if b.Kind == schema.Null {
				n.Branches = append(n.Branches, nil)
				n.BranchCols = append(n.BranchCols, -1)
				continue
			}
			var col int
			n.Branches = append(n.Branches, c.container(b, &col))
			n.BranchCols = append(n.BranchCols, col)
		}
	default:
		if c.err == nil {
			c.err = fmt.Errorf("layout: unexpected schema kind %s", s.Kind)
		}
		return &Node{Schema: s, Kind: s.Kind, Col: -1}
	}
	n.First, n.End = first, c.next
	return n
}

// container claims the array column of repeated values of schema s (array
// items or a union branch) into *col and returns the node of one value:
// simple values live in that column, complex ones in its children.
func (c *compiler) container(s *schema.Schema, col *int) *Node {
	if s.IsSimple() {
		*col = c.take(s, simpleType(s), true)
		return simpleNode(s, *col)
	}
	*col = c.take(s, format.Null, true)
	return c.node(s)
}
