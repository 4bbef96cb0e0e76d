package duckscan

/*
#include "calls.h"
*/
import "C"

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/extensions"

	"github.com/trevni-go/trevni/assemble/levels"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/trevniarrow"
)

// The plan of the levels path: the scan reads the columns beneath each
// leaf of a column's schema as runs of definition levels, repetition
// levels and values (package assemble/levels, the columnar read layer)
// and writes them straight into DuckDB's vectors, nested types included,
// with no record assembled and no Arrow batch between.
//
// A column's DuckDB type is a tree of vectors (vnode): a STRUCT's fields,
// a LIST's child (a MAP is a LIST of STRUCT(key, value)), a UNION's tag
// and members (a UNION is a STRUCT of the tag and the members). Each
// vector is at a depth, the number of lists above it: its rows are the
// top-level rows at depth 0, the elements of the lists above it deeper.
// A vector is not NULL where a leaf beneath it has at least its
// definition level (def). The first leaf beneath a vector writes its
// validity, a list's entries, and a union's tag (each member's first leaf
// writes the tag where its branch is taken): every leaf beneath a vector
// agrees on its rows, so one is enough.
//
// The plan is made by walking the data set's layout beside the DuckDB
// type the scan gave the column at bind (logicalType of the Arrow
// mapping, after duckType): a position where the two do not match is not
// planned, and the scan then reads through Arrow batches as before.

// vkind is the kind of a vector of the plan.
type vkind uint8

const (
	vLeaf   vkind = iota // values of one leaf
	vStruct              // a STRUCT (a record, or a map's entries)
	vList                // a LIST or a MAP
	vUnion               // a UNION: a STRUCT of the tag and the members
)

// vnode is one vector of a column's plan.
type vnode struct {
	kind    vkind
	parent  *vnode
	child   int   // its index among its parent's child vectors (a union's members from 1; the tag is 0)
	depth   int   // the lists above it
	def     int16 // the definition level at which it is not NULL
	elemDef int16 // of a list: the level at which it has an element
	member  int   // of a union's member: its tag; else -1
	owner   int   // the first leaf beneath it, which writes its validity, entries and tags

	// This chunk's and this run's.
	vec   C.duckdb_vector
	limit int      // the rows it may have in this run
	valid []uint64 // its validity bits, once made writable in this run
	tags  []uint8  // of a union: its tags
	ents  []listEntry
}

// listEntry is DuckDB's list_entry_t.
type listEntry struct{ offset, length uint64 }

// convKind is how a leaf's values become a vector's.
type convKind uint8

const (
	convNull        convKind = iota // no values: always NULL
	convBool                        // bool
	convI32                         // int32 as int32 (INTEGER, DATE)
	convI64                         // int64 as int64
	convF32                         // float32
	convF64                         // float64
	convMilli32                     // time-millis (int32) as TIME's microseconds
	convTimeMicros                  // time-micros (int64) as TIME, checked
	convMilli64                     // milliseconds (int64) as microseconds
	convNano64                      // UTC nanoseconds as microseconds, rounded down
	convBytes                       // strings, bytes, fixeds, enums' symbols: VARCHAR or BLOB
	convDecimal                     // 16-byte big-endian decimals as DECIMAL(p, s)
	convDecimalText                 // 32-byte big-endian decimals as their text (VARCHAR)
	convUUID                        // 16 bytes as UUID
	convInterval                    // a duration's 12 bytes as INTERVAL
)

// leafPlan is one leaf of a column's plan.
type leafPlan struct {
	leaf      levels.Leaf
	node      *vnode
	conv      convKind
	precision int   // of a decimal
	scale     int32 // of a decimal
	maxDef    int16
	lists     []*vnode   // the lists on its path, by depth
	ownsList  []bool     // per depth, whether it writes lists[k]'s entries
	owned     [][]*vnode // per depth, the vectors above its own whose validity it writes
	path      []*vnode   // every vector from the column's to its own
	fixed     int        // bytes of a value to count for the record size: 16, or 0 for byte strings (their length)

	// Per chunk.
	pos  []int   // per depth, the last row written
	vpos []int32 // the rows of the values of a run
}

// colPlan is the plan of one output column.
type colPlan struct {
	out    int // the output column
	nodes  []*vnode
	leaves []*leafPlan
}

// errNotPlanned says that a column's layout and DuckDB type do not match
// as the levels path reads them.
var errNotPlanned = errors.New("not planned")

// planner builds the plan of the columns of a layout.
type planner struct {
	col *colPlan
}

// planColumn returns the plan of output column out, the position n of
// the layout whose DuckDB type came from the Arrow type dt.
func planColumn(out int, n *layout.Node, dt arrow.DataType) (*colPlan, error) {
	p := &planner{col: &colPlan{out: out}}
	root := p.newNode(vLeaf, nil, 0, 0, 0)
	if err := p.entry(n, dt, nil, root); err != nil {
		return nil, err
	}
	for _, l := range p.col.leaves {
		if err := p.finish(l); err != nil {
			return nil, err
		}
	}
	return p.col, nil
}

