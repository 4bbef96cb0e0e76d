package trevni1

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/avrobin"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/coltype"
)

// Source is a version-1 file's records as the columns of the version-2
// file of the same records: a [format.Source], whose column layout is the
// one Java's AvroColumnator gives the file's Avro schema (package
// schema/layout, which the tests compare it with): an array, a map and
// each non-null branch of a union become an array column of lengths. Each
// version-2 column is made from one version-1 column, a block from each of
// its blocks, as it is read: the array lengths from the repetition and
// definition levels (of the first leaf under the array), the values from
// the entries that hold one, re-encoded where version 2 encodes them
// otherwise (fixed8, fixed16, fixed32 and fixed64 as varints; a timestamp
// as the record {nanosOfDay, julianDay}, two columns). A
// [format.NewSourceReader] of it reads the records as those of the
// version-2 copy ToV2 would write, with no copy.
//
// The blocks of a column made from a version-1 column with repetition are
// cut by rows (see cutRows): a block of such a column holds whole records,
// but how many only its repetition levels say, which are learned as the
// blocks are read rather than counted up front.
type Source struct {
	rd   *Reader
	meta format.MetaData
	cols []sourceCol

	cuts        [][]format.BlockInfo // by version-1 column: the blocks of the columns made from it
	entryStarts [][]int64            // by version-1 column: the entries before each block

	mu     sync.Mutex
	starts [][]int64     // by version-1 column: the records before each block, as far as known
	caches []*blockCache // by version-1 column: for those read by several readers
}

// sourceCol is one version-2 column and how it is made.
type sourceCol struct {
	meta format.MetaData
	leaf int  // the version-1 column it is made from
	kind byte // colValues, or the node kind of its lengths
	// For lengths: the levels below which an entry starts an occurrence of
	// the node (rep <= ctxRep, def >= ctxDef), and the node's own (def
	// at which it is present or not empty, rep of its next item).
	ctxRep, ctxDef, def, rep int
	inline                   bool // lengths followed by their values (simple items)
	part                     byte // of a timestamp: 1 nanosOfDay, 2 julianDay
	typ                      format.ValueType
	// parent is the version-2 column of the array (or union branch) the
	// column lies in, -1 for none. Where it is made from another
	// version-1 column (check), the column's levels must describe the
	// same occurrences of it, record by record: a reader of the parent's
	// version-1 column checks them as each block is made.
	parent int
	check  bool
}

const (
	colValues   byte = iota
	colArray         // an array or a map: as many as the items
	colOptional      // the branch of ["null", T]: 0 or 1
	colOne           // the branch of [T]: 1
)

// NewSource returns the Source of rd's records, of the Avro schema
// rd.AvroSchema returns. The file's columns must be those the schema lays
// out (as for NewRecordReader).
func NewSource(rd *Reader) (*Source, error) {
	text, err := rd.AvroSchema()
	if err != nil {
		return nil, err
	}
	s, err := schema.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("trevni1: %s: %w", KeyAvroSchema, err)
	}
	p, err := newPlan(s)
	if err != nil {
		return nil, fmt.Errorf("trevni1: %s: %w", KeyAvroSchema, err)
	}
	if err := rd.checkPlan(p); err != nil {
		return nil, err
	}
	src := &Source{rd: rd, cuts: make([][]format.BlockInfo, len(rd.cols)), entryStarts: make([][]int64, len(rd.cols)), starts: make([][]int64, len(rd.cols))}
	for l := range rd.cols {
		src.cuts[l] = cutRows(rd, l)
		blocks := rd.blocks[l]
		es := make([]int64, len(blocks)+1)
		for b, bi := range blocks {
			es[b+1] = es[b] + bi.Rows
		}
		src.entryStarts[l] = es
		if rd.cols[l].MaxRep == 0 {
			src.starts[l] = es // an entry a record: all known
		} else {
			src.starts[l] = []int64{0}
			if rd.rows == 0 && es[len(blocks)] > 0 {
				return nil, rd.colErr(l, -1, -1, rd.starts[l], fmt.Errorf("%w: %d entries in a file of no records", ErrFormat, es[len(blocks)]))
			}
		}
	}
	src.meta.SetString(KeyAvroSchema, text)
	b := &sourceBuilder{src: src}
	if err := b.node(p.root, s, "", true, -1); err != nil {
		return nil, err
	}
	// A version-1 column read by more than one reader (behind two
	// version-2 columns, or as a parent's for the sibling check) keeps
	// its last blocks for the others.
	readers := make([]int, len(rd.cols))
	levelsOnly := make([]bool, len(rd.cols)) // a reader of the column reads its levels only
	for i := range src.cols {
		c := &src.cols[i]
		readers[c.leaf]++
		if c.kind != colValues && !c.inline {
			levelsOnly[c.leaf] = true
		}
		if c.parent >= 0 && src.cols[c.parent].leaf != c.leaf {
			c.check = true
			readers[src.cols[c.parent].leaf]++
			levelsOnly[src.cols[c.parent].leaf] = true
		}
	}
	src.caches = make([]*blockCache, len(rd.cols))
	for l, n := range readers {
		if n > 1 {
			src.caches[l] = newBlockCache(rd)
			src.caches[l].keep = levelsOnly[l]
		}
	}
	return src, nil
}

