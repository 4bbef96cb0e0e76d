package levels

import (
	"errors"
	"fmt"
	"slices"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/coltype"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/typemap"
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

	w        *layout.Node // the file's position read (a union's, for a Union)
	above    []Step       // a Union of no leaves, or read from a non-union: the steps above it
	absent   bool         // within a field the file does not have
	toReader []int        // a Union's: the reader's branch of each of the file's, -1 for none
	only     int          // a Union read from the file's non-union: the reader's branch always taken
	alts     []altRef     // the nodes that read the same position from other branches of a file's union above
	preset   *Node        // the field of a default (Default steps) the node is, or is beneath; nil if none
	dflt     any          // a preset field's default value
}

// altRef is a node of another plan (an Alt's) that reads the same
// position of the reader's schema from another branch of a file's union
// above, whose step is at in the leaves' steps, taken as branch which.
type altRef struct {
	node      *Node
	plan      *Plan
	at, which int
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
	p      *Plan
	depth  int
	above  int // the steps kept above unions of null alone
	absent int // > 0 within a field the file does not have (its layout a stand-in: no column is read)
}

// col returns column c of the file, or -1 within a field the file does
// not have.
func (b *planner) col(c int) int {
	if b.absent > 0 {
		return -1
	}
	return c
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
	n := &Node{Schema: rs, Parent: parent, Def: def, Rep: rep, Step: len(steps), Leaf: -1, First: len(b.p.Leaves), Path: path, w: w, absent: b.absent > 0}
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
	if ws.Kind != schema.Union {
		// The file's T read as the reader's ["null", T]: always there.
		if t, k := nullable(rs); t != nil && (sameType(ws, t) || promotable(ws, t)) {
			n := &Node{Schema: rs.Branches[k], Parent: parent, Nullable: true, Def: def + 1, Rep: rep, Step: len(steps), Leaf: -1, First: len(b.p.Leaves), Path: path, w: w, absent: b.absent > 0}
			st := append(steps[:len(steps):len(steps)], Step{Kind: Defined})
			if err := b.inner(n, t, w, st); err != nil {
				return nil, err
			}
			n.End = len(b.p.Leaves)
			return n, nil
		}
		return b.intoUnion(rs, w, parent, path, steps, def, rep)
	}
	if rs.Kind != schema.Union {
		return b.outOfUnion(rs, w, parent, path, steps, def, rep)
	}
	tw, kw := nullable(ws)
	tr, kr := nullable(rs)
	if tw != nil && tr != nil && (sameBranch(tw, tr) || promotable(tw, tr)) {
		// ["null", T] read as ["null", T'], in either order: T',
		// nullable.
		n := &Node{Schema: rs.Branches[kr], Parent: parent, Nullable: true, Def: def + 1, Rep: rep, Step: len(steps), Leaf: -1, First: len(b.p.Leaves), Path: path, w: w.Branches[kw], absent: b.absent > 0}
		st := append(steps[:len(steps):len(steps)], Step{Kind: Optional, Col: b.col(w.BranchCols[kw])})
		b.depth++
		defer func() { b.depth-- }()
		if err := b.inner(n, tr, w.Branches[kw], st); err != nil {
			return nil, err
		}
		n.End = len(b.p.Leaves)
		return n, nil
	}
	// The reader's branch of each of the file's: one of the same type
	// first, then one it is promoted to (-1: none, an error if taken).
	toReader := make([]int, len(ws.Branches))
	var (
		cols    []int
		foreign []bool
		colOf   = make([]int, len(ws.Branches)) // each branch's index in cols
		matched = false
	)
	for i, wb := range ws.Branches {
		toReader[i] = matchBranch(rs, wb)
		if toReader[i] >= 0 {
			matched = true
		}
		colOf[i] = -1
		if wb.Kind == schema.Null {
			continue
		}
		colOf[i] = len(cols)
		cols = append(cols, b.col(w.BranchCols[i]))
		foreign = append(foreign, toReader[i] < 0)
	}
	if !matched {
		return nil, fmt.Errorf("%s: %w: no branch of the file's union %s can be read as %s", path, assemble.ErrIncompatible, describeUnion(ws), describeUnion(rs))
	}
	if !slices.Contains(foreign, true) {
		foreign = nil
	}
	if tr != nil {
		// ["null", T] read from a union of the file's of other
		// branches: a nullable T, there when a branch read as T is
		// taken.
		return b.optionalOf(rs, kr, w, toReader, cols, colOf, parent, path, steps, def, rep)
	}
	hasNull := slices.ContainsFunc(rs.Branches, func(b *schema.Schema) bool { return b.Kind == schema.Null })
	u := &Node{Kind: Union, Schema: rs, Parent: parent, Nullable: hasNull, Def: def, Rep: rep, Step: len(steps), Leaf: -1, First: len(b.p.Leaves), Path: path, w: w, absent: b.absent > 0, toReader: toReader}
	if hasNull {
		u.Def++
	}
	for k, rb := range rs.Branches {
		if rb.Kind == schema.Null {
			u.Children = append(u.Children, &Node{Kind: Value, Schema: rb, Name: rb.FullName(), Parent: u, Nullable: true,
				Def: u.Def + 1, Rep: rep, Step: len(steps) + 1, Leaf: -1, First: len(b.p.Leaves), End: len(b.p.Leaves), Path: path})
			continue
		}
		i := slices.Index(toReader, k)
		which := -1
		if i >= 0 {
			which = colOf[i]
		}
		st := append(steps[:len(steps):len(steps)], Step{Kind: Choice, Cols: cols, Which: which, Nullable: hasNull, Foreign: foreign})
		var (
			c   *Node
			err error
		)
		if i >= 0 {
			c, err = b.node(rb, w.Branches[i], u, path, st, u.Def+1, rep)
		} else {
			c, err = b.standIn(rb, u, path, st, u.Def+1, rep)
		}
		if err != nil {
			return nil, err
		}
		c.Name, c.Nullable, c.Step = rb.FullName(), true, len(steps)
		u.Children = append(u.Children, c)
		for j := i + 1; i >= 0 && j < len(toReader); j++ {
			if toReader[j] != k {
				continue
			}
			// Another branch of the file's read as this one.
			st := append(steps[:len(steps):len(steps)], Step{Kind: Choice, Cols: cols, Which: colOf[j], Nullable: hasNull, Foreign: foreign})
			if err := b.also(c, len(steps), colOf[j], func(b2 *planner) (*Node, error) {
				c2, err := b2.node(rb, w.Branches[j], u, path, st, u.Def+1, rep)
				if err == nil {
					c2.Name, c2.Nullable, c2.Step = rb.FullName(), true, len(steps)
				}
				return c2, err
			}); err != nil {
				return nil, err
			}
		}
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

// intoUnion plans the file's w (not a union) read as the reader's union
// rs, always the branch that reads it.
func (b *planner) intoUnion(rs *schema.Schema, w *layout.Node, parent *Node, path string, steps []Step, def, rep int16) (*Node, error) {
	j := matchBranch(rs, w.Schema)
	if j < 0 {
		return nil, fmt.Errorf("%s: %w: the file's %s matches no branch of the reader's %s", path, assemble.ErrIncompatible, w.Schema.FullName(), describeUnion(rs))
	}
	hasNull := slices.ContainsFunc(rs.Branches, func(b *schema.Schema) bool { return b.Kind == schema.Null })
	u := &Node{Kind: Union, Schema: rs, Parent: parent, Nullable: hasNull, Def: def, Rep: rep, Step: len(steps), Leaf: -1, First: len(b.p.Leaves), Path: path, w: w, absent: b.absent > 0, only: j}
	above := slices.Clone(steps)
	if hasNull {
		u.Def++
		above = append(above, Step{Kind: Defined})
	}
	for k, rb := range rs.Branches {
		if rb.Kind == schema.Null {
			u.Children = append(u.Children, &Node{Kind: Value, Schema: rb, Name: rb.FullName(), Parent: u, Nullable: true,
				Def: u.Def + 1, Rep: rep, Step: len(steps) + 1, Leaf: -1, First: len(b.p.Leaves), End: len(b.p.Leaves), Path: path})
			continue
		}
		var (
			c   *Node
			err error
		)
		if k == j {
			c, err = b.node(rb, w, u, path, append(above[:len(above):len(above)], Step{Kind: Defined}), u.Def+1, rep)
		} else {
			c, err = b.standIn(rb, u, path, append(above[:len(above):len(above)], Step{Kind: Absent}), u.Def+1, rep)
		}
		if err != nil {
			return nil, err
		}
		c.Name, c.Nullable, c.Step = rb.FullName(), true, len(steps)
		u.Children = append(u.Children, c)
	}
	u.End = len(b.p.Leaves)
	u.above = steps
	return u, nil
}

// outOfUnion plans the file's union w read as the reader's rs, not a
// union: the branch that reads it must be taken (a Must step).
func (b *planner) outOfUnion(rs *schema.Schema, w *layout.Node, parent *Node, path string, steps []Step, def, rep int16) (*Node, error) {
	ws := w.Schema
	read := -1
	for i, wb := range ws.Branches {
		if sameType(wb, rs) {
			read = i
			break
		}
	}
	if read < 0 {
		for i, wb := range ws.Branches {
			if promotable(wb, rs) {
				read = i
				break
			}
		}
	}
	if read < 0 || ws.Branches[read].Kind == schema.Null {
		return nil, fmt.Errorf("%s: %w: no branch of the file's union %s can be read as %s", path, assemble.ErrIncompatible, describeUnion(ws), rs.FullName())
	}
	var cols []int
	which := -1
	for i, wb := range ws.Branches {
		if wb.Kind == schema.Null {
			continue
		}
		if i == read {
			which = len(cols)
		}
		cols = append(cols, b.col(w.BranchCols[i]))
	}
	st := append(steps[:len(steps):len(steps)], Step{Kind: Must, Cols: cols, Which: which})
	n, err := b.node(rs, w.Branches[read], parent, path, st, def, rep)
	if err != nil {
		return nil, err
	}
	n.Step = len(steps)
	// The file's other branches the reader's type reads (an int and a
	// long read as a long), as the row interpreter reads them.
	k := -1
	for i, wb := range ws.Branches {
		if wb.Kind == schema.Null {
			continue
		}
		k++
		if i == read || !sameType(wb, rs) && !promotable(wb, rs) {
			continue
		}
		st := append(steps[:len(steps):len(steps)], Step{Kind: Must, Cols: cols, Which: k})
		if err := b.also(n, len(steps), k, func(b2 *planner) (*Node, error) {
			n2, err := b2.node(rs, w.Branches[i], parent, path, st, def, rep)
			if err == nil {
				n2.Step = len(steps)
			}
			return n2, err
		}); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// optionalOf plans the reader's ["null", T] (T its branch kr) read from
// the file's union w of other branches (toReader, cols and colOf as
// union makes them): a nullable T whose Optional step reads the file's
// branch columns.
func (b *planner) optionalOf(rs *schema.Schema, kr int, w *layout.Node, toReader, cols, colOf []int, parent *Node, path string, steps []Step, def, rep int16) (*Node, error) {
	t := rs.Branches[kr]
	reads := []int{}
	for i, k := range toReader {
		if k == kr {
			reads = append(reads, i)
		}
	}
	which := -1
	if len(reads) > 0 {
		which = colOf[reads[0]]
	}
	step := func(which int) []Step {
		return append(steps[:len(steps):len(steps)], Step{Kind: Optional, Col: -1, Cols: cols, Which: which})
	}
	n := &Node{Schema: t, Parent: parent, Nullable: true, Def: def + 1, Rep: rep, Step: len(steps), Leaf: -1, First: len(b.p.Leaves), Path: path, absent: b.absent > 0}
	if len(reads) == 0 {
		// No branch of the file's is read as T: never there.
		stand, err := layout.New(t, nil)
		if err != nil {
			return nil, unsupported(path, "a branch of a type not laid out: %v", err)
		}
		n.w, n.absent = stand.Root, true
		b.absent++
		defer func() { b.absent-- }()
		if err := b.inner(n, t, stand.Root, step(-1)); err != nil {
			return nil, err
		}
		n.End = len(b.p.Leaves)
		return n, nil
	}
	n.w = w.Branches[reads[0]]
	b.depth++
	defer func() { b.depth-- }()
	if err := b.inner(n, t, n.w, step(which)); err != nil {
		return nil, err
	}
	n.End = len(b.p.Leaves)
	for _, i := range reads[1:] {
		if err := b.also(n, len(steps), colOf[i], func(b2 *planner) (*Node, error) {
			n2 := &Node{Schema: t, Parent: parent, Nullable: true, Def: def + 1, Rep: rep, Step: len(steps), Leaf: -1, First: 0, Path: path, w: w.Branches[i], absent: b2.absent > 0}
			if err := b2.inner(n2, t, w.Branches[i], step(colOf[i])); err != nil {
				return nil, err
			}
			n2.End = len(b2.p.Leaves)
			return n2, nil
		}); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// also plans, by plan, another branch of a file's union (the union's
// step at index at of the leaves' steps, taken as branch which) read as
// the reader's node n: in a plan of its own, whose leaves become the
// Alts of n's leaves and whose nodes n's nodes refer to. A branch the
// reader's type cannot read is left out (an error where taken, as for
// the row interpreter).
func (b *planner) also(n *Node, at, which int, plan func(b2 *planner) (*Node, error)) error {
	b2 := &planner{p: &Plan{Schema: b.p.Schema, Layout: b.p.Layout}, depth: b.depth, above: b.above, absent: b.absent}
	n2, err := plan(b2)
	if errors.Is(err, assemble.ErrIncompatible) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(b2.p.Leaves) != n.End-n.First {
		return fmt.Errorf("%s: %d leaves read from one branch, %d from another", n.Path, n.End-n.First, len(b2.p.Leaves))
	}
	for j := range b2.p.Leaves {
		s := &b.p.Leaves[n.First+j].Steps[at]
		s.Also = append(slices.Clip(s.Also), Alt{Which: which, Leaf: &b2.p.Leaves[j]})
	}
	var pair func(x, y *Node) error
	pair = func(x, y *Node) error {
		if len(x.Children) != len(y.Children) {
			return fmt.Errorf("%s: %d children read from one branch, %d from another", x.Path, len(x.Children), len(y.Children))
		}
		x.alts = append(x.alts, altRef{node: y, plan: b2.p, at: at, which: which})
		for i := range x.Children {
			if err := pair(x.Children[i], y.Children[i]); err != nil {
				return err
			}
		}
		return nil
	}
	return pair(n, n2)
}

// standIn plans the reader's rs where the file has nothing (a union's
// branch it lacks): from a stand-in layout of rs, no column read.
func (b *planner) standIn(rs *schema.Schema, parent *Node, path string, steps []Step, def, rep int16) (*Node, error) {
	stand, err := layout.New(rs, nil)
	if err != nil {
		return nil, unsupported(path, "a branch of a type not laid out: %v", err)
	}
	b.absent++
	defer func() { b.absent-- }()
	return b.node(rs, stand.Root, parent, path, steps, def, rep)
}

// matchBranch returns the reader's union branch that reads the file's
// ws (not a union): one of the same type (and name) first, then one it is
// promoted to; -1 if none.
func matchBranch(ru, ws *schema.Schema) int {
	for j, rb := range ru.Branches {
		if sameBranch(ws, rb) {
			return j
		}
	}
	for j, rb := range ru.Branches {
		if promotable(ws, rb) {
			return j
		}
	}
	return -1
}

// inner plans the value of rs (not a union) from w (not a union) at n,
// whose Def, Rep, Step, Parent and Path are set.
func (b *planner) inner(n *Node, rs *schema.Schema, w *layout.Node, steps []Step) error {
	ws := w.Schema
	n.Schema = rs
	promote := format.Null
	var enumMap []int32
	if !sameType(ws, rs) {
		if !promotable(ws, rs) {
			return fmt.Errorf("%s: %w: the file's %s cannot be read as %s", n.Path, assemble.ErrIncompatible, ws.FullName(), rs.FullName())
		}
		promote, _ = coltype.Of(rs)
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
			var (
				c   *Node
				err error
			)
			if k < 0 {
				if !rf.HasDefault {
					return fmt.Errorf("%s: %w: not in the file and has no default", joinPath(n.Path, rf.Name), assemble.ErrIncompatible)
				}
				c, err = b.defaulted(rf, n, steps)
			} else {
				c, err = b.node(rf.Type, w.Fields[k], n, joinPath(n.Path, rf.Name), steps, n.Def, n.Rep)
			}
			if err != nil {
				return err
			}
			c.Name, c.Field = rf.Name, rf
			n.Children = append(n.Children, c)
		}
		return nil
	case schema.Array, schema.Map:
		n.Kind = List
		st := append(steps[:len(steps):len(steps)], Step{Kind: Repeated, Col: b.col(w.Col), Rep: n.Rep + 1})
		items := rs.Items
		if rs.Kind == schema.Map {
			n.Kind = Map
			items = rs.Values
			key := &Node{Kind: Value, Schema: &schema.Schema{Kind: schema.String}, Name: "key", Parent: n, Def: n.Def + 1, Rep: n.Rep + 1,
				Step: len(st), First: len(b.p.Leaves), Path: n.Path + "[key]"}
			key.Leaf = b.add(Leaf{Steps: st, Col: b.col(w.KeyCol), Type: format.String, Schema: key.Schema}, key)
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
			enumMap = make([]int32, len(ws.Symbols))
			def := int32(-1)
			if rs.EnumDefault != "" {
				def = int32(rs.SymbolIndex(rs.EnumDefault))
			}
			for i, sym := range ws.Symbols {
				enumMap[i] = int32(rs.SymbolIndex(sym))
				if enumMap[i] < 0 {
					enumMap[i] = def
				}
			}
		}
	}
	n.Kind = Value
	if w.Col < 0 {
		return fmt.Errorf("%s: no column for %s", n.Path, ws.FullName())
	}
	l := Leaf{Steps: steps, Col: b.col(w.Col), Type: w.Type, Promote: promote, EnumMap: enumMap, Schema: rs}
	if rs.Kind == schema.Fixed {
		l.Fixed = rs.Size
	}
	n.Leaf = b.add(l, n)
	return nil
}

// defaulted plans the reader's field rf, which the file's record lacks,
// of its default, beneath record node n: a null default of a ["null", T]
// field as a T never there (an Absent step), a default of a simple type
// (or of the first branch, simple, of a union of it and null) as a leaf
// of that value. Other defaults are not covered.
func (b *planner) defaulted(rf *schema.Field, n *Node, steps []Step) (*Node, error) {
	native, err := typemap.DefaultValue(rf.Type, rf.Default)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: bad default: %v", joinPath(n.Path, rf.Name), assemble.ErrIncompatible, err)
	}
	return b.defaultNode(rf, native, n, steps)
}

// defaultNode plans field rf of the default value native (see
// defaulted).
func (b *planner) defaultNode(rf *schema.Field, native any, n *Node, steps []Step) (*Node, error) {
	path := joinPath(n.Path, rf.Name)
	// The field's layout, standing in for the file's: its columns are
	// never read.
	stand, err := layout.New(rf.Type, nil)
	if err != nil {
		return nil, unsupported(path, "a default of a type not laid out: %v", err)
	}
	t, k := nullable(rf.Type)
	switch {
	case t != nil && k == 1 && native == nil:
		// null: T never there.
		c := &Node{Schema: t, Parent: n, Nullable: true, Def: n.Def + 1, Rep: n.Rep, Step: len(steps), Leaf: -1, First: len(b.p.Leaves), Path: path, w: stand.Root.Branches[1], absent: true}
		st := append(steps[:len(steps):len(steps)], Step{Kind: Absent})
		b.absent++
		err := b.inner(c, t, stand.Root.Branches[1], st)
		b.absent--
		if err != nil {
			return nil, err
		}
		c.End = len(b.p.Leaves)
		return c, nil
	case rf.Type.Kind == schema.Union && (t == nil || k != 0 || !t.IsSimple()):
		return b.preset(rf, native, n, stand, steps)
	case rf.Type.Kind == schema.Union:
		// [T, "null"] of default T: always there.
		_, v, err := typemap.ResolveUnion(rf.Type, native)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: bad default: %v", path, assemble.ErrIncompatible, err)
		}
		c := &Node{Kind: Value, Schema: t, Parent: n, Nullable: true, Def: n.Def + 1, Rep: n.Rep, Step: len(steps), First: len(b.p.Leaves), Path: path, absent: true}
		st := append(steps[:len(steps):len(steps)], Step{Kind: Defined})
		if err := b.constant(c, t, v, st); err != nil {
			return nil, err
		}
		return c, nil
	case rf.Type.IsSimple() && rf.Type.Kind != schema.Null:
		c := &Node{Kind: Value, Schema: rf.Type, Parent: n, Def: n.Def, Rep: n.Rep, Step: len(steps), First: len(b.p.Leaves), Path: path, absent: true}
		if err := b.constant(c, rf.Type, native, steps); err != nil {
			return nil, err
		}
		return c, nil
	case rf.Type.Kind == schema.Record:
		// A record: each field of its value in the default.
		m, ok := native.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: %w: bad default: %T for a record", path, assemble.ErrIncompatible, native)
		}
		c := &Node{Kind: Record, Schema: rf.Type, Parent: n, Def: n.Def, Rep: n.Rep, Step: len(steps), Leaf: -1, First: len(b.p.Leaves), Path: path, w: stand.Root, absent: true}
		if len(rf.Type.Fields) == 0 {
			c.Leaf = b.add(Leaf{Steps: steps, Col: -1, Null: true, Schema: rf.Type}, c)
		}
		for _, f := range rf.Type.Fields {
			v, ok := m[f.Name]
			if !ok {
				return nil, unsupported(path, "a default of a record without field %s", f.Name)
			}
			fc, err := b.defaultNode(f, v, c, steps)
			if err != nil {
				return nil, err
			}
			fc.Name, fc.Field = f.Name, f
			c.Children = append(c.Children, fc)
		}
		c.End = len(b.p.Leaves)
		return c, nil
	}
	return b.preset(rf, native, n, stand, steps)
}

// preset plans field rf of the default value native, which holds levels
// of its own (an array, a map, a union of several branches), beneath
// record node n: its tree from a stand-in layout (stand, of rf's type),
// every leaf beneath of a Default step, the levels and values the value
// gives it.
func (b *planner) preset(rf *schema.Field, native any, n *Node, stand *layout.Layout, steps []Step) (*Node, error) {
	path := joinPath(n.Path, rf.Name)
	b.absent++
	c, err := b.node(rf.Type, stand.Root, n, path, steps, n.Def, n.Rep)
	b.absent--
	if err != nil {
		return nil, err
	}
	c.Name, c.Field, c.dflt = rf.Name, rf, native
	var mark func(m *Node)
	mark = func(m *Node) {
		m.preset = c
		for _, ch := range m.Children {
			mark(ch)
		}
	}
	mark(c)
	for i := c.First; i < c.End; i++ {
		l := &b.p.Leaves[i]
		l.Steps = l.Steps[:len(steps):len(steps)]
		if err := l.setPreset(); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// setPreset sets the Default step of a leaf beneath a default (its
// steps those above the default's field, or with the Default step
// already last), from its node's place in the default value.
func (l *Leaf) setPreset() error {
	t := l.Node // a branch leaf's: its union
	root := t.preset
	pr := &Preset{}
	k := len(l.Steps)
	if k > 0 && l.Steps[k-1].Kind == Default {
		k--
	}
	if err := stripe(root, t, l.Branch != nil, root.dflt, 0, pr); err != nil {
		return fmt.Errorf("%s: %w: bad default: %v", root.Path, assemble.ErrIncompatible, err)
	}
	base := root.Def
	if root.Nullable {
		base--
	}
	top := t.Def
	switch {
	case l.Branch != nil:
		top = t.Def
		if t.Nullable {
			top--
		}
	case l.Null && t.Kind == Value:
		top--
	}
	pr.Span = top - base
	for i := range pr.Defs {
		pr.Defs[i] -= base
	}
	l.Steps = append(l.Steps[:k:k], Step{Kind: Default, Rep: t.Rep, Preset: pr})
	return nil
}

// posSchema returns the reader's type at node n's position: a union
// for a ["null", T] node.
func posSchema(n *Node) *schema.Schema {
	switch {
	case n.Field != nil:
		return n.Field.Type
	case n.Parent != nil && n.Parent.Kind == List:
		return n.Parent.Schema.Items
	case n.Parent != nil && n.Parent.Kind == Map && n.Name == "value":
		return n.Parent.Schema.Values
	}
	return n.Schema
}

// stripe adds to pr the levels (absolute definition levels) and values
// that value v at node n, reached at repetition level rep, gives the
// leaf of node t beneath n (or the branch leaf of union t, if branch).
func stripe(n, t *Node, branch bool, v any, rep int16, pr *Preset) error {
	emit := func(def int16, val any) {
		pr.Defs = append(pr.Defs, def)
		pr.Reps = append(pr.Reps, rep)
		if val != nil {
			pr.Vals = append(pr.Vals, val)
		}
	}
	if s := posSchema(n); n.Kind != Union && s.Kind == schema.Union {
		k, inner, err := typemap.ResolveUnion(s, v)
		if err != nil {
			return err
		}
		if s.Branches[k].Kind == schema.Null {
			emit(n.Def-1, nil)
			return nil
		}
		v = inner
	}
	if n == t {
		switch {
		case branch:
			k, _, err := typemap.ResolveUnion(n.Schema, v)
			if err != nil {
				return err
			}
			def := n.Def
			if n.Nullable {
				def--
			}
			emit(def, int32(k))
		case n.Kind == Record:
			emit(n.Def, nil)
		case n.Schema.Kind == schema.Null:
			emit(n.Def-1, nil)
		default:
			sv, err := typemap.ToStored(n.Schema, v)
			if err != nil {
				return err
			}
			emit(n.Def, sv)
		}
		return nil
	}
	// The child of n on t's path.
	c := t
	for c.Parent != n {
		c = c.Parent
		if c == nil {
			return fmt.Errorf("%s is not beneath %s", t.Path, n.Path)
		}
	}
	switch n.Kind {
	case Record:
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%T for a record", v)
		}
		fv, ok := m[c.Name]
		if !ok {
			return fmt.Errorf("a record without field %s", c.Name)
		}
		return stripe(c, t, branch, fv, rep, pr)
	case List:
		a, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%T for an array", v)
		}
		if len(a) == 0 {
			emit(n.Def, nil)
		}
		for j, item := range a {
			r := rep
			if j > 0 {
				r = c.Rep
			}
			if err := stripe(c, t, branch, item, r, pr); err != nil {
				return err
			}
		}
		return nil
	case Map:
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%T for a map", v)
		}
		if len(m) == 0 {
			emit(n.Def, nil)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys) // the order fromavro gives map entries
		for j, k := range keys {
			r := rep
			if j > 0 {
				r = c.Rep
			}
			var err error
			if c.Name == "key" {
				err = stripe(c, t, branch, k, r, pr)
			} else {
				err = stripe(c, t, branch, m[k], r, pr)
			}
			if err != nil {
				return err
			}
		}
		return nil
	case Union:
		k, inner, err := typemap.ResolveUnion(n.Schema, v)
		if err != nil {
			return err
		}
		switch {
		case n.Schema.Branches[k].Kind == schema.Null:
			emit(n.Def-1, nil)
		case n.Children[k] != c:
			emit(n.Def, nil)
		default:
			return stripe(c, t, branch, inner, rep, pr)
		}
		return nil
	}
	return fmt.Errorf("%s beneath a %s", t.Path, n.Kind)
}

// constant adds the leaf of node c, of the default value v of type s.
func (b *planner) constant(c *Node, s *schema.Schema, v any, steps []Step) error {
	stored, err := typemap.ToStored(s, v)
	if err != nil {
		return fmt.Errorf("%s: %w: bad default: %v", c.Path, assemble.ErrIncompatible, err)
	}
	t, _ := coltype.Of(s)
	l := Leaf{Steps: steps, Col: -1, Type: t, Const: stored, Schema: s}
	if s.Kind == schema.Fixed {
		l.Fixed = s.Size
	}
	c.Leaf = b.add(l, c)
	c.End = len(b.p.Leaves)
	return nil
}

// describeUnion names a union's branches.
func describeUnion(s *schema.Schema) string {
	d := "["
	for i, b := range s.Branches {
		if i > 0 {
			d += ", "
		}
		d += b.FullName()
	}
	return d + "]"
}

// nullable returns T of a union of null and one other type T, and T's
// index; nil for any other schema.
func nullable(s *schema.Schema) (*schema.Schema, int) {
	if s.Kind != schema.Union || len(s.Branches) != 2 {
		return nil, 0
	}
	switch {
	case s.Branches[0].Kind == schema.Null && s.Branches[1].Kind != schema.Null:
		return s.Branches[1], 1
	case s.Branches[1].Kind == schema.Null && s.Branches[0].Kind != schema.Null:
		return s.Branches[0], 0
	}
	return nil, 0
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
	if n.preset == nil {
		for i := n.First; i < n.End; i++ {
			insertDefined(&p.Leaves[i], n.Step)
		}
	}
	for _, a := range n.alts {
		if a.at < n.Step {
			// A union above n: its other branch's node likewise.
			a.plan.MakeNullable(a.node)
		}
	}
	var deeper func(c *Node, top bool)
	deeper = func(c *Node, top bool) {
		for _, a := range c.alts {
			if a.at >= n.Step {
				// A union at or beneath n, whose other branches' steps
				// are the leaves' up to it: their nodes one deeper.
				y := a.node
				if top {
					y.Nullable = true
				} else {
					y.Step++
				}
				y.Def++
				if y.keepsAbove() {
					y.above = slices.Insert(y.above, n.Step, Step{Kind: Defined})
				}
			}
		}
		if !top {
			c.Def++
			c.Step++
			if c.keepsAbove() && n.preset == nil {
				c.above = slices.Insert(c.above, n.Step, Step{Kind: Defined})
			}
		}
		for _, ch := range c.Children {
			deeper(ch, false)
		}
	}
	n.Nullable = true
	n.Def++
	if n.keepsAbove() && n.preset == nil {
		n.above = slices.Insert(n.above, n.Step, Step{Kind: Defined})
	}
	deeper(n, true)
	if n.preset != nil {
		// Beneath a default: its levels anew.
		for i := n.First; i < n.End; i++ {
			p.Leaves[i].setPreset()
		}
	}
}

// insertDefined inserts a Defined step at index at of a leaf's steps,
// and of the steps of its Alts hung at or after it (whose steps up to
// theirs are the leaf's).
func insertDefined(l *Leaf, at int) {
	l.Steps = slices.Insert(l.Steps, at, Step{Kind: Defined})
	for k := at + 1; k < len(l.Steps); k++ {
		s := &l.Steps[k]
		for j := range s.Also {
			insertDefined(s.Also[j].Leaf, at)
		}
	}
}

// BranchLeaf returns the leaf of the branch taken by the union of node u
// (a Union): its steps are those above the union, and its values, one
// wherever the union is reached, are the Avro index of the branch taken
// (the null branch's included), in I32.
func (p *Plan) BranchLeaf(u *Node) (Leaf, error) {
	if u.Kind != Union {
		return Leaf{}, fmt.Errorf("%s: the branch leaf of a %s", u.Path, u.Kind)
	}
	if root := u.preset; root != nil {
		// Within a default: the branch its value takes.
		if root.First == root.End {
			return Leaf{}, unsupported(u.Path, "a default of nulls alone")
		}
		above := p.Leaves[root.First].Steps
		branch := make([]int, len(u.Schema.Branches))
		for i := range branch {
			branch[i] = -1
		}
		l := Leaf{Steps: slices.Clone(above[:len(above)-1]), Col: -1, Type: format.Int, Branch: branch, Schema: u.Schema, Node: u, Path: u.Path}
		if err := l.setPreset(); err != nil {
			return Leaf{}, err
		}
		return l, p.branchAlts(u, &l)
	}
	steps := slices.Clone(u.above)
	if u.First < u.End && u.w.Kind == schema.Union {
		steps = slices.Clone(p.Leaves[u.First].Steps[:u.Step])
	}
	if u.w.Kind != schema.Union {
		// Read from the file's non-union: always the one branch.
		l := Leaf{Steps: slices.Clone(u.above), Col: -1, Type: format.Int, Const: int32(u.only), Schema: u.Schema, Node: u, Path: u.Path}
		return l, p.branchAlts(u, &l)
	}
	branch := slices.Clone(u.w.BranchCols)
	if u.absent {
		for i := range branch {
			branch[i] = -1
		}
	}
	var toReader []int
	if !slices.Equal(u.toReader, identity(len(u.toReader))) {
		toReader = slices.Clone(u.toReader)
	}
	l := Leaf{Steps: steps, Col: -1, Type: format.Int, Branch: branch, BranchMap: toReader, Schema: u.Schema, Node: u, Path: u.Path}
	return l, p.branchAlts(u, &l)
}

// branchAlts gives branch leaf l of union u, whose steps are those of
// another leaf, the Alts of its own: the branch leaves of the nodes that
// read u from other branches of a file's union above.
func (p *Plan) branchAlts(u *Node, l *Leaf) error {
	for k := range l.Steps {
		l.Steps[k].Also = nil
	}
	for _, a := range u.alts {
		if a.at >= len(l.Steps) {
			return fmt.Errorf("%s: another branch's union at step %d of %d", u.Path, a.at, len(l.Steps))
		}
		al, err := a.plan.BranchLeaf(a.node)
		if err != nil {
			return err
		}
		s := &l.Steps[a.at]
		s.Also = append(s.Also, Alt{Which: a.which, Leaf: &al})
	}
	return nil
}

// keepsAbove says whether the node keeps the steps above it: a union of
// null alone, or read from the file's non-union.
func (n *Node) keepsAbove() bool {
	return n.Kind == Union && (n.First == n.End || n.w.Kind != schema.Union)
}

// identity returns 0, 1, ..., n-1.
func identity(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
