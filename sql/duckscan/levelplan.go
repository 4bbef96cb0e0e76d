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
// The plan is made from the plan of the columnar read layer
// (levels.NewPlan: a part's layout read as the data set's schema, which
// resolves a part of another schema, union_by_name's included): each
// node of its tree becomes a vector, its Def the level where the vector
// is not NULL, a list's elements at Def+1, and Node.First the leaf that
// writes the vector's validity, entries and tags. The DuckDB type the
// scan gave the column at bind (logicalType of the Arrow mapping, after
// duckType) says how a leaf's values are written. Where the two do not
// match (errNotPlanned: a safeguard, since both come from the same
// schema), or where levels.NewPlan returns levels.ErrUnsupported (such
// as a type a reader's schema adds past the layout's limits), the whole
// scan reads Arrow batches instead (trevniarrow.RecordReader; see
// scanState.plannable): the only detour left, which Config.Arrow forces
// for the tests that compare the two paths.

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
	fixed     int        // bytes of a value to count for the record size: 16, or 0 for byte strings (16 and their length)

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

// errNotPlanned says that a column's plan and DuckDB type do not match
// as the levels path reads them.
var errNotPlanned = errors.New("not planned")

// planner builds the plan of one output column from the nodes of a
// levels plan.
type planner struct {
	plan  *levels.Plan
	col   *colPlan
	first int // the plan's index of the column's first leaf
}

// planColumn returns the plan of output column out, the node n of plan
// whose DuckDB type came from the Arrow type dt.
func planColumn(out int, plan *levels.Plan, n *levels.Node, dt arrow.DataType) (*colPlan, error) {
	p := &planner{plan: plan, col: &colPlan{out: out}, first: n.First}
	root := p.newNode(vLeaf, nil, 0, 0, n)
	if err := p.node(n, dt, root); err != nil {
		return nil, err
	}
	if len(p.col.leaves) != n.End-n.First {
		return nil, fmt.Errorf("%w: %d leaves planned of %d", errNotPlanned, len(p.col.leaves), n.End-n.First)
	}
	for _, l := range p.col.leaves {
		if err := p.finish(l); err != nil {
			return nil, err
		}
	}
	return p.col, nil
}

// newNode adds the vector of node n to the plan: not NULL at n's
// definition level, its validity written by n's first leaf.
func (p *planner) newNode(kind vkind, parent *vnode, child, depth int, n *levels.Node) *vnode {
	v := &vnode{kind: kind, parent: parent, child: child, depth: depth, def: n.Def, member: -1, owner: n.First - p.first}
	p.col.nodes = append(p.col.nodes, v)
	return v
}

// node plans node n at vector v.
func (p *planner) node(n *levels.Node, dt arrow.DataType, v *vnode) error {
	if n.First >= n.End {
		return errNotPlanned // no leaf writes its vector
	}
	switch n.Kind {
	case levels.Value:
		if n.Leaf < 0 {
			return errNotPlanned
		}
		l := p.plan.Leaves[n.Leaf]
		if l.Null {
			if dt.ID() != arrow.NULL {
				return errNotPlanned
			}
			return p.addLeaf(l, v, convNull)
		}
		return p.simple(l, dt, v)
	case levels.Record:
		st, ok := dt.(*arrow.StructType)
		if !ok {
			return errNotPlanned
		}
		v.kind = vStruct
		if len(n.Children) == 0 {
			// The Parquet mapping's one field of nulls (PadField): the
			// record's leaf of nulls, one level deeper.
			if st.NumFields() != 1 || st.Field(0).Type.ID() != arrow.NULL || n.Leaf < 0 {
				return errNotPlanned
			}
			c := p.newNode(vLeaf, v, 0, v.depth, n)
			c.def++
			return p.addLeaf(p.plan.Leaves[n.Leaf], c, convNull)
		}
		if st.NumFields() != len(n.Children) {
			return errNotPlanned
		}
		for i, f := range n.Children {
			c := p.newNode(vLeaf, v, i, v.depth, f)
			if err := p.node(f, st.Field(i).Type, c); err != nil {
				return err
			}
		}
		return nil
	case levels.List:
		lt, ok := dt.(*arrow.ListType)
		if !ok || len(n.Children) != 1 {
			return errNotPlanned
		}
		v.kind, v.elemDef = vList, n.Def+1
		c := p.newNode(vLeaf, v, 0, v.depth+1, n.Children[0])
		return p.node(n.Children[0], lt.Elem(), c)
	case levels.Map:
		mt, ok := dt.(*arrow.MapType)
		if !ok || mt.KeyType().ID() != arrow.STRING || len(n.Children) != 2 {
			return errNotPlanned
		}
		v.kind, v.elemDef = vList, n.Def+1
		e := p.newNode(vStruct, v, 0, v.depth+1, n)
		e.def = v.elemDef
		k := p.newNode(vLeaf, e, 0, e.depth, n.Children[0])
		if err := p.node(n.Children[0], arrow.BinaryTypes.String, k); err != nil {
			return err
		}
		c := p.newNode(vLeaf, e, 1, e.depth, n.Children[1])
		return p.node(n.Children[1], mt.ItemType(), c)
	case levels.Union:
		ut, ok := dt.(*arrow.SparseUnionType)
		if !ok {
			return errNotPlanned
		}
		var members []*levels.Node
		for _, b := range n.Children {
			if b.Schema.Kind != schema.Null {
				members = append(members, b)
			}
		}
		if len(ut.Fields()) != len(members) || len(members) == 0 || len(members) > 127 {
			return errNotPlanned
		}
		v.kind = vUnion
		for k, b := range members {
			m := p.newNode(vLeaf, v, k+1, v.depth, b)
			m.member = k
			if err := p.node(b, ut.Fields()[k].Type, m); err != nil {
				return err
			}
		}
		return nil
	}
	return errNotPlanned
}