// checkPlan checks that the file's columns are those plan p lays out.
func (rd *Reader) checkPlan(p *plan) error {
	if len(p.cols) != len(rd.cols) {
		return fmt.Errorf("%w: %s lays out %d columns, the file has %d", ErrFormat, KeyAvroSchema, len(p.cols), len(rd.cols))
	}
	for i, want := range p.cols {
		got := &rd.cols[i]
		if got.Type != want.Type || got.MaxDef != want.MaxDef || got.MaxRep != want.MaxRep {
			return rd.colErr(i, -1, -1, rd.starts[i], fmt.Errorf("%w: column is %s with levels %d/%d; %s lays out field %s as %s with %d/%d",
				ErrFormat, got.Type, got.MaxDef, got.MaxRep, KeyAvroSchema, want.Name, want.Type, want.MaxDef, want.MaxRep))
		}
	}
	return nil
}

// sourceBuilder lays out the version-2 columns, following the rules of
// package schema/layout (Java's AvroColumnator).
type sourceBuilder struct {
	src *Source
}

// add appends a column and returns its index.
func (b *sourceBuilder) add(name string, t format.ValueType, parent int, array bool, c sourceCol) int {
	c.meta.SetString(format.KeyName, name)
	c.meta.SetString(format.KeyType, t.String())
	if parent >= 0 {
		c.meta.SetString(format.KeyParent, b.src.cols[parent].meta.GetString(format.KeyName))
	}
	if array {
		c.meta.SetString(format.KeyArray, "")
	}
	c.typ = t
	c.parent = parent
	b.src.cols = append(b.src.cols, c)
	return len(b.src.cols) - 1
}

// node lays out plan node n of schema s at path, under column parent.
func (b *sourceBuilder) node(n *node, s *schema.Schema, path string, top bool, parent int) error {
	if t, ok := coltype.Of(s); ok {
		b.add(path, t, parent, false, sourceCol{leaf: n.lo, kind: colValues})
		return nil
	}
	switch {
	case n.kind == nLeaf: // a timestamp: a record of two fields
		b.add(path+"#nanosOfDay", format.Long, parent, false, sourceCol{leaf: n.lo, kind: colValues, part: 1})
		b.add(path+"#julianDay", format.Int, parent, false, sourceCol{leaf: n.lo, kind: colValues, part: 2})
	case n.kind == nRecord:
		for i, f := range s.Fields {
			p := f.Name
			if !top {
				p = path + "#" + f.Name
			}
			if err := b.node(n.children[i], f.Type, p, false, parent); err != nil {
				return err
			}
		}
	case n.kind == nArray:
		return b.repeated(n, n.children[0], s.Items, path+"[]", parent, sourceCol{kind: colArray, ctxRep: n.rep - 1, ctxDef: n.def - 1})
	case n.kind == nMap:
		c := b.add(path+">", format.Null, parent, true, sourceCol{leaf: n.lo, kind: colArray, ctxRep: n.rep - 1, ctxDef: n.def - 1, def: n.def, rep: n.rep})
		b.add(path+">key", format.String, c, false, sourceCol{leaf: n.children[0].lo, kind: colValues})
		return b.node(n.children[1], s.Values, path+">value", false, c)
	case n.kind == nOptional || n.kind == nUnion1:
		br := s.Branches[n.valIdx]
		kind, ctxDef := colOptional, n.def-1
		if n.kind == nUnion1 {
			br, kind, ctxDef = s.Branches[0], colOne, n.def
		}
		p := br.FullName()
		if !top {
			p = path + "/" + p
		}
		return b.repeated(n, n.children[0], br, p, parent, sourceCol{kind: kind, ctxRep: n.rep, ctxDef: ctxDef})
	default:
		return fmt.Errorf("%w: %s: no version-2 layout for %s", ErrFormat, path, s.Kind)
	}
	return nil
}

// repeated lays out the array column at path of node n, whose elements
// (node elem, of schema es) it holds when they are simple, or else its
// children do.
func (b *sourceBuilder) repeated(n, elem *node, es *schema.Schema, path string, parent int, c sourceCol) error {
	c.leaf, c.def, c.rep = n.lo, n.def, n.rep
	if t, ok := coltype.Of(es); ok {
		c.inline = true
		b.add(path, t, parent, true, c)
		return nil
	}
	col := b.add(path, format.Null, parent, true, c)
	return b.node(elem, es, path, false, col)
}

// RowCount returns the file's records.
func (s *Source) RowCount() int64 { return s.rd.rows }

// Meta returns the file metadata: the Avro schema (avro.schema).
func (s *Source) Meta() *format.MetaData { return &s.meta }

// NumColumns returns the number of version-2 columns.
func (s *Source) NumColumns() int { return len(s.cols) }

