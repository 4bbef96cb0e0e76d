package levels

import (
	"fmt"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
)

// StepKind is what a node on a leaf's path adds to its levels.
type StepKind uint8

const (
	// Defined is an optional node whose value is always there: a
	// definition level, always reached.
	Defined StepKind = iota
	// Optional is a ["null", T] union: a definition level, reached when
	// its branch column's length is 1 (0 is null). Read from a union of
	// the file's of other branches, Cols are its branch columns and
	// Which (and Also) the branch read as T: the level is reached when
	// it is taken, not when null is; another taken is an error.
	Optional
	// Repeated is an array or a map: a definition level, reached when its
	// column's length is not 0, and a repetition level for the items
	// after the first.
	Repeated
	// Choice is a union of several branches (as a group of one optional
	// field per non-null branch): a definition level for the union,
	// reached unless the null branch is taken, when it may be null
	// (Nullable), and one for the branch on the leaf's path. Every
	// branch column is read to tell null from another branch.
	Choice
	// Absent is an optional node never there: a field of the reader's
	// that the file does not have, of default null. Its definition
	// level is never reached, and the steps after it read no column.
	Absent
	// Must is a union of the file's read as one of its branches (the
	// reader's type is no union): Cols are its branch columns, Which
	// (and Also) the branch read; another taken, or null, is an error.
	// It adds no level.
	Must
	// Default is a field of the reader's the file does not have whose
	// default holds levels of its own (an array, a map, a union of
	// several branches, or a record of them): the leaf's levels and
	// values within the default, the same wherever the field is
	// reached, are Preset's. It reads no column and is the leaf's last
	// step.
	Default
)

// Alt is another branch of the file's union read as the reader's branch
// on a leaf's path (the file's int and long read as the reader's long):
// where the union takes branch Which (an index of the step's Cols),
// the leaf's levels and values after the step are Leaf's, whose steps
// up to the step are the leaf's.
type Alt struct {
	Which int
	Leaf  *Leaf
}

// Preset is what a Default step gives a leaf wherever it is reached:
// levels, their definition levels counted from the step's (Defs) and
// their repetition levels (Reps, but the first, which is the level the
// step is reached at), and the values of the levels of the leaf's
// highest definition level (Vals, as typemap.ToStored gives them, an
// I32 branch index for a branch leaf).
type Preset struct {
	Defs, Reps []int16
	Vals       []any
	// Span is the definition levels the step adds: the highest of the
	// leaf's within the default.
	Span int16
}

// Step is one node of a leaf's path that adds a level.
type Step struct {
	Kind StepKind
	// Col is an Optional's branch column or a Repeated's column.
	Col int
	// Rep is a Repeated's repetition level.
	Rep int16
	// Cols are a Choice's branch columns, one per non-null branch in
	// order, and Which the index among them of the branch on the path.
	Cols  []int
	Which int
	// Nullable says a Choice has a null branch, and a level of its own.
	Nullable bool
	// Foreign, if not nil, marks the Cols of the file's branches the
	// reader's union has none for: one taken is an error. Which is -1
	// for a reader's branch the file's union lacks (never taken).
	Foreign []bool
	// Also are the other branches of a Choice, Must or Optional of
	// Cols read as the reader's branch on the path (see Alt).
	Also []Alt
	// Preset is a Default's levels and values.
	Preset *Preset
}

// defs returns the definition levels the step adds.
func (s *Step) defs() int16 {
	switch {
	case s.Kind == Choice && s.Nullable:
		return 2
	case s.Kind == Must:
		return 0
	case s.Kind == Default:
		return s.Preset.Span
	}
	return 1
}

