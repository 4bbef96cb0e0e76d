package assemble

import (
	"errors"
	"fmt"
	"strings"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/avrojson"
	"github.com/trevni-go/trevni/internal/jsontext"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/typemap"
)

// ErrIncompatible reports a reader schema that cannot read the file.
var ErrIncompatible = errors.New("reader schema does not match the file")

type op uint8

const (
	opSimple op = iota // one value from a column, promoted to the reader's type
	opEnum             // an enum ordinal mapped to the reader's symbols
	opRecord
	opArray
	opMap
	opWriterUnion // a union in the file: branch lengths pick the value
	opReaderUnion // a non-union in the file read as a branch of a union
)

// plan is a compiled step of reading the reader schema from the file.
type plan struct {
	op   op
	step func(ar *AvroReader, b []byte, p *plan, sk sink, depth int) ([]byte, error) // stepFor(op)
	w    *layout.Node                                                                // the file's position
	rs   *schema.Schema                                                              // the reader's schema
	bin  binOp                                                                       // opSimple: the binary sink's way

	// opEnum: reader ordinal of each writer ordinal, -1 where the reader
	// lacks the symbol and has no default.
	enumMap []int32

	// opRecord: the reader's fields in order.
	fields []field

	// opArray, opMap: the items or values; opReaderUnion: the value.
	items *plan
	// opArray: the items read no column, so they are all alike.
	itemsFree bool

	// opWriterUnion: per writer branch, its plan (nil for null, or when the
	// reader cannot take it: then branchErr says why) and the reader's
	// branch index (-1 when the reader schema is not a union).
	branches  []*plan
	readerIdx []int
	branchErr []error
	nullIdx   int   // reader branch for the writer's null, -1 if not a union
	nullErr   error // when the reader cannot take a null

	// opReaderUnion: the reader branch taken.
	branch int
}

type field struct {
	name     string
	p        *plan // nil: use the default
	def      any   // native default
	defBin   []byte
	defJSON  []byte
	defPlain []byte
	key      []byte // the field's name as a JSON key: "name":
	plainKey []byte // plain JSON's key: the field's name in its source data (schema.Field.SourceName)
}

type compiler struct {
	lenient bool         // selected fields a record lacks are ignored (a filter's reader)
	cols    map[int]bool // columns the plan reads
	match   func(reader *schema.Field, writer *schema.Schema) int
}

func (c *compiler) use(col int) {
	if col >= 0 {
		c.cols[col] = true
	}
}