// RawColumnMeta returns version-2 column i's metadata.
func (s *Source) RawColumnMeta(i int) *format.MetaData { return &s.cols[i].meta }

// Blocks returns version-2 column i's blocks: those of the version-1
// column it is made from, or, where that has repetition, its rows cut
// into about as many blocks.
func (s *Source) Blocks(i int) ([]format.BlockInfo, error) {
	if i < 0 || i >= len(s.cols) {
		return nil, fmt.Errorf("%w: no column %d", ErrUsage, i)
	}
	return s.cuts[s.cols[i].leaf], nil
}

// OpenColumn returns a reader of version-2 column i's blocks.
func (s *Source) OpenColumn(i int) (format.SourceColumn, error) {
	if i < 0 || i >= len(s.cols) {
		return nil, fmt.Errorf("%w: no column %d", ErrUsage, i)
	}
	c := &s.cols[i]
	values := c.kind == colValues || c.inline
	sc := &sourceColumn{s: s, c: c, k: cursor{s: s, l: c.leaf, cr: s.reader(c.leaf), values: values}, checked: -1, dblock: -1}
	sc.cr = sc.k.cr
	sc.cr.levelsOnly = !values
	if c.check {
		pl := s.cols[c.parent].leaf
		sc.shape = &shapeCheck{k: cursor{s: s, l: pl, cr: s.reader(pl)}, p: &s.cols[c.parent]}
		sc.shape.k.cr.levelsOnly = true
	}
	return sc, nil
}

// reader returns a reader of version-1 column l, sharing its blocks with
// the other readers of it.
func (s *Source) reader(l int) *ColumnReader {
	cr := s.rd.Values(l)
	cr.cache = s.caches[l]
	return cr
}

// sourceColumn makes the blocks of one version-2 column.
type sourceColumn struct {
	s       *Source
	c       *sourceCol
	k       cursor // of the version-1 column
	cr      *ColumnReader
	e       encoder
	shape   *shapeCheck
	checked int // the version-1 block last checked against the parent's column

	// The direct route (direct.go): the next record DirectRead reads, the
	// version-2 block it last entered (-1: none since the last seek), and
	// the blocks entered and their stored bytes.
	drow    int64
	dblock  int
	dblocks int
	dbytes  int64
}

// Close releases the version-1 column readers' buffers.
func (sc *sourceColumn) Close() {
	sc.k.release()
	sc.cr.Close()
	if sc.shape != nil {
		sc.shape.k.release()
		sc.shape.k.cr.Close()
	}
}

// decodeLevels decodes the level arrays of cr's loaded block, n entries,
// into *reps and *defs, whose bytes *held counts in the reader's block
// memory.
func decodeLevels(cr *ColumnReader, reps, defs *[]uint16, held *int64, n int64) error {
	if need := 4 * n; need > *held {
		if !cr.rd.budget.Take(cr.share, need-*held) {
			return cr.fail(fmt.Errorf("%w: the levels of a block of %d entries would take the block buffers of this reader past the %d bytes of ReaderOptions.BlockMemory", ErrLimit, n, cr.rd.budget.Limit))
		}
		*held = need
		*reps, *defs = make([]uint16, n), make([]uint16, n)
	}
	*reps, *defs = (*reps)[:n], (*defs)[:n]
	unpack(*reps, cr.reps, cr.repBits, 0)
	unpack(*defs, cr.defs, cr.defBits, uint16(cr.c.MaxDef))
	return nil
}

// bitLevels holds the eight levels of each byte of a one-bit level array.
var bitLevels = func() (t [256][8]uint16) {
	for c := range t {
		for k := range t[c] {
			t[c][k] = uint16(c >> k & 1)
		}
	}
	return t
}()

// unpack decodes len(out) levels of w bits each from b (all full when w
// is 0).
func unpack(out []uint16, b []byte, w int, full uint16) {
	switch w {
	case 0:
		for i := range out {
			out[i] = full
		}
	case 1:
		i := 0
		for _, c := range b {
			if i+8 > len(out) {
				for k := 0; i < len(out); k++ {
					out[i] = uint16(c >> k & 1)
					i++
				}
				return
			}
			*(*[8]uint16)(out[i : i+8]) = bitLevels[c]
			i += 8
		}
	default:
		for i := range out {
			out[i] = uint16(bitsAt(b, int64(i)*int64(w), w))
		}
	}
}