// newNode adds a vector to the plan.
func (p *planner) newNode(kind vkind, parent *vnode, child, depth int, def int16) *vnode {
	v := &vnode{kind: kind, parent: parent, child: child, depth: depth, def: def, member: -1, owner: len(p.col.leaves)}
	p.col.nodes = append(p.col.nodes, v)
	return v
}

// entry plans the value of n at vector v: a ["null", T] union adds a
// definition level to v, another union makes v a UNION.
func (p *planner) entry(n *layout.Node, dt arrow.DataType, steps []levels.Step, v *vnode) error {
	if n.Kind == schema.Union {
		var cols, branches []int
		hasNull := false
		for i, b := range n.Branches {
			if b == nil {
				hasNull = true
				continue
			}
			cols = append(cols, n.BranchCols[i])
			branches = append(branches, i)
		}
		if len(n.Branches) == 2 && hasNull && len(cols) == 1 {
			b := branches[0]
			v.def++
			return p.inner(n.Branches[b], dt, append(steps[:len(steps):len(steps)], levels.Step{Kind: levels.Optional, Col: n.BranchCols[b]}), v)
		}
		ut, ok := dt.(*arrow.SparseUnionType)
		if !ok || len(ut.Fields()) != len(cols) || len(cols) == 0 || len(cols) > 127 {
			return errNotPlanned
		}
		v.kind = vUnion
		if hasNull {
			v.def++
		}
		for k, b := range branches {
			m := p.newNode(vLeaf, v, k+1, v.depth, v.def+1)
			m.member = k
			st := append(steps[:len(steps):len(steps)], levels.Step{Kind: levels.Choice, Cols: cols, Which: k, Nullable: hasNull})
			if err := p.inner(n.Branches[b], ut.Fields()[k].Type, st, m); err != nil {
				return err
			}
		}
		return nil
	}
	return p.inner(n, dt, steps, v)
}

// inner plans the value of n, not a union, at v.
func (p *planner) inner(n *layout.Node, dt arrow.DataType, steps []levels.Step, v *vnode) error {
	if n == nil || n.Schema == nil {
		return errNotPlanned
	}
	switch n.Kind {
	case schema.Null:
		if dt.ID() != arrow.NULL {
			return errNotPlanned
		}
		v.def++ // never reached
		return p.addLeaf(levels.Leaf{Steps: steps, Col: -1, Null: true}, v, convNull)
	case schema.Record:
		st, ok := dt.(*arrow.StructType)
		if !ok {
			return errNotPlanned
		}
		v.kind = vStruct
		if len(n.Fields) == 0 {
			// The Parquet mapping's one field of nulls (PadField).
			if st.NumFields() != 1 || st.Field(0).Type.ID() != arrow.NULL {
				return errNotPlanned
			}
			c := p.newNode(vLeaf, v, 0, v.depth, v.def+1)
			return p.addLeaf(levels.Leaf{Steps: steps, Col: -1, Null: true}, c, convNull)
		}
		if st.NumFields() != len(n.Fields) {
			return errNotPlanned
		}
		for i, f := range n.Fields {
			c := p.newNode(vLeaf, v, i, v.depth, v.def)
			if err := p.entry(f, st.Field(i).Type, steps, c); err != nil {
				return err
			}
		}
		return nil
	case schema.Array, schema.Map:
		v.kind = vList
		v.elemDef = v.def + 1
		steps = append(steps[:len(steps):len(steps)], levels.Step{Kind: levels.Repeated, Col: n.Col, Rep: int16(v.depth + 1)})
		if n.Kind == schema.Array {
			lt, ok := dt.(*arrow.ListType)
			if !ok {
				return errNotPlanned
			}
			c := p.newNode(vLeaf, v, 0, v.depth+1, v.elemDef)
			return p.entry(n.Items, lt.Elem(), steps, c)
		}
		mt, ok := dt.(*arrow.MapType)
		if !ok || mt.KeyType().ID() != arrow.STRING {
			return errNotPlanned
		}
		e := p.newNode(vStruct, v, 0, v.depth+1, v.elemDef)
		k := p.newNode(vLeaf, e, 0, e.depth, e.def)
		if err := p.addLeaf(levels.Leaf{Steps: steps, Col: n.KeyCol, Type: format.String}, k, convBytes); err != nil {
			return err
		}
		c := p.newNode(vLeaf, e, 1, e.depth, e.def)
		return p.entry(n.Items, mt.ItemType(), steps, c)
	}
	return p.simple(n, dt, steps, v)
}