// incompatible reports a place where the reader schema cannot read the
// file's: a *schema.Error of no record, with the path.
func incompatible(path, format string, args ...any) error {
	return &schema.Error{Record: -1, Path: path, Err: fmt.Errorf("%w: %s", ErrIncompatible, fmt.Sprintf(format, args...))}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// maxSelectionDepth bounds how deep a field selection may reach.
const maxSelectionDepth = 1000

// selection is a tree of selected field paths; nil selects everything.
type selection map[string]selection

// parseSelection builds the selection of dotted field paths.
func parseSelection(paths []string) (selection, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	root := selection{}
	for _, p := range paths {
		if p == "" {
			return nil, errors.New("assemble: empty field path")
		}
		if n := strings.Count(p, "."); n >= maxSelectionDepth {
			return nil, fmt.Errorf("assemble: field path of %d parts: at most %d are allowed", n+1, maxSelectionDepth)
		}
		node := root
		parts := strings.Split(p, ".")
		for i, part := range parts {
			if part == "" {
				return nil, fmt.Errorf("assemble: field path %q has an empty part", p)
			}
			next, ok := node[part]
			if i == len(parts)-1 {
				node[part] = nil // everything below
				break
			}
			if ok && next == nil {
				break // already selected whole
			}
			if !ok {
				next = selection{}
				node[part] = next
			}
			node = next
		}
	}
	return root, nil
}

// compile resolves the reader schema rs against the file position w,
// keeping only the selected fields of records, and gives the plan its
// step.
func (c *compiler) compile(w *layout.Node, rs *schema.Schema, path string, sel selection) (*plan, error) {
	p, err := c.compileNode(w, rs, path, sel)
	if err == nil {
		p.step = stepFor(p.op)
	}
	return p, err
}

// compileNode is compile but for the step.
func (c *compiler) compileNode(w *layout.Node, rs *schema.Schema, path string, sel selection) (*plan, error) {
	ws := w.Schema
	if ws.Kind == schema.Union {
		return c.writerUnion(w, rs, path, sel)
	}
	if rs.Kind == schema.Union {
		j := matchBranch(rs, ws)
		if j < 0 {
			return nil, incompatible(path, "the file's %s matches no branch of the reader's union", ws.FullName())
		}
		if rs.Branches[j].Kind == schema.Null {
			return &plan{op: opReaderUnion, w: w, rs: rs, branch: j}, nil
		}
		inner, err := c.compile(w, rs.Branches[j], path, sel)
		if err != nil {
			return nil, err
		}
		return &plan{op: opReaderUnion, w: w, rs: rs, branch: j, items: inner}, nil
	}
	if !compatible(ws, rs) {
		return nil, incompatible(path, "the file's %s cannot be read as %s", describe(ws), describe(rs))
	}
	switch rs.Kind {
	case schema.Record:
		p := &plan{op: opRecord, w: w, rs: rs}
		for name := range sel {
			if rs.Field(name) == nil && !c.lenient {
				return nil, incompatible(join(path, name), "selected, but %s has no such field", rs.Name)
			}
		}
		readBy := make([]string, len(ws.Fields)) // the reader field reading each writer field
		byName := fieldIndex(ws)
		for _, rf := range rs.Fields {
			sub, selected := sel[rf.Name]
			if sel != nil && !selected {
				continue
			}
			k := c.writerField(ws, rf, byName)
			if k >= 0 {
				// Each writer field's values are read once.
				if readBy[k] != "" {
					return nil, incompatible(join(path, rf.Name), "reads the file's field %s, which field %s reads already", ws.Fields[k].Name, readBy[k])
				}
				readBy[k] = rf.Name
			}
			f := field{name: rf.Name, key: append(jsontext.AppendString(nil, rf.Name), ':')}
			f.plainKey = f.key
			if src := rf.SourceName(); src != rf.Name {
				f.plainKey = append(jsontext.AppendString(nil, src), ':')
			}
			if k < 0 {
				if !rf.HasDefault {
					return nil, incompatible(join(path, rf.Name), "not in the file and has no default")
				}
				var err error
				if f.def, err = typemap.DefaultValue(rf.Type, rf.Default); err != nil {
					return nil, incompatible(join(path, rf.Name), "bad default: %v", err)
				}
				if f.defBin, err = encodeDefault(rf.Type, f.def); err != nil {
					return nil, incompatible(join(path, rf.Name), "bad default: %v", err)
				}
				if f.defJSON, err = avrojson.Append(nil, rf.Type, f.def); err != nil {
					return nil, incompatible(join(path, rf.Name), "bad default: %v", err)
				}
				if f.defPlain, err = appendPlainNative(nil, rf.Type, f.def); err != nil {
					return nil, incompatible(join(path, rf.Name), "bad default: %v", err)
				}
			} else {
				var err error
				if f.p, err = c.compile(w.Fields[k], rf.Type, join(path, rf.Name), sub); err != nil {
					return nil, err
				}
			}
			p.fields = append(p.fields, f)
		}
		return p, nil
	case schema.Array, schema.Map:
		op := opArray
		if rs.Kind == schema.Map {
			op = opMap
			c.use(w.KeyCol)
		}
		c.use(w.Col)
		itemSchema := rs.Items
		if rs.Kind == schema.Map {
			itemSchema = rs.Values
		}
		items, err := c.compile(w.Items, itemSchema, path+"[]", sel)
		if err != nil {
			return nil, err
		}
		return &plan{op: op, w: w, rs: rs, items: items, itemsFree: items.free()}, nil
	case schema.Enum:
		p := &plan{op: opEnum, w: w, rs: rs}
		def := int32(-1)
		if rs.EnumDefault != "" {
			def = int32(rs.SymbolIndex(rs.EnumDefault))
		}
		for _, sym := range ws.Symbols {
			k := int32(rs.SymbolIndex(sym))
			if k < 0 {
				k = def
			}
			p.enumMap = append(p.enumMap, k)
		}
		c.use(w.Col)
		return p, nil
	}
	c.use(w.Col)
	return &plan{op: opSimple, w: w, rs: rs, bin: binOpOf(w.Type, rs.Kind)}, nil
}

// binOp is how the binary sink writes a simple value that it neither
// promotes nor checks beyond UTF-8 (appendBinary), binNone for the rest,
// which walkSimple writes.
type binOp uint8

const (
	binNone   binOp = iota
	binBool         // a boolean: one byte
	binInt          // an int, as Avro's int or long
	binLong         // a long
	binFloat        // a float: four bytes
	binDouble       // a double: eight bytes
	binString       // a string, checked to be UTF-8
	binBytes        // bytes
)

// binOpOf returns the binOp of values stored as t read as kind k.
func binOpOf(t format.ValueType, k schema.Kind) binOp {
	switch {
	case t == format.Boolean:
		return binBool
	case t == format.Int && k != schema.Float && k != schema.Double:
		return binInt
	case t == format.Long && k != schema.Float && k != schema.Double:
		return binLong
	case t == format.Float && k == schema.Float:
		return binFloat
	case t == format.Double:
		return binDouble
	case (t == format.String || t == format.Bytes) && k == schema.String:
		return binString
	case (t == format.String || t == format.Bytes) && k == schema.Bytes:
		return binBytes
	}
	return binNone
}

// free reports whether the plan reads no column: every value it reads is
// the same.
func (p *plan) free() bool {
	switch p.op {
	case opSimple:
		return p.w.Type == format.Null
	case opRecord:
		for _, f := range p.fields {
			if f.p != nil && !f.p.free() {
				return false
			}
		}
		return true
	case opWriterUnion:
		for _, c := range p.w.BranchCols {
			if c >= 0 {
				return false
			}
		}
		return true
	case opReaderUnion:
		return p.items == nil || p.items.free()
	}
	return false
}

func (c *compiler) writerUnion(w *layout.Node, rs *schema.Schema, path string, sel selection) (*plan, error) {
	p := &plan{op: opWriterUnion, w: w, rs: rs, nullIdx: -1}
	matched := 0
	for i, wb := range w.Schema.Branches {
		c.use(w.BranchCols[i])
		var target *schema.Schema
		idx := -1
		if rs.Kind == schema.Union {
			if idx = matchBranch(rs, wb); idx >= 0 {
				target = rs.Branches[idx]
			}
		} else if compatible(wb, rs) {
			target = rs
		}
		p.readerIdx = append(p.readerIdx, idx)
		if wb.Kind == schema.Null {
			p.branches = append(p.branches, nil)
			p.branchErr = append(p.branchErr, nil)
			if target == nil {
				p.nullErr = fmt.Errorf("%w: the file holds a null here and the reader's %s cannot take it", ErrIncompatible, describe(rs))
			} else {
				p.nullIdx = idx
				matched++
			}
			continue
		}
		if target == nil {
			p.branches = append(p.branches, nil)
			p.branchErr = append(p.branchErr, fmt.Errorf("%w: the file's branch %s is not in the reader's %s", ErrIncompatible, wb.FullName(), describe(rs)))
			continue
		}
		bp, err := c.compile(w.Branches[i], target, path, sel)
		if err != nil {
			return nil, err
		}
		p.branches = append(p.branches, bp)
		p.branchErr = append(p.branchErr, nil)
		matched++
	}
	if matched == 0 {
		return nil, incompatible(path, "no branch of the file's union %s can be read as %s", describe(w.Schema), describe(rs))
	}
	return p, nil
}

// writerField finds the writer field a reader field reads: by name, then by
// the reader field's aliases, then by the MatchField hook.
func (c *compiler) writerField(ws *schema.Schema, rf *schema.Field, byName map[string]int) int {
	find := func(name string) int {
		if byName != nil {
			if i, ok := byName[name]; ok {
				return i
			}
			return -1
		}
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
	if c.match != nil {
		if k := c.match(rf, ws); k >= 0 && k < len(ws.Fields) {
			return k
		}
	}
	return -1
}

// fieldIndex returns the number of each field of a record of many fields
// by name (the first, for a name given twice), so that matching every
// reader field is not quadratic; nil for a record of few fields, searched
// in order.
func fieldIndex(ws *schema.Schema) map[string]int {
	if len(ws.Fields) < 32 {
		return nil
	}
	m := make(map[string]int, len(ws.Fields))
	for i, f := range ws.Fields {
		if _, dup := m[f.Name]; !dup {
			m[f.Name] = i
		}
	}
	return m
}

// matchBranch returns the reader union branch that reads the writer schema
// ws: first one of the same type (same name for named types), then the
// first it can be promoted to.
func matchBranch(ru *schema.Schema, ws *schema.Schema) int {
	for j, b := range ru.Branches {
		if b.Kind == ws.Kind && (!ws.Kind.IsNamed() || sameName(b, ws)) {
			return j
		}
	}
	for j, b := range ru.Branches {
		if b.Kind != schema.Union && compatible(ws, b) && (!ws.Kind.IsNamed() || sameName(b, ws) || b.Kind != ws.Kind) {
			return j
		}
	}
	return -1
}

// sameName reports whether two named types match: by unqualified name, or
// by one of the reader's aliases.
func sameName(r, w *schema.Schema) bool {
	if r.ShortName() == w.ShortName() || r.Name == w.Name {
		return true
	}
	for _, a := range r.Aliases {
		if a == w.Name || a == w.ShortName() {
			return true
		}
	}
	return false
}

// compatible reports whether values of writer schema ws (not a union) can
// be read as reader schema rs (not a union).
func compatible(ws, rs *schema.Schema) bool {
	if rs.Kind == schema.Union {
		return matchBranch(rs, ws) >= 0
	}
	switch ws.Kind {
	case schema.Int:
		return rs.Kind == schema.Int || rs.Kind == schema.Long || rs.Kind == schema.Float || rs.Kind == schema.Double
	case schema.Long:
		return rs.Kind == schema.Long || rs.Kind == schema.Float || rs.Kind == schema.Double
	case schema.Float:
		return rs.Kind == schema.Float || rs.Kind == schema.Double
	case schema.String, schema.Bytes:
		return rs.Kind == schema.String || rs.Kind == schema.Bytes
	case schema.Fixed:
		return rs.Kind == schema.Fixed && rs.Size == ws.Size
	}
	return ws.Kind == rs.Kind
}

func describe(s *schema.Schema) string {
	switch {
	case s.Kind == schema.Union:
		d := "union ["
		for i, b := range s.Branches {
			if i > 0 {
				d += ", "
			}
			d += b.FullName()
		}
		return d + "]"
	case s.Kind.IsNamed():
		return s.Kind.String() + " " + s.Name
	}
	return s.Kind.String()
}

// encodeDefault returns the Avro binary encoding of a default value.
func encodeDefault(s *schema.Schema, v any) ([]byte, error) {
	codec, err := goavro.NewCodec(s.String())
	if err != nil {
		return nil, err
	}
	return codec.BinaryFromNative(nil, v)
}