// Block appends the version-2 encoding of block b to dst: the records it
// holds, from the version-1 blocks that hold them.
func (sc *sourceColumn) Block(b int, dst []byte) ([]byte, error) {
	cut := sc.s.cuts[sc.c.leaf]
	if b < 0 || b >= len(cut) {
		return dst, fmt.Errorf("%w: no block %d", ErrUsage, b)
	}
	k, cr := &sc.k, sc.cr
	if cut[b].Rows == 0 {
		// A block of no entries, of a column without repetition (those
		// with it are cut into blocks of rows).
		if err := k.load(b, cut[b].FirstRow); err != nil {
			return dst, err
		}
		if b == len(cut)-1 {
			return dst, k.end()
		}
		return dst, nil
	}
	if err := k.seek(cut[b].FirstRow); err != nil {
		return dst, err
	}
	sc.e = encoder{b: dst}
	for rows := cut[b].Rows; rows > 0; {
		n := k.entries()
		if cr.entry >= n {
			if err := k.nextBlock(); err != nil {
				return sc.e.b, err
			}
			continue
		}
		if sc.shape != nil && sc.checked != cr.block {
			if err := sc.checkShape(); err != nil {
				return sc.e.b, err
			}
			sc.checked = cr.block
		}
		e := cr.entry
		end, recs, err := k.recordsEnd(e, rows)
		if err == nil {
			if sc.c.kind == colValues {
				err = sc.values(e, end)
			} else {
				err = sc.lengths(e, end)
			}
		}
		if err != nil {
			return sc.e.b, err
		}
		k.rec += recs
		rows -= recs
	}
	if b == len(cut)-1 {
		return sc.e.b, k.end()
	}
	return sc.e.b, nil
}

// values encodes the values of the loaded block's entries from e to end
// that hold one.
func (sc *sourceColumn) values(e, end int64) error {
	cr, k := sc.cr, &sc.k
	n := k.entries()
	if sc.c.part == 0 {
		if e == 0 && end == n {
			if sc.copyValues(n) {
				return nil
			}
		} else if defined, err := k.countDefined(e, end); err != nil {
			return err
		} else if sc.copyRun(defined) {
			cr.entry, cr.row = cr.entry+(end-e), cr.row+(end-e)
			return nil
		}
	}
	if err := k.levels(); err != nil {
		return err
	}
	max := uint16(cr.c.MaxDef)
	for _, def := range k.defs[e:end] {
		if def == max {
			if err := sc.value(); err != nil {
				return err
			}
		}
		cr.entry++
		cr.row++
	}
	return nil
}

// copyValues copies the values area of a block of n entries, which holds
// the values of the entries that have one, in order: what a column of
// values is in version 2 where it encodes them as version 1 does
// (booleans packed from bit 0, floats little-endian, longs, ints and
// lengths as canonical zig-zag varints). It checks what readValue checks
// of each, and that the area holds as many values as the levels say; it
// returns false, having read nothing, where a value must be encoded again
// (a fixed-size integer, a varint longer than it needs) or the area is
// not as the levels say (the entry by entry reading then says where).
func (sc *sourceColumn) copyValues(n int64) bool {
	cr := sc.cr
	v := cr.values
	switch t := cr.c.Type; t {
	case Null:
	case Boolean:
		if sc.e.bit != 0 {
			return false // the bits would not start a byte
		}
		v = cr.bools[:(cr.count+7)/8]
	case Float, Double:
		// The block's loading checked the area's size.
	case Int, Long:
		if p, ok := canonicalVarints(v, t, cr.count); !ok || p != len(v) {
			return false
		}
	case String, Bytes:
		lo, hi := t.intRange()
		values := int64(0)
		str := t == String || t == Bytes
		for p := 0; p < len(v); values++ {
			if v[p] < 0x80 {
				if !str {
					p++ // one byte: canonical, in range
					continue
				}
				if l := int(v[p] >> 1); v[p]&1 == 0 && l < len(v)-p {
					p += 1 + l // a length of one byte, not negative
					continue
				}
			}
			x, k := avrobin.ConsumeLong(v[p:])
			u := avrobin.EncodeZigZag(x)
			if k < 0 || k != max(1, (bits.Len64(u)+6)/7) {
				return false
			}
			if t == String || t == Bytes {
				if x < 0 || x > int64(len(v)-p-k) {
					return false
				}
				k += int(x)
			} else if x < lo || x > hi {
				return false
			}
			p += k
		}
		if values != cr.count {
			return false
		}
	default:
		return false
	}
	sc.e.b = append(sc.e.b, v...)
	if cr.c.Type == Boolean {
		// Booleans after these, from the next version-1 block, go on in
		// the last byte, whose bits past the values are cleared.
		if sc.e.bit = uint8(cr.count & 7); sc.e.bit != 0 {
			sc.e.b[len(sc.e.b)-1] &= 1<<sc.e.bit - 1
		}
	}
	cr.pos = len(cr.values)
	cr.nonNull = cr.count
	cr.entry += n
	cr.row += n
	return true
}