// Leaf is the plan of one leaf column: the steps of its levels and how
// its values are read.
type Leaf struct {
	Steps []Step
	// Col is the Trevni column of the values; -1 for a leaf of no values
	// (Null).
	Col int
	// Type is Col's type.
	Type format.ValueType
	// Null marks a leaf of nulls: an optional leaf never defined, of no
	// values (an Avro null, or the field of a record of no fields).
	Null bool
	// Symbols, of an enum, turns its ordinals into these strings.
	Symbols []string
	// Fixed, if not 0, is the size every bytes value must have.
	Fixed int
	// Decimal, if not 0, is the width, in bytes, of big-endian two's
	// complement decimals the values (of any length) are sign-extended or
	// cut to; a value that does not fit is an error.
	Decimal int
	// UUID reads string values, a UUID's text, as its 16 bytes.
	UUID bool
	// Branch, if not nil, makes the leaf that of the branch a union
	// takes (Plan.BranchLeaf): the union's branch columns in the Avro
	// order (-1 for the null branch), and its values, in I32, one
	// wherever the union is reached, the index of the branch taken. Col
	// is then -1.
	Branch []int
	// BranchMap, if not nil, maps the file's branch index (Branch's) to
	// the reader's union's, -1 where the reader has none (an error if
	// taken).
	BranchMap []int
	// EnumMap, if not nil, maps the file's enum ordinals to the
	// reader's, -1 where the reader has no symbol and no default (an
	// error if read).
	EnumMap []int32
	// Promote, if not format.Null, is the type the values are read as,
	// promoted from Type as Avro's resolution does (int to long, float or
	// double; long to float or double; float to double; string to bytes
	// and bytes to string, checked to be UTF-8): the Run holds them in
	// Promote's slice (ValueType).
	Promote format.ValueType
	// Const, if not nil, makes the leaf one of a default value, a field
	// of the reader's the file does not have: its value, as
	// typemap.ToStored gives it (bool, int32, int64, float32, float64,
	// string, []byte), wherever the leaf is reached. Col is then -1.
	Const any
	// Schema is the reader's type of the values (not a union): its
	// logical type says what they mean. Nil in a leaf made by hand.
	Schema *schema.Schema
	// Node is the leaf's node in its plan; nil in a leaf made by hand.
	Node *Node
	// Path names the leaf in errors (of the caller's: Reader.Read's are
	// not wrapped with it).
	Path string
}

// ValueType returns the type of the leaf's values as they are read:
// Promote, or Type.
func (l *Leaf) ValueType() format.ValueType {
	if l.Promote != format.Null {
		return l.Promote
	}
	return l.Type
}

// absent says whether the leaf has an Absent step, or a Choice of a
// branch the file lacks: it reads no value.
func (l *Leaf) absent() bool {
	for _, s := range l.Steps {
		if s.Kind == Absent || s.Kind == Default || (s.Kind == Choice || s.Kind == Optional && s.Cols != nil) && s.Which < 0 && s.Also == nil {
			return true
		}
	}
	return false
}

// Columns returns the distinct columns the leaf reads: its steps' and
// its values'.
func (l *Leaf) Columns() []int {
	var cols []int
	add := func(c int) {
		if c < 0 {
			return
		}
		for _, x := range cols {
			if x == c {
				return
			}
		}
		cols = append(cols, c)
	}
	for _, s := range l.Steps {
		switch {
		case s.Kind == Optional && s.Cols == nil, s.Kind == Repeated:
			add(s.Col)
		case s.Kind == Choice, s.Kind == Must, s.Kind == Optional:
			for _, c := range s.Cols {
				add(c)
			}
		}
		for _, a := range s.Also {
			for _, c := range a.Leaf.Columns() {
				add(c)
			}
		}
	}
	for _, c := range l.Branch {
		add(c)
	}
	if !l.Null && l.Const == nil {
		add(l.Col)
	}
	return cols
}

// MaxDef returns the leaf's highest definition level, that of a value.
func (l *Leaf) MaxDef() int16 {
	var d int16
	for i := range l.Steps {
		d += l.Steps[i].defs()
	}
	if l.Null {
		d++
	}
	return d
}

