package levels

import (
	"errors"
	"fmt"
	"slices"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

// ErrUnsupported is returned (wrapped) by NewPlan for a reader schema
// whose resolution against the file's the plan does not cover; such
// records are read by the row interpreter (assemble).
var ErrUnsupported = errors.New("not covered by the columnar plan")

// PlanOptions chooses what a plan reads. A nil *PlanOptions reads every
// field of the layout's own schema.
type PlanOptions struct {
	// Fields selects fields as assemble.Options.Fields does (dotted
	// paths through arrays, maps and unions; nil: all): the plan reads
	// the records of assemble.ProjectSchema(reader, Fields).
	Fields []string
	// Reader is the schema the records are read as; nil: the layout's.
	// Its fields are matched with the file's by name, then by the reader
	// field's aliases.
	Reader *schema.Schema
}

// Plan maps the records of a layout, as a reader schema reads them, to
// the leaves a columnar sink fills: one plan for every sink (Parquet
// column chunks, Arrow arrays, DuckDB vectors), so that each maps a
// layout to leaves the same way.
//
// The contract, for a sink:
//   - Leaves are in the depth-first order of the reader's schema: a
//     record's fields in order, an array's items, a map's key then its
//     values, a union's non-null branches in order. It is the order of
//     the leaf columns of the Parquet schema of the same records
//     (trevniarrow's SchemaOptions.Parquet), so a Parquet writer zips its
//     columns with Leaves and checks each column's node against the
//     leaf's (Leaf.Node, its Kind, Schema, Nullable) and levels (MaxDef,
//     MaxRep).
//   - Root is the tree of the reader's schema (Node): a sink building
//     nested values (Arrow arrays, DuckDB vectors) walks it, and reads the
//     validity of a record, the offsets of an array or map, from the
//     levels of the first leaf beneath it (Node.First), as pqarrow builds
//     arrays from Parquet levels: a level is one of the node's values
//     when its repetition level is at most Node.Rep (and, beneath a
//     repeated or union node, its definition level reaches that node's
//     slot); the value is there when its definition level is at least
//     Node.Def.
//   - The column numbers of the leaves (Leaf.Col, Step.Col, Step.Cols,
//     Leaf.Branch) are those of Layout, the file's layout: a sink opens
//     them on each part whose columns are the layout's (Layout.Columns
//     names them).
//   - What a value becomes is the sink's choice, made on its own copy of
//     a leaf before it reads it: Symbols (an enum read as its symbols;
//     without, as its ordinals in I32), Decimal (a width for decimals),
//     UUID (a UUID's text read as its 16 bytes). The plan sets none of
//     them. A sink whose schema has an optional node where the plan's is
//     always there (Parquet's nullable decimals) calls MakeNullable.
//   - A union of several branches read as one value per row (Arrow's
//     dense unions) needs the branch taken: BranchLeaf gives a leaf of
//     the Avro branch index, one value wherever the union is reached.
type Plan struct {
	// Schema is the schema of the records read: the reader's, projected.
	Schema *schema.Schema
	// Layout is the file's layout the leaves' columns number.
	Layout *layout.Layout
	// Root is the node of the records.
	Root *Node
	// Leaves are the leaves in the order above.
	Leaves []Leaf
}

// NodeKind is what a node of the plan's tree is.
type NodeKind uint8

const (
	// Value is a simple value or a null: one leaf (Node.Leaf), or none
	// for the null branch of a union.
	Value NodeKind = iota
	// Record is a record: its fields are the children. A record of no
	// fields has a leaf of its own (Node.Leaf), a leaf of nulls whose
	// levels count its values (Parquet's one field of nulls).
	Record
	// List is an array: its items are the one child.
	List
	// Map is a map: its key (a string Value) and its values are the two
	// children.
	Map
	// Union is a union of several branches (any union but ["null", T],
	// whose T is a nullable node of its own): one child per branch, in
	// order, the null branch's a Value of no leaf.
	Union
)

var nodeKinds = [...]string{"value", "record", "list", "map", "union"}

// String names the kind.
func (k NodeKind) String() string {
	if int(k) < len(nodeKinds) {
		return nodeKinds[k]
	}
	return fmt.Sprintf("NodeKind(%d)", uint8(k))
}

// Node is a position of the reader's schema in a plan.
type Node struct {
	Kind NodeKind
	// Schema is the reader's type at the position (T for a ["null", T]
	// union; the union for a Union).
	Schema *schema.Schema
	// Name is a record field's name, "item" for an array's items, "key"
	// and "value" for a map's, the branch's type name (Schema.FullName)
	// for a union's branch, "" for the root.
	Name string
	// Field is the reader's field of a record's child; nil otherwise.
	Field *schema.Field
	// Parent is the node above, nil for the root.
	Parent *Node
	// Children are a Record's fields, a List's items, a Map's key and
	// values, a Union's branches.
	Children []*Node
	// Nullable says the node's value may be absent: a ["null", T] union,
	// a Union with a null branch, a union's branch (not taken), a null,
	// or a node MakeNullable made so. Such a node adds a definition
	// level.
	Nullable bool
	// Def is the definition level the leaves beneath reach when the
	// node's value is there (for a List or Map, when it is there, empty
	// or not; its items are there at Def+1). A leaf of nulls never
	// reaches its node's Def.
	Def int16
	// Rep is the repetition level of the node's values: that of the
	// innermost List or Map above (its items'), 0 if none.
	Rep int16
	// Step is the index, in the Steps of every leaf beneath, of the
	// first step the node adds (the number of steps above it).
	Step int
	// Leaf is a Value's (or a Record of no fields') leaf in Plan.Leaves;
	// -1 for others and for a union's null branch.
	Leaf int
	// First and End delimit the leaves beneath: Plan.Leaves[First:End].
	First, End int
	// Path names the node in errors: field names joined by dots, "[]"
	// after an array or map's values, "[key]" after a map's keys.
	Path string

	w     *layout.Node // the file's position read (a union's, for a Union)
	above []Step       // a Union of no leaves: the steps above it
}

// maxPlanDepth bounds the nesting of a plan's tree (the layout bounds it
// already; this bounds the walk of a reader schema beside it).
const maxPlanDepth = 10000

// NewPlan returns the plan of reading the records of layout w (a file's)
// as opts chooses. An error wraps ErrUnsupported when the reader
// schema's resolution is not covered (the row interpreter reads such
// records), or assemble.ErrIncompatible when the reader schema cannot
// read the file's.
func NewPlan(w *layout.Layout, opts *PlanOptions) (*Plan, error) {
	var o PlanOptions
	if opts != nil {
		o = *opts
	}
	rs := o.Reader
	if rs == nil {
		rs = w.Root.Schema
	}
	if len(o.Fields) > 0 {
		ps, err := assemble.ProjectSchema(rs, o.Fields)
		if err != nil {
			return nil, err
		}
		rs = ps
	}
	p := &Plan{Schema: rs, Layout: w}
	b := &planner{p: p}
	root, err := b.node(rs, w.Root, nil, "", nil, 0, 0)
	if err != nil {
		return nil, err
	}
	p.Root = root
	return p, nil
}

// planner walks a reader schema beside a layout.
type planner struct {
	p     *Plan
	depth int
	above int // the steps kept above unions of null alone
}

// maxAbove bounds the steps a plan keeps above unions of null alone.
const maxAbove = 1 << 20

// unsupported returns an error wrapping ErrUnsupported at path.
func unsupported(path, format string, args ...any) error {
	if path == "" {
		path = "the records"
	}
	return fmt.Errorf("%s: %w: %s", path, ErrUnsupported, fmt.Sprintf(format, args...))
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// node plans the reader's rs read from the file's position w, below
// parent with the given steps, definition and repetition levels.
func (b *planner) node(rs *schema.Schema, w *layout.Node, parent *Node, path string, steps []Step, def, rep int16) (*Node, error) {
	b.depth++
	defer func() { b.depth-- }()
	if b.depth > maxPlanDepth {
		return nil, fmt.Errorf("%s: types nest more than %d deep", path, maxPlanDepth)
	}
	ws := w.Schema
	if ws.Kind == schema.Union || rs.Kind == schema.Union {
		return b.union(rs, w, parent, path, steps, def, rep)
	}
	n := &Node{Schema: rs, Parent: parent, Def: def, Rep: rep, Step: len(steps), Leaf: -1, First: len(b.p.Leaves), Path: path, w: w}
	if err := b.inner(n, rs, w, steps); err != nil {
		return nil, err
	}
	n.End = len(b.p.Leaves)
	return n, nil
}

// union plans a union of the reader's or the file's: a ["null", T] union
// as a nullable T, any other as a Union node.
func (b *planner) union(rs *schema.Schema, w *layout.Node, parent *Node, path string, steps []Step, def, rep int16) (*Node, error) {
	ws := w.Schema
	if ws.Kind != schema.Union || rs.Kind != schema.Union {
		return nil, unsupported(path, "a union read as another type, or another type as a union")
	}
	if len(rs.Branches) != len(ws.Branches) {
		return nil, unsupported(path, "a union of %d branches read as one of %d", len(ws.Branches), len(rs.Branches))
	}
	var cols []int
	hasNull := false
	for i, wb := range ws.Branches {
		rb := rs.Branches[i]
		if !sameBranch(wb, rb) {
			return nil, unsupported(path, "the union's branch %d is %s in the file and %s in the reader", i, wb.FullName(), rb.FullName())
		}
		if wb.Kind == schema.Null {
			hasNull = true
			continue
		}
		cols = append(cols, w.BranchCols[i])
	}
	if len(ws.Branches) == 2 && hasNull && len(cols) == 1 {
		// ["null", T]: T, nullable.
		k := 0
		if ws.Branches[0].Kind == schema.Null {
			k = 1
		}
		n := &Node{Schema: rs.Branches[k], Parent: parent, Nullable: true, Def: def + 1, Rep: rep, Step: len(steps), Leaf: -1, First: len(b.p.Leaves), Path: path, w: w.Branches[k]}
		st := append(steps[:len(steps):len(steps)], Step{Kind: Optional, Col: w.BranchCols[k]})
		b.depth++
		defer func() { b.depth-- }()
		if err := b.inner(n, rs.Branches[k], w.Branches[k], st); err != nil {
			return nil, err
		}
		n.End = len(b.p.Leaves)
		return n, nil
	}
	u := &Node{Kind: Union, Schema: rs, Parent: parent, Nullable: hasNull, Def: def, Rep: rep, Step: len(steps), Leaf: -1, First: len(b.p.Leaves), Path: path, w: w}
	if hasNull {
		u.Def++
	}
	k := 0
	for i, wb := range ws.Branches {
		rb := rs.Branches[i]
		if wb.Kind == schema.Null {
			u.Children = append(u.Children, &Node{Kind: Value, Schema: rb, Name: rb.FullName(), Parent: u, Nullable: true,
				Def: u.Def + 1, Rep: rep, Step: len(steps) + 1, Leaf: -1, First: len(b.p.Leaves), End: len(b.p.Leaves), Path: path})
			continue
		}
		st := append(steps[:len(steps):len(steps)], Step{Kind: Choice, Cols: cols, Which: k, Nullable: hasNull})
		c, err := b.node(rb, w.Branches[i], u, path, st, u.Def+1, rep)
		if err != nil {
			return nil, err
		}
		c.Name, c.Nullable, c.Step = rb.FullName(), true, len(steps)
		u.Children = append(u.Children, c)
		k++
	}
	u.End = len(b.p.Leaves)
	if u.First == u.End {
		// A union of null alone: no leaf gives its steps.
		b.above += len(steps)
		if b.above > maxAbove {
			return nil, unsupported(path, "more than %d steps above unions of null alone", maxAbove)
		}
		u.above = slices.Clone(steps)
	}
	return u, nil
}

// inner plans the value of rs (not a union) from w (not a union) at n,
// whose Def, Rep, Step, Parent and Path are set.
func (b *planner) inner(n *Node, rs *schema.Schema, w *layout.Node, steps []Step) error {
	ws := w.Schema
	n.Schema = rs
	if !sameType(ws, rs) {
		if promotable(ws, rs) {
			return unsupported(n.Path, "the file's %s read as %s", ws.FullName(), rs.FullName())
		}
		return fmt.Errorf("%s: %w: the file's %s cannot be read as %s", n.Path, assemble.ErrIncompatible, ws.FullName(), rs.FullName())
	}
	switch rs.Kind {
	case schema.Record:
		n.Kind = Record
		if len(rs.Fields) == 0 {
			n.Leaf = b.add(Leaf{Steps: steps, Col: -1, Null: true, Schema: rs}, n)
			return nil
		}
		for _, rf := range rs.Fields {
			k := writerField(ws, rf)
			if k < 0 {
				if rf.HasDefault {
					return unsupported(joinPath(n.Path, rf.Name), "a field not in the file, of its default")
				}
				return fmt.Errorf("%s: %w: not in the file and has no default", joinPath(n.Path, rf.Name), assemble.ErrIncompatible)
			}
			c, err := b.node(rf.Type, w.Fields[k], n, joinPath(n.Path, rf.Name), steps, n.Def, n.Rep)
			if err != nil {
				return err
			}
			c.Name, c.Field = rf.Name, rf
			n.Children = append(n.Children, c)
		}
		return nil
	case schema.Array, schema.Map:
		n.Kind = List
		st := append(steps[:len(steps):len(steps)], Step{Kind: Repeated, Col: w.Col, Rep: n.Rep + 1})
		items := rs.Items
		if rs.Kind == schema.Map {
			n.Kind = Map
			items = rs.Values
			key := &Node{Kind: Value, Schema: &schema.Schema{Kind: schema.String}, Name: "key", Parent: n, Def: n.Def + 1, Rep: n.Rep + 1,
				Step: len(st), First: len(b.p.Leaves), Path: n.Path + "[key]"}
			key.Leaf = b.add(Leaf{Steps: st, Col: w.KeyCol, Type: format.String, Schema: key.Schema}, key)
			key.End = len(b.p.Leaves)
			n.Children = append(n.Children, key)
		}
		c, err := b.node(items, w.Items, n, n.Path+"[]", st, n.Def+1, n.Rep+1)
		if err != nil {
			return err
		}
		c.Name = "item"
		if rs.Kind == schema.Map {
			c.Name = "value"
		}
		n.Children = append(n.Children, c)
		return nil
	case schema.Null:
		n.Kind = Value
		n.Nullable = true
		n.Def++
		n.Leaf = b.add(Leaf{Steps: steps, Col: -1, Null: true, Schema: rs}, n)
		return nil
	case schema.Enum:
		if !slices.Equal(ws.Symbols, rs.Symbols) {
			return unsupported(n.Path, "enum %s read with other symbols", ws.FullName())
		}
	}
	n.Kind = Value
	if w.Col < 0 {
		return fmt.Errorf("%s: no column for %s", n.Path, ws.FullName())
	}
	l := Leaf{Steps: steps, Col: w.Col, Type: w.Type, Schema: rs}
	if rs.Kind == schema.Fixed {
		l.Fixed = rs.Size
	}
	n.Leaf = b.add(l, n)
	return nil
}

// add adds leaf l of node n to the plan and returns its index.
func (b *planner) add(l Leaf, n *Node) int {
	l.Steps = slices.Clone(l.Steps)
	l.Node = n
	l.Path = n.Path
	b.p.Leaves = append(b.p.Leaves, l)
	return len(b.p.Leaves) - 1
}

// sameType says whether values of the file's ws are read as the reader's
// rs unchanged: the same kind, of the same size for a fixed (names are
// not compared, as the row interpreter does not; a union's branches are,
// by sameBranch). Logical types do not matter: the reader's says what
// the values mean.
func sameType(ws, rs *schema.Schema) bool {
	return ws.Kind == rs.Kind && (ws.Kind != schema.Fixed || ws.Size == rs.Size)
}

// sameBranch says whether a union's branch ws in the file is the
// reader's branch rs: the same type, of the same name for a named type
// (by name or the reader's aliases).
func sameBranch(ws, rs *schema.Schema) bool {
	if !sameType(ws, rs) {
		return false
	}
	if !ws.Kind.IsNamed() || ws.ShortName() == rs.ShortName() || ws.Name == rs.Name {
		return true
	}
	for _, a := range rs.Aliases {
		if a == ws.Name || a == ws.ShortName() {
			return true
		}
	}
	return false
}

// promotable says whether Avro's resolution reads values of the file's
// ws (not a union) as the reader's rs of another type: a promotion.
func promotable(ws, rs *schema.Schema) bool {
	switch ws.Kind {
	case schema.Int:
		return rs.Kind == schema.Long || rs.Kind == schema.Float || rs.Kind == schema.Double
	case schema.Long:
		return rs.Kind == schema.Float || rs.Kind == schema.Double
	case schema.Float:
		return rs.Kind == schema.Double
	case schema.String:
		return rs.Kind == schema.Bytes
	case schema.Bytes:
		return rs.Kind == schema.String
	}
	return false
}

// writerField returns the index of the file's field that the reader's
// field rf reads: by name, then by rf's aliases; -1 if none.
func writerField(ws *schema.Schema, rf *schema.Field) int {
	find := func(name string) int {
		for i, f := range ws.Fields {
			if f.Name == name {
				return i
			}
		}
		return -1
	}
	if i := find(rf.Name); i >= 0 {
		return i
	}
	for _, a := range rf.Aliases {
		if i := find(a); i >= 0 {
			return i
		}
	}
	return -1
}

// Columns returns the file's columns the plan's leaves read, in order.
func (p *Plan) Columns() []int {
	var cols []int
	for i := range p.Leaves {
		cols = append(cols, p.Leaves[i].Columns()...)
	}
	slices.Sort(cols)
	return slices.Compact(cols)
}

// MakeNullable makes node n, always there in the plan, optional: a
// Defined step is added to every leaf beneath (a definition level always
// reached), for a sink whose schema has an optional node there (Parquet's
// nullable decimals). n becomes Nullable and the levels beneath one
// deeper.
func (p *Plan) MakeNullable(n *Node) {
	if n.Nullable {
		return
	}
	for i := n.First; i < n.End; i++ {
		l := &p.Leaves[i]
		l.Steps = slices.Insert(l.Steps, n.Step, Step{Kind: Defined})
	}
	n.Nullable = true
	n.Def++
	if n.Kind == Union && n.First == n.End {
		n.above = slices.Insert(n.above, n.Step, Step{Kind: Defined})
	}
	var deeper func(c *Node)
	deeper = func(c *Node) {
		for _, ch := range c.Children {
			ch.Def++
			ch.Step++
			if ch.Kind == Union && ch.First == ch.End {
				ch.above = slices.Insert(ch.above, n.Step, Step{Kind: Defined})
			}
			deeper(ch)
		}
	}
	deeper(n)
}

// BranchLeaf returns the leaf of the branch taken by the union of node u
// (a Union): its steps are those above the union, and its values, one
// wherever the union is reached, are the Avro index of the branch taken
// (the null branch's included), in I32.
func (p *Plan) BranchLeaf(u *Node) (Leaf, error) {
	if u.Kind != Union {
		return Leaf{}, fmt.Errorf("%s: the branch leaf of a %s", u.Path, u.Kind)
	}
	steps := slices.Clone(u.above)
	if u.First < u.End {
		steps = slices.Clone(p.Leaves[u.First].Steps[:u.Step])
	}
	return Leaf{Steps: steps, Col: -1, Type: format.Int, Branch: slices.Clone(u.w.BranchCols), Schema: u.Schema, Node: u, Path: u.Path}, nil
}