// canonicalVarints returns the end of the first k values of v, varints of
// type t (Int or Long), and whether they are as readValue reads them and
// version 2 writes them: canonical (no last byte 0 after the first) and in
// the type's range (an int's fifth byte below 16, a long's tenth at most
// 1). The bytes are looked at, not decoded, from the start of a varint:
// the whole varints of eight bytes at once where none needs a closer look
// (no zero byte; for an int, no four continuation bytes in a row), else
// the first varint of the eight bytes alone, found by its stop bit; one
// byte at a time where fewer than eight bytes are left or a varint is
// longer than eight.
func canonicalVarints(v []byte, t Type, k int64) (int, bool) {
	maxLen, lastMax := 10, byte(1)
	if t == Int {
		maxLen, lastMax = 5, 0x0f
	}
	if k == 0 {
		return 0, true
	}
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	p := 0 // the start of a varint
	for {
		for p+8 <= len(v) {
			x := binary.LittleEndian.Uint64(v[p:])
			cont := x & hi
			stops := cont ^ hi
			if stops == 0 {
				break // a varint longer than eight bytes
			}
			if ends := int64(bits.OnesCount64(stops)); ends <= k && (x-lo)&^x&hi == 0 {
				// Whole varints up to the last stop byte, none of them
				// ending in a zero byte, none longer than eight bytes
				// (a long's are not too long); an int's of five
				// bytes have four continuation bytes in a row.
				if c2 := cont & (cont >> 8); t != Int || c2&(c2>>16) == 0 {
					p += (71 - bits.LeadingZeros64(stops)) >> 3
					if k -= ends; k == 0 {
						return p, true
					}
					continue
				}
			}
			// The first varint alone.
			l := bits.TrailingZeros64(stops)>>3 + 1
			c := byte(x >> (8 * (l - 1)))
			if l > maxLen || (c == 0 && l > 1) || (l == maxLen && c > lastMax) {
				return 0, false
			}
			p += l
			if k--; k == 0 {
				return p, true
			}
		}
		// One varint a byte at a time.
		for n := 1; ; n++ {
			if p >= len(v) {
				return 0, false
			}
			c := v[p]
			p++
			if c >= 0x80 {
				if n == maxLen {
					return 0, false
				}
				continue
			}
			if (c == 0 && n > 1) || (n == maxLen && c > lastMax) {
				return 0, false
			}
			break
		}
		if k--; k == 0 {
			return p, true
		}
	}
}

// copyRun copies the next k values of the values area, where version 2
// encodes them as version 1 does (see copyValues), checking what
// readValue checks of each; it returns false, having read nothing, where a
// value must be encoded again or read by readValue (which says what is
// wrong with it).
func (sc *sourceColumn) copyRun(k int64) bool {
	cr := sc.cr
	v := cr.values[cr.pos:]
	p, ok := runEnd(v, cr.c.Type, k)
	if !ok {
		return false
	}
	sc.e.b = append(sc.e.b, v[:p]...)
	cr.pos += p
	cr.nonNull += k
	return true
}

// runEnd returns the end of the first k values of v, a values area of
// type t, and whether they are as readValue reads them and version 2
// encodes them (see copyValues): false for a type version 2 encodes
// otherwise, a value readValue would refuse, or fewer than k values.
func runEnd(v []byte, t Type, k int64) (int, bool) {
	p := 0
	switch t {
	case Float, Double:
		p = int(k) * t.width()
		if k > int64(len(v)) || p > len(v) {
			return 0, false
		}
	case Int, Long:
		return canonicalVarints(v, t, k)
	case String, Bytes:
		return stringsEnd(v, 0, k)
	default:
		return 0, false
	}
	return p, true
}

// stringsEnd returns the end of the k strings (or bytes) of values area v
// from p, and whether they are as runEnd checks them.
func stringsEnd(v []byte, p int, k int64) (int, bool) {
	for ; k > 0; k-- {
		if p < len(v) && v[p] < 0x80 && v[p]&1 == 0 {
			// A length of one byte: canonical, not negative.
			if l := int(v[p] >> 1); l < len(v)-p {
				p += 1 + l
				continue
			}
			return 0, false
		}
		x, n := avrobin.ConsumeLong(v[p:])
		if n < 0 || n != max(1, (bits.Len64(avrobin.EncodeZigZag(x))+6)/7) {
			return 0, false
		}
		if x < 0 || x > int64(len(v)-p-n) {
			return 0, false
		}
		p += n + int(x)
	}
	return p, true
}

// valuesEnd returns the end of the k values of values area v from p, of
// type t, values runEnd has checked.
func valuesEnd(v []byte, p int, t Type, k int64) int {
	switch t {
	case Float, Double:
		return p + int(k)*t.width()
	case Int, Long:
		for ; k > 0; k-- {
			for v[p] >= 0x80 {
				p++
			}
			p++
		}
		return p
	}
	for ; k > 0; k-- {
		p += valueLen(v[p:], t)
	}
	return p
}

// valueLen returns the bytes of the value that starts v, of type t, a
// value runEnd has checked.
func valueLen(v []byte, t Type) int {
	switch t {
	case Float:
		return 4
	case Double:
		return 8
	case Int, Long:
		n := 0
		for v[n] >= 0x80 {
			n++
		}
		return n + 1
	}
	if v[0] < 0x80 {
		return 1 + int(v[0]>>1)
	}
	x, n := avrobin.ConsumeLong(v)
	return n + int(x)
}