// MaxRep returns the leaf's highest repetition level.
func (l *Leaf) MaxRep() int16 {
	var r int16
	for _, s := range l.Steps {
		if s.Kind == Repeated || s.Kind == Default {
			r = max(r, s.Rep)
		}
	}
	return r
}

// ByteArray says whether the leaf's values are byte strings (Run.Data
// and Run.Ends): strings, bytes, fixed, enums as their symbols, decimals
// and UUIDs.
func (l *Leaf) ByteArray() bool {
	if l.Branch != nil {
		return false
	}
	t := l.ValueType()
	return t == format.String || t == format.Bytes || l.Symbols != nil
}

// check says what is wrong with a leaf's plan, or nil.
func (l *Leaf) check() error {
	for i, s := range l.Steps {
		if s.Kind == Must && (s.Which < 0 || s.Which >= len(s.Cols)) {
			return fmt.Errorf("union branch %d of %d", s.Which, len(s.Cols))
		}
		if (s.Kind == Choice || s.Kind == Optional && s.Cols != nil) && (s.Which < -1 || s.Which >= len(s.Cols) || s.Foreign != nil && len(s.Foreign) != len(s.Cols)) {
			return fmt.Errorf("union branch %d of %d", s.Which, len(s.Cols))
		}
		if s.Kind == Default && (s.Preset == nil || len(s.Preset.Defs) != len(s.Preset.Reps) || len(s.Preset.Defs) == 0 || i != len(l.Steps)-1) {
			return fmt.Errorf("a default's levels out of place")
		}
		for _, a := range s.Also {
			if a.Which < 0 || a.Which >= len(s.Cols) || a.Leaf == nil || len(a.Leaf.Steps) <= i {
				return fmt.Errorf("another union branch %d of %d", a.Which, len(s.Cols))
			}
			if a.Leaf.ValueType() != l.ValueType() && l.Branch == nil {
				return fmt.Errorf("values of %s read as %s", a.Leaf.ValueType(), l.ValueType())
			}
			if err := a.Leaf.check(); err != nil {
				return err
			}
		}
	}
	if l.Branch != nil {
		if l.Null || l.Col >= 0 {
			return fmt.Errorf("a leaf of a union's branches with a column of values")
		}
		return nil
	}
	if l.Const != nil {
		if l.Col >= 0 || l.Null {
			return fmt.Errorf("a leaf of a default value with a column of values")
		}
		return nil
	}
	if !l.Null && l.Col < 0 && !l.absent() {
		return fmt.Errorf("a leaf of values without a column")
	}
	if l.Promote != format.Null && !promotes(l.Type, l.Promote) {
		return fmt.Errorf("values of %s read as %s", l.Type, l.Promote)
	}
	return nil
}

// Run is the levels and values of rows read: Defs and Reps, one of each
// per level, and the values of the levels of definition level MaxDef, in
// the slice of the leaf's type (Bools, I32, I64, F32, F64; byte strings
// end to end in Data, each ending at its Ends). A sink is handed a Run
// it may read until it returns.
type Run struct {
	Defs, Reps []int16
	Bools      []bool
	I32        []int32
	I64        []int64
	F32        []float32
	F64        []float64
	Data       []byte
	Ends       []int
}

// reset empties the run, keeping its memory.
func (r *Run) reset() {
	r.Defs, r.Reps = r.Defs[:0], r.Reps[:0]
	r.Bools, r.I32, r.I64, r.F32, r.F64 = r.Bools[:0], r.I32[:0], r.I64[:0], r.F32[:0], r.F64[:0]
	r.Data, r.Ends = r.Data[:0], r.Ends[:0]
}

// promotes says whether values of column type t are promoted to type to
// (Leaf.Promote).
func promotes(t, to format.ValueType) bool {
	switch t {
	case format.Int:
		return to == format.Long || to == format.Float || to == format.Double
	case format.Long:
		return to == format.Float || to == format.Double
	case format.Float:
		return to == format.Double
	case format.String:
		return to == format.Bytes
	case format.Bytes:
		return to == format.String
	}
	return false
}