// simple plans a leaf of a simple value, the reader's type l.Schema,
// read as l.ValueType().
func (p *planner) simple(l levels.Leaf, dt arrow.DataType, v *vnode) error {
	s := l.Schema
	if s == nil {
		return errNotPlanned
	}
	kind := s.Kind
	vt := l.ValueType()
	var conv convKind
	var precision int
	var scale int32
	switch t := dt.(type) {
	case *arrow.BooleanType:
		conv = pick(kind == schema.Boolean && vt == format.Boolean, convBool)
	case *arrow.Int32Type, *arrow.Date32Type:
		conv = pick(kind == schema.Int && vt == format.Int, convI32)
	case *arrow.Time32Type:
		conv = pick(kind == schema.Int && vt == format.Int && t.Unit == arrow.Millisecond, convMilli32)
	case *arrow.Int64Type:
		conv = pick(kind == schema.Long && vt == format.Long, convI64)
	case *arrow.Time64Type:
		conv = pick(kind == schema.Long && vt == format.Long && t.Unit == arrow.Microsecond, convTimeMicros)
	case *arrow.TimestampType:
		switch {
		case kind != schema.Long || vt != format.Long:
		case t.Unit == arrow.Millisecond:
			conv = convMilli64
		case t.Unit == arrow.Nanosecond && t.TimeZone != "":
			conv = convNano64
		case t.Unit == arrow.Microsecond, t.Unit == arrow.Nanosecond:
			conv = convI64
		}
	case *arrow.Float32Type:
		conv = pick(kind == schema.Float && vt == format.Float, convF32)
	case *arrow.Float64Type:
		conv = pick(kind == schema.Double && vt == format.Double, convF64)
	case *arrow.StringType:
		switch {
		case kind == schema.String && (vt == format.String || vt == format.Bytes):
			conv = convBytes
		case kind == schema.Enum: // an enum in a list or map (see duckType)
			conv, l.Symbols = convBytes, s.Symbols
		}
	case *arrow.DictionaryType:
		if kind == schema.Enum {
			conv, l.Symbols = convBytes, s.Symbols
		}
	case *arrow.BinaryType:
		conv = pick(kind == schema.Bytes && (vt == format.String || vt == format.Bytes), convBytes)
	case *arrow.FixedSizeBinaryType:
		if kind == schema.Fixed && t.ByteWidth == s.Size {
			conv = convBytes
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
			conv = convUUID
		}
	case arrow.ExtensionType:
		if t.ExtensionName() == trevniarrow.DurationExtension && kind == schema.Fixed && s.Size == 12 {
			conv = convInterval
		}
	}
	if conv == convNull {
		return errNotPlanned
	}
	if kind == schema.Fixed && l.Const == nil && l.Type != format.Bytes {
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

// addLeaf adds leaf l, whose values go to v, the next of the column's
// leaves in the plan's order.
func (p *planner) addLeaf(l levels.Leaf, v *vnode, conv convKind) error {
	lp := &leafPlan{leaf: l, node: v, conv: conv, maxDef: l.MaxDef(), fixed: 16}
	if l.ByteArray() && conv != convDecimal && conv != convUUID && conv != convInterval {
		lp.fixed = 0
	}
	if v.def != lp.maxDef {
		return fmt.Errorf("%w: leaf at level %d, vector at %d", errNotPlanned, lp.maxDef, v.def)
	}
	if l.Node == nil || l.Node.Leaf != p.first+len(p.col.leaves) {
		return fmt.Errorf("%w: leaves out of the plan's order", errNotPlanned)
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