// value reads the current entry's value and encodes it.
func (sc *sourceColumn) value() error {
	cr := sc.cr
	if err := cr.readValue(); err != nil {
		return cr.fail(err)
	}
	e := &sc.e
	switch cr.c.Type {
	case Null:
	case Boolean:
		e.bool(cr.i64 != 0)
	case Fixed8, Fixed16, Int, Long, Fixed32, Fixed64:
		e.b = avrobin.AppendLong(e.b, cr.i64)
	case Float:
		e.b = binary.LittleEndian.AppendUint32(e.b, uint32(cr.i64))
	case Double:
		e.b = binary.LittleEndian.AppendUint64(e.b, uint64(cr.i64))
	case String, Bytes:
		e.b = avrobin.AppendLong(e.b, int64(len(cr.bytesV)))
		e.b = append(e.b, cr.bytesV...)
	case Timestamp:
		if sc.c.part == 1 {
			e.b = avrobin.AppendLong(e.b, cr.ts.NanosOfDay)
		} else {
			e.b = avrobin.AppendLong(e.b, int64(int32(cr.ts.JulianDay)))
		}
	}
	return nil
}

// lengths encodes a length for each occurrence of the column's node in the
// block, followed by its values when they are inline. An occurrence starts
// at each entry of repetition level ctxRep or less and definition level
// ctxDef or more (an entry of a lower definition level stands for an
// absent or empty ancestor, where the node has no occurrence), and takes
// the entries up to the next of repetition level ctxRep or less.
func (sc *sourceColumn) lengths(e, n int64) error {
	cr, c := sc.cr, sc.c
	bad := func(format string, args ...any) error {
		return cr.fail(fmt.Errorf("%w: %s", ErrFormat, fmt.Sprintf(format, args...)))
	}
	if cr.c.MaxRep == 1 && cr.c.MaxDef == 1 && c.kind == colArray && c.ctxRep == 0 && c.rep == 1 && c.ctxDef == 0 && c.def == 1 {
		return sc.topArrayLengths(e, n)
	}
	if cr.c.MaxRep == 0 && cr.c.MaxDef == 1 && c.kind == colOptional && c.inline && c.ctxDef == 0 && c.def == 1 {
		return sc.optionalLengths(e, n)
	}
	if err := sc.k.levels(); err != nil {
		return err
	}
	reps, defs := sc.k.reps, sc.k.defs
	for e < n {
		rep, def := int(reps[e]), int(defs[e])
		if rep > c.ctxRep {
			return bad("entry of repetition level %d inside a value that is absent or empty", rep)
		}
		end, items := e+1, int64(1)
		for end < n {
			r := int(reps[end])
			if r <= c.ctxRep {
				break
			}
			if r == c.rep && c.kind == colArray {
				items++
			}
			end++
		}
		if def < c.ctxDef {
			if end > e+1 {
				return bad("entries of repetition level above %d under an absent value", c.ctxRep)
			}
			cr.entry, cr.row, e = cr.entry+1, cr.row+1, e+1
			continue
		}
		if def < c.def {
			if c.kind == colOne {
				return bad("definition level %d where the union's value is always present (definition %d)", def, c.def)
			}
			if end > e+1 {
				return bad("items after an absent or empty value")
			}
			items = 0
		}
		if items > math.MaxInt32 {
			return bad("an array of %d items", items)
		}
		sc.e.length(int32(items))
		if !c.inline || items == 0 {
			cr.entry, cr.row = cr.entry+(end-e), cr.row+(end-e)
			e = end
			continue
		}
		for k := e; k < end; k++ {
			if d := int(defs[k]); d != cr.c.MaxDef {
				return bad("definition level %d where an item needs a value (definition %d)", d, cr.c.MaxDef)
			}
		}
		if sc.copyRun(end - e) {
			cr.entry, cr.row = cr.entry+(end-e), cr.row+(end-e)
			e = end
			continue
		}
		for ; e < end; e++ {
			if err := sc.value(); err != nil {
				return err
			}
			cr.entry++
			cr.row++
		}
	}
	return nil
}

// topArrayLengths is lengths for an array of records whose items are
// never null, of a column whose levels are one bit each: an entry of
// repetition level 0 starts a record's array, empty where its definition
// level is 0, and the entries of level 1 after it are its items. It reads
// the bits, not decoded levels.
func (sc *sourceColumn) topArrayLengths(e, n int64) error {
	if sc.fastTopArray(e, n) {
		return nil
	}
	cr, c := sc.cr, sc.c
	defs := cr.defs
	starts := zeroBits{b: cr.reps, n: n, base: -64}
	for e < n {
		end := starts.next(e)
		if defs[e>>3]>>(e&7)&1 == 0 {
			if end > e+1 {
				return cr.fail(fmt.Errorf("%w: items after an absent or empty value", ErrFormat))
			}
			sc.e.length(0)
			cr.entry, cr.row, e = cr.entry+1, cr.row+1, e+1
			continue
		}
		items := end - e
		if items > math.MaxInt32 {
			return cr.fail(fmt.Errorf("%w: an array of %d items", ErrFormat, items))
		}
		sc.e.length(int32(items))
		if c.inline {
			if onesIn(defs, e, end) != items {
				return cr.fail(fmt.Errorf("%w: definition level 0 where an item needs a value (definition 1)", ErrFormat))
			}
			if !sc.copyRun(items) {
				for k := e; k < end; k++ {
					if err := sc.value(); err != nil {
						return err
					}
					cr.entry++
					cr.row++
				}
				e = end
				continue
			}
		}
		cr.entry, cr.row = cr.entry+items, cr.row+items
		e = end
	}
	return nil
}