// simple plans a leaf of a simple value.
func (p *planner) simple(n *layout.Node, dt arrow.DataType, steps []levels.Step, v *vnode) error {
	if n.Col < 0 {
		return errNotPlanned
	}
	l := levels.Leaf{Steps: steps, Col: n.Col, Type: n.Type}
	s := n.Schema
	kind := n.Kind
	var conv convKind
	var precision int
	var scale int32
	switch t := dt.(type) {
	case *arrow.BooleanType:
		conv = pick(kind == schema.Boolean, convBool)
	case *arrow.Int32Type, *arrow.Date32Type:
		conv = pick(kind == schema.Int, convI32)
	case *arrow.Time32Type:
		conv = pick(kind == schema.Int && t.Unit == arrow.Millisecond, convMilli32)
	case *arrow.Int64Type:
		conv = pick(kind == schema.Long, convI64)
	case *arrow.Time64Type:
		conv = pick(kind == schema.Long && t.Unit == arrow.Microsecond, convTimeMicros)
	case *arrow.TimestampType:
		switch {
		case kind != schema.Long:
		case t.Unit == arrow.Millisecond:
			conv = convMilli64
		case t.Unit == arrow.Nanosecond && t.TimeZone != "":
			conv = convNano64
		case t.Unit == arrow.Microsecond, t.Unit == arrow.Nanosecond:
			conv = convI64
		}
	case *arrow.Float32Type:
		conv = pick(kind == schema.Float, convF32)
	case *arrow.Float64Type:
		conv = pick(kind == schema.Double, convF64)
	case *arrow.StringType:
		switch kind {
		case schema.String:
			conv = convBytes
		case schema.Enum: // an enum in a list or map (see duckType)
			conv, l.Symbols = convBytes, s.Symbols
		}
	case *arrow.DictionaryType:
		if kind == schema.Enum {
			conv, l.Symbols = convBytes, s.Symbols
		}
	case *arrow.BinaryType:
		conv = pick(kind == schema.Bytes, convBytes)
	case *arrow.FixedSizeBinaryType:
		if kind == schema.Fixed && t.ByteWidth == s.Size {
			conv, l.Fixed = convBytes, s.Size
		}
	case *arrow.Decimal128Type:
		if (kind == schema.Bytes || kind == schema.Fixed) && s.Logical == schema.LogicalDecimal && int(t.Precision) == s.Precision && int(t.Scale) == s.Scale {
			conv, l.Decimal, precision, scale = convDecimal, 16, s.Precision, t.Scale
		}
	case *arrow.Decimal256Type:
		if (kind == schema.Bytes || kind == schema.Fixed) && s.Logical == schema.LogicalDecimal && int(t.Precision) == s.Precision && int(t.Scale) == s.Scale {
			conv, l.Decimal, precision, scale = convDecimalText, 32, s.Precision, t.Scale
		}
	case *extensions.UUIDType:
		switch {
		case kind == schema.String && s.Logical == schema.LogicalUUID:
			conv, l.UUID = convUUID, true
		case kind == schema.Fixed && s.Size == 16:
			conv, l.Fixed = convUUID, 16
		}
	case arrow.ExtensionType:
		if t.ExtensionName() == trevniarrow.DurationExtension && kind == schema.Fixed && s.Size == 12 {
			conv, l.Fixed = convInterval, 12
		}
	}
	if conv == convNull {
		return errNotPlanned
	}
	if l.Fixed > 0 && kind == schema.Fixed && n.Type != format.Bytes {
		return errNotPlanned
	}
	if err := p.addLeaf(l, v, conv); err != nil {
		return err
	}
	lp := p.col.leaves[len(p.col.leaves)-1]
	lp.precision, lp.scale = precision, scale
	return nil
}

// pick returns c when ok, else convNull (not planned).
func pick(ok bool, c convKind) convKind {
	if ok {
		return c
	}
	return convNull
}

// addLeaf adds leaf l, whose values go to v.
func (p *planner) addLeaf(l levels.Leaf, v *vnode, conv convKind) error {
	l.Steps = append([]levels.Step(nil), l.Steps...)
	lp := &leafPlan{leaf: l, node: v, conv: conv, maxDef: l.MaxDef(), fixed: 16}
	if l.ByteArray() && conv != convDecimal && conv != convUUID && conv != convInterval {
		lp.fixed = 0
	}
	if v.def != lp.maxDef {
		return fmt.Errorf("%w: leaf at level %d, vector at %d", errNotPlanned, lp.maxDef, v.def)
	}
	p.col.leaves = append(p.col.leaves, lp)
	return nil
}

// finish computes what leaf l writes: the vectors on its path, the lists
// by depth, those it owns.
func (p *planner) finish(l *leafPlan) error {
	idx := -1
	for i, x := range p.col.leaves {
		if x == l {
			idx = i
		}
	}
	for v := l.node; v != nil; v = v.parent {
		l.path = append([]*vnode{v}, l.path...)
	}
	depth := l.node.depth
	l.lists = make([]*vnode, depth)
	l.ownsList = make([]bool, depth)
	l.owned = make([][]*vnode, depth+1)
	l.pos = make([]int, depth+1)
	for _, v := range l.path {
		if v.kind == vList {
			if v.depth >= depth {
				return errNotPlanned
			}
			l.lists[v.depth] = v
			l.ownsList[v.depth] = v.owner == idx
		}
		if v != l.node && v.owner == idx {
			l.owned[v.depth] = append(l.owned[v.depth], v)
		}
	}
	for _, v := range l.lists {
		if v == nil {
			return errNotPlanned
		}
	}
	return nil
}