// optionalLengths is lengths for the value of a ["null", T] of a simple T
// outside any array or optional record, whose column's one-bit definition
// levels say which entries hold it: a length of 1 and the value, or 0.
func (sc *sourceColumn) optionalLengths(e, n int64) error {
	if sc.fastOptional(e, n) {
		return nil
	}
	cr := sc.cr
	defs := cr.defs
	for ; e < n; e++ {
		if defs[e>>3]>>(e&7)&1 == 0 {
			sc.e.b = append(sc.e.b, 0)
		} else {
			sc.e.b = append(sc.e.b, 2) // a length of 1
			if !sc.copyRun(1) {
				if err := sc.value(); err != nil {
					return err
				}
			}
		}
		sc.e.bit = 0
		cr.entry++
		cr.row++
	}
	return nil
}

// fastTopArray is topArrayLengths where every record's levels are as
// they should be and its items' values can be copied (see copyRun): the
// records' lengths, each followed by the values of its items where they
// are inline. The levels are looked at as bits, 64 entries at a time: an
// entry of definition level 0 must have repetition level 0 and so must
// the entry after it (an empty array, alone in its record), the records
// start at the zero bits of the repetition levels; the values are checked
// at once. It returns false, having read nothing, otherwise:
// topArrayLengths then says what is wrong, and where.
func (sc *sourceColumn) fastTopArray(e, n int64) bool {
	cr, c := sc.cr, sc.c
	defs, reps, v, t := cr.defs, cr.reps, cr.values, cr.c.Type
	first := e
	if !emptiesAlone(defs, reps, e, n) {
		return false
	}
	p := cr.pos
	var items int64
	out := sc.e.b
	str := t == String || t == Bytes
	if c.inline {
		items = onesIn(defs, e, n)
		q := len(v) - p // strings are checked as they are copied
		if !str {
			var ok bool
			if q, ok = runEnd(v[p:], t, items); !ok {
				return false
			}
		}
		out = slices.Grow(out, int(n-e)+q)
	} else {
		out = slices.Grow(out, int(n-e))
	}
	// Each record from s to the next zero bit of the repetition levels
	// (the last to n, a zero bit added there), its length and values
	// written into the room made above: a record's length takes no more
	// bytes than its entries, its values are the area's. sdef is the
	// definition bit of entry s, taken with the zero bit that ends the
	// record before it.
	buf, o := out[:cap(out)], len(out)
	s, sdef := e, uint64(0)
	if e < n {
		sdef = uint64(defs[e>>3] >> (e & 7) & 1)
	}
	for i := e &^ 63; i <= n; i += 64 {
		z := ^bitWord(reps, i)
		if i <= e {
			z &= ^uint64(0) << (e + 1 - i)
		}
		if n-i < 64 {
			z &= 1<<(n-i) - 1
			if n > e {
				z |= 1 << (n - i)
			}
		}
		if z == 0 {
			continue
		}
		d := bitWord(defs, i)
		for ; z != 0; z &= z - 1 {
			b := bits.TrailingZeros64(z)
			end := i + int64(b)
			if sdef == 0 {
				buf[o] = 0
				o++
			} else {
				k := end - s
				if k < 64 {
					buf[o] = byte(k) << 1
					o++
				} else if k <= math.MaxInt32 {
					o += copy(buf[o:], avrobin.AppendLong(buf[o:o], k))
				} else {
					return false
				}
				if c.inline {
					w := p
					if str {
						// stringsEnd's lengths of one byte here, the
						// rest there.
						j := k
						for ; j > 0 && w < len(v); j-- {
							b := v[w]
							if b >= 0x80 || b&1 != 0 {
								break
							}
							if l := int(b >> 1); l < len(v)-w {
								w += 1 + l
							} else {
								return false
							}
						}
						if j > 0 {
							var ok bool
							if w, ok = stringsEnd(v, w, j); !ok {
								return false
							}
						}
					} else {
						w = valuesEnd(v, p, t, k)
					}
					o += copy(buf[o:], v[p:w])
					p = w
				}
			}
			s, sdef = end, d>>b&1
		}
	}
	out = buf[:o]
	sc.e.b, sc.e.bit = out, 0
	cr.pos, cr.nonNull = p, cr.nonNull+items
	cr.entry, cr.row = cr.entry+(n-first), cr.row+(n-first)
	return true
}

// emptiesAlone reports whether every entry from e to n (the end of a
// block, or the start of a record) of definition level 0 has repetition
// level 0 and so has the entry after it, of one-bit levels defs and reps,
// looked at 64 entries at a time: an empty (or absent) array alone in its
// record.
func emptiesAlone(defs, reps []byte, e, n int64) bool {
	for i := e &^ 63; i < n; i += 64 {
		m := ^uint64(0)
		if i < e {
			m <<= e - i
		}
		if n-i < 64 {
			m &= 1<<(n-i) - 1
		}
		empty := ^bitWord(defs, i) & m
		r := bitWord(reps, i)
		next := r>>1 | bitWord(reps, i+64)<<63
		if n-i <= 64 {
			next &^= 1 << (n - i - 1) // the entry after the last starts a record, or there is none
		}
		if empty&(r|next) != 0 {
			return false
		}
	}
	return true
}

// bitWord returns the 64 bits of bit stream b from bit i (a multiple of
// 64), those past its end 0.
func bitWord(b []byte, i int64) uint64 {
	k := i >> 3
	if k+8 <= int64(len(b)) {
		return binary.LittleEndian.Uint64(b[k:])
	}
	var buf [8]byte
	if k < int64(len(b)) {
		copy(buf[:], b[k:])
	}
	return binary.LittleEndian.Uint64(buf[:])
}

// fastOptional is optionalLengths where the values of the entries that
// hold one can all be copied (see copyRun), checked at once (ints and
// longs as they are copied): a 0 for each entry without, 2 and the
// value's bytes for each with. It returns false, having read nothing,
// otherwise.
func (sc *sourceColumn) fastOptional(e, n int64) bool {
	cr := sc.cr
	defs, t := cr.defs, cr.c.Type
	v := cr.values[cr.pos:]
	o, p, first := len(sc.e.b), 0, e
	var out []byte
	var k int64
	switch t {
	case Int, Long:
		out = slices.Grow(sc.e.b, int(n-e)+len(v))[:o+int(n-e)+len(v)]
		var ok bool
		if o, p, k, ok = optionalVarints(out, o, defs, e, n, v, t); !ok {
			return false
		}
		out = out[:o]
	default:
		k = onesIn(defs, e, n)
		q, ok := runEnd(v, t, k)
		if !ok {
			return false
		}
		out = slices.Grow(sc.e.b, int(n-e)+q)[:o+int(n-e)+q]
		for ; e < n; e++ {
			if defs[e>>3]>>(e&7)&1 == 0 {
				out[o] = 0
				o++
				continue
			}
			w := valuesEnd(v, p, t, 1)
			out[o] = 2
			o = o + 1 + copy(out[o+1:], v[p:w])
			p = w
		}
	}
	sc.e.b, sc.e.bit = out, 0
	cr.pos, cr.nonNull = cr.pos+p, cr.nonNull+k
	cr.entry, cr.row = cr.entry+(n-first), cr.row+(n-first)
	return true
}

// optionalVarints writes at out[o:] a 0 for each entry from e to n whose
// bit of defs is 0, and 2 and the next varint of values area v for each
// other, checking the varints as canonicalVarints checks them (of type t,
// Int or Long) while they are copied. out has room for a byte an entry
// and the whole of v. It returns the end of what it wrote, the bytes of v
// it took, how many values those are, and false where a varint is not
// canonical, out of range or past v's end.
func optionalVarints(out []byte, o int, defs []byte, e, n int64, v []byte, t Type) (int, int, int64, bool) {
	maxLen, lastMax := 10, byte(1)
	if t == Int {
		maxLen, lastMax = 5, 0x0f
	}
	p, k := 0, int64(0)
	for ; e < n; e++ {
		if defs[e>>3]>>(e&7)&1 == 0 {
			out[o] = 0
			o++
			continue
		}
		out[o] = 2
		o++
		k++
		for l := 1; ; l++ {
			if p >= len(v) {
				return 0, 0, 0, false
			}
			c := v[p]
			out[o] = c
			o, p = o+1, p+1
			if c < 0x80 {
				if (c == 0 && l > 1) || (l == maxLen && c > lastMax) {
					return 0, 0, 0, false
				}
				break
			}
			if l == maxLen {
				return 0, 0, 0, false
			}
		}
	}
	return o, p, k, true
}

// encoder appends version-2 encoded values: varints as Avro's, and
// booleans packed, least significant bit first, a new byte after each
// length.
type encoder struct {
	b   []byte
	bit uint8
}

func (e *encoder) length(n int32) {
	e.bit = 0
	if uint32(n) < 64 {
		e.b = append(e.b, byte(n)<<1)
		return
	}
	e.b = avrobin.AppendLong(e.b, int64(n))
}

func (e *encoder) bool(v bool) {
	if e.bit == 0 {
		e.b = append(e.b, 0)
	}
	if v {
		e.b[len(e.b)-1] |= 1 << e.bit
	}
	e.bit = (e.bit + 1) & 7
}

var _ format.Source = (*Source)(nil)
