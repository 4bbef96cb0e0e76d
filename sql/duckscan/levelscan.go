package duckscan

/*
#include "calls.h"

void td_assign_at(duckdb_vector v, idx_t base, const int32_t *pos, const int64_t *ends, const char *data, int64_t n);
*/
import "C"

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/decimal256"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/assemble/levels"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/schema/layout"
)

// levelScan is the plan of a scan by the levels path over the parts of
// one schema: one colPlan per output column read, and the layout's
// column names.
type levelScan struct {
	cols   []*colPlan
	names  []string // the layout's column names, by layout column
	types  []format.ValueType
	reader string // the data set's schema, when the parts' differs (their records are resolved to it); else ""
}

// planLevels returns the levels plan of the output columns cols (indexes
// of bd's columns, -1 for none) over parts of the schema text, the
// data set's or, for a part of its own schema, that part's read as the
// data set's (levels.PlanOptions.Reader). An error says the levels path
// cannot read them, and the scan then reads every part through Arrow
// batches: levels.ErrUnsupported (a resolution the plan does not cover)
// or errNotPlanned (a type the vectors do not take as planned).
func planLevels(bd *bindData, cols []int, text string) (*levelScan, error) {
	ws, err := layout.ParseStored(text, layoutOptions(bd.open))
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	lay, err := layout.New(ws, layoutOptions(bd.open))
	if err != nil {
		return nil, err
	}
	ls := &levelScan{}
	po := &levels.PlanOptions{}
	if text != bd.ds.SchemaText() {
		po.Reader, ls.reader = frontdoor.Schema(bd.ds), bd.ds.SchemaText()
	}
	plan, err := levels.NewPlan(lay, po)
	if err != nil {
		return nil, err
	}
	if bd.record && len(plan.Root.Children) != len(bd.names) {
		return nil, fmt.Errorf("%w: %d fields, %d columns", errNotPlanned, len(plan.Root.Children), len(bd.names))
	}
	for _, c := range lay.Columns {
		ls.names = append(ls.names, c.Name)
		ls.types = append(ls.types, c.Type)
	}
	for out, c := range cols {
		if c < 0 {
			continue
		}
		n := plan.Root
		if bd.record {
			n = plan.Root.Children[c]
		}
		cp, err := planColumn(out, plan, n, bd.types[c])
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", bd.names[c], err)
		}
		for _, l := range cp.leaves {
			l.leaf.Path = bd.names[c]
			if l.leaf.Col >= 0 {
				l.leaf.Path = ls.names[l.leaf.Col]
			}
		}
		ls.cols = append(ls.cols, cp)
	}
	return ls, nil
}

// levelReader reads one unit by the levels path.
type levelReader struct {
	plan     *levelScan
	f        *trevni.File
	rd       *format.Reader
	part     *trevni.Part
	filter   *assemble.AvroReader
	sel      *levels.Selector
	readers  []*levels.Reader // per leaf, in the order of plan's columns (nil for a leaf of the fast path)
	direct   []*directReader  // per leaf, its fast path's reader, or nil
	leaves   []*leafPlan
	varBytes bool  // some leaf adds bytes of its own to its rows' records (see fill)
	fileCols []int // per layout column, its column in the file
	rows     int64 // rows written
	maxBytes int64
	rowBytes []int64 // per row of the chunk, about the bytes of its record
	ctx      context.Context
	hinted   []string // the columns whose rows a unit hints (see moveTo)
}

// openLevels opens the unit u for the levels path, with plan p.
func openLevels(ctx context.Context, bd *bindData, p *levelScan, u unit, part *trevni.Part, f *trevni.File) (*levelReader, error) {
	rd, err := frontdoor.AsTrevni(ctx, f)
	if err != nil {
		return nil, err
	}
	if bd.localPart(part.Name()) {
		rd.SetReadAhead(false)
	}
	lr := &levelReader{plan: p, f: f, rd: rd, part: part, ctx: ctx, maxBytes: assemble.DefaultMaxRecordBytes}
	if bd.open != nil && bd.open.MaxRecordBytes > 0 {
		lr.maxBytes = bd.open.MaxRecordBytes
	}
	lr.fileCols = make([]int, len(p.names))
	for i, name := range p.names {
		c, ok := rd.ColumnIndex(name)
		if !ok {
			return nil, fmt.Errorf("no column %q, which the schema lays out", name)
		}
		m, err := rd.Column(c)
		if err != nil {
			return nil, err
		}
		if m.Type != p.types[i] {
			return nil, fmt.Errorf("column %s is of type %s, where the schema lays out %s", name, m.Type, p.types[i])
		}
		lr.fileCols[i] = c
	}
	end := u.offset + u.count
	// The unit's rows of the columns it reads (the filter's too): a
	// remote part fetches their blocks, and no read runs on into the next
	// unit's. Only those: a column hinted has its block table read, which
	// for a column not read would be fetched for nothing.
	hinted := []string{} // (not nil, which would hint every column)
	seen := map[int]bool{}
	for _, cp := range p.cols {
		for _, l := range cp.leaves {
			for _, c := range l.leaf.Columns() {
				if !seen[c] {
					seen[c] = true
					hinted = append(hinted, p.names[c])
				}
			}
		}
	}
	if bd.filter != "" {
		fields := frontdoor.FilterFields(bd.ds, bd.filter)
		ao := &assemble.Options{Filter: bd.filter, Fields: fields, ReaderSchema: p.reader}
		lr.filter, err = assemble.NewAvroReader(rd, ao)
		if err != nil && fields != nil {
			ao.Fields = nil
			lr.filter, err = assemble.NewAvroReader(rd, ao)
		}
		if err != nil {
			return nil, err
		}
		for _, c := range lr.filter.ColumnsRead() {
			m, err := rd.Column(c)
			if err != nil {
				return nil, err
			}
			hinted = append(hinted, m.Name)
		}
	}
	lr.hinted = hinted
	// The unit's range, before the readers below exist (each bounds its
	// read-ahead to end as it is made).
	if err := lr.moveTo(u); err != nil {
		return nil, err
	}
	for _, cp := range p.cols {
		for _, l := range cp.leaves {
			if !l.flat() || l.fixed == 0 {
				lr.varBytes = true
			}
			if c := l.leaf.Col; c >= 0 && len(l.leaf.Steps) == 0 {
				m, err := rd.Column(lr.fileCols[c])
				if err != nil {
					lr.close()
					return nil, err
				}
				if directLeaf(l, m) {
					cr, err := rd.Values(lr.fileCols[c])
					if err != nil {
						lr.close()
						return nil, fmt.Errorf("column %s: %w", p.names[c], err)
					}
					cr.SetReadAheadEnd(end)
					lr.readers = append(lr.readers, nil)
					lr.direct = append(lr.direct, &directReader{cr: cr, pos: 0})
					lr.leaves = append(lr.leaves, l)
					continue
				}
			}
			r, err := levels.NewReader(&l.leaf, func(c int) (*format.ColumnReader, error) {
				cr, err := rd.Values(lr.fileCols[c])
				if err != nil {
					return nil, fmt.Errorf("column %s: %w", p.names[c], err)
				}
				cr.SetReadAheadEnd(end)
				return cr, nil
			})
			if err != nil {
				lr.close()
				return nil, err
			}
			lr.readers = append(lr.readers, r)
			lr.direct = append(lr.direct, nil)
			lr.leaves = append(lr.leaves, l)
		}
	}
	return lr, nil
}

// moveTo starts reading unit u, a range of the part lr reads: its rows
// hinted, the filter sought to its first and stopped at its end, the
// column readers' read-ahead bounded to it. openLevels starts a unit's
// range this way, and a thread that takes the next range of the same
// part goes on with the readers it has: no file, header, plan or reader
// is opened again, and a block holding rows of both ranges is read once.
func (lr *levelReader) moveTo(u unit) error {
	from, end := u.offset, u.offset+u.count
	if err := lr.f.HintRows(from, end-from, lr.hinted); err != nil {
		return err
	}
	if lr.filter != nil {
		if lr.filter.Row() != from {
			if err := lr.filter.SeekRow(from); err != nil {
				return err
			}
		}
		lr.filter.StopAt(end)
		lr.sel = levels.NewSelector(from, end, -1, lr.filter)
	} else {
		lr.sel = levels.NewSelector(from, end, -1, nil)
	}
	for i, r := range lr.readers {
		if r != nil {
			r.SetReadAheadEnd(end)
		} else if d := lr.direct[i]; d != nil {
			d.cr.SetReadAheadEnd(end)
		}
	}
	return nil
}

// fill reads the next rows into output's vectors and returns how many (0
// at the end of the unit).
func (lr *levelReader) fill(output C.duckdb_data_chunk) (int, error) {
	size := vectorSize()
	segs, n, err := lr.sel.Group(int64(size))
	if err != nil || n == 0 {
		return 0, err
	}
	rows := int(n)
	if lr.varBytes {
		lr.rowBytes = slices.Grow(lr.rowBytes[:0], rows)[:rows]
		clear(lr.rowBytes)
	} else {
		lr.rowBytes = lr.rowBytes[:0]
	}
	var fixed int64 // bytes every row's record takes in flat leaves
	i := 0
	for _, cp := range lr.plan.cols {
		top := C.td_data_chunk_get_vector(output, C.idx_t(cp.out))
		for _, v := range cp.nodes {
			v.vec = vectorOf(v, top)
		}
		for _, l := range cp.leaves {
			for k := range l.pos {
				l.pos[k] = -1
			}
			if l.flat() && l.fixed > 0 {
				fixed += int64(l.fixed)
			}
			if d := lr.direct[i]; d != nil {
				l.node.vec = C.td_data_chunk_get_vector(output, C.idx_t(cp.out))
				got, err := d.read(l, segs)
				if err != nil {
					return 0, fmt.Errorf("column %s: %w", l.leaf.Path, err)
				}
				if got != rows {
					return 0, fmt.Errorf("column %s: %d rows read, %d wanted", l.leaf.Path, got, rows)
				}
				i++
				continue
			}
			err := lr.readers[i].Read(lr.ctx, segs, func(r *levels.Run) error { return lr.write(l, r) })
			if err != nil {
				return 0, fmt.Errorf("column %s: %w", l.leaf.Path, err)
			}
			if l.pos[0]+1 != rows {
				return 0, fmt.Errorf("column %s: %d rows read, %d wanted", l.leaf.Path, l.pos[0]+1, rows)
			}
			for k, own := range l.ownsList {
				if own {
					if C.td_list_vector_set_size(l.lists[k].vec, C.idx_t(l.pos[k+1]+1)) != 0 {
						return 0, fmt.Errorf("column %s: DuckDB cannot size a list vector to %d values", l.leaf.Path, l.pos[k+1]+1)
					}
				}
			}
			i++
		}
	}
	if !lr.varBytes && fixed > lr.maxBytes && rows > 0 {
		return 0, fmt.Errorf("row %d: %w: its record takes about %d bytes, past the %d of max_record_bytes", lr.rowOf(segs, 0), format.ErrRecordSize, fixed, lr.maxBytes)
	}
	for r, b := range lr.rowBytes {
		if b+fixed > lr.maxBytes {
			return 0, fmt.Errorf("row %d: %w: its record takes about %d bytes, past the %d of max_record_bytes", lr.rowOf(segs, r), format.ErrRecordSize, b+fixed, lr.maxBytes)
		}
	}
	lr.rows += n
	return rows, nil
}

// rowOf returns the part's row of the chunk's r-th row.
func (lr *levelReader) rowOf(segs []levels.Segment, r int) int64 {
	for _, s := range segs {
		if s.Keep == nil {
			if int64(r) < s.N {
				return s.First + int64(r)
			}
			r -= int(s.N)
			continue
		}
		for j, k := range s.Keep {
			if k {
				if r == 0 {
					return s.First + int64(j)
				}
				r--
			}
		}
	}
	return -1
}

// vectorOf returns v's vector in this chunk, its column's being top.
func vectorOf(v *vnode, top C.duckdb_vector) C.duckdb_vector {
	if v.parent == nil {
		return top
	}
	p := v.parent.vec
	if v.parent.kind == vList {
		return C.td_list_vector_get_child(p)
	}
	return C.td_struct_vector_get_child(p, C.idx_t(v.child))
}

// flat says whether the leaf is a top-level column's own, with no vector
// above it.
func (l *leafPlan) flat() bool { return len(l.path) == 1 }

// prepare makes the leaf's vectors ready for a run of n levels: the lists
// it owns reserve room for n more elements, and the data of every vector
// on its path is fetched anew (a reserve moves it). A run of n levels
// adds at most n rows at each depth.
func (l *leafPlan) prepare(n int) error {
	for k, own := range l.ownsList {
		if own {
			want := l.pos[k+1] + 1 + n
			if C.td_list_vector_reserve(l.lists[k].vec, C.idx_t(want)) != 0 {
				return fmt.Errorf("DuckDB cannot reserve %d list values", want)
			}
		}
	}
	for _, v := range l.path {
		v.limit = l.pos[v.depth] + 1 + n
		v.valid, v.tags, v.ents = nil, nil, nil
		switch {
		case v.kind == vList && v.depth < len(l.ownsList) && l.ownsList[v.depth]:
			v.ents = unsafe.Slice((*listEntry)(C.td_vector_get_data(v.vec)), v.limit)
		case v.kind == vUnion:
			v.tags = unsafe.Slice((*uint8)(C.td_vector_get_data(C.td_struct_vector_get_child(v.vec, 0))), v.limit)
		}
	}
	return nil
}

// invalid marks row i of v NULL.
func (v *vnode) invalid(i int) {
	if v.valid == nil {
		C.td_vector_ensure_validity_writable(v.vec)
		v.valid = unsafe.Slice((*uint64)(unsafe.Pointer(C.td_vector_get_validity(v.vec))), (v.limit+63)/64)
	}
	v.valid[i/64] &^= 1 << (i % 64)
	if v.kind == vUnion {
		// A NULL union has its tag NULL too.
		tag := C.td_struct_vector_get_child(v.vec, 0)
		C.td_vector_ensure_validity_writable(tag)
		w := unsafe.Slice((*uint64)(unsafe.Pointer(C.td_vector_get_validity(tag))), (v.limit+63)/64)
		w[i/64] &^= 1 << (i % 64)
	}
}

// mark writes row i of an owned vector v for definition level d: NULL
// below its level, else its tag if it is a union's member.
func (v *vnode) mark(d int16, i int) {
	if d < v.def {
		v.invalid(i)
		return
	}
	if v.member >= 0 {
		v.parent.tags[i] = uint8(v.member)
	}
}

// write writes a run of leaf l's levels and values into its vectors.
func (lr *levelReader) write(l *leafPlan, r *levels.Run) error {
	n := len(r.Defs)
	if err := l.prepare(n); err != nil {
		return err
	}
	leaf := l.node
	if l.flat() {
		base := l.pos[0] + 1
		l.pos[0] += n
		if l.maxDef == 0 {
			return lr.values(l, r, base, nil, n)
		}
		l.vpos = l.vpos[:0]
		for i, d := range r.Defs {
			if d == l.maxDef {
				l.vpos = append(l.vpos, int32(base+i))
			} else {
				leaf.invalid(base + i)
			}
		}
		if len(l.vpos) == n {
			return lr.values(l, r, base, nil, n)
		}
		return lr.values(l, r, 0, l.vpos, len(l.vpos))
	}
	depth := leaf.depth
	l.vpos = l.vpos[:0]
	pos := l.pos
	var levelBytes int64 = 16
	if l.leaf.Null {
		levelBytes = 0
	}
	for i, d := range r.Defs {
		k := int(r.Reps[i])
		pos[k]++
		if k > 0 && l.ownsList[k-1] {
			l.lists[k-1].ents[pos[k-1]].length++
		}
		if d == l.maxDef {
			lr.rowBytes[pos[0]] += levelBytes
		}
		for {
			for _, v := range l.owned[k] {
				v.mark(d, pos[k])
			}
			if k == depth {
				break
			}
			lv := l.lists[k]
			if l.ownsList[k] {
				lv.ents[pos[k]] = listEntry{offset: uint64(pos[k+1] + 1)}
			}
			if d < lv.elemDef {
				break
			}
			pos[k+1]++
			if l.ownsList[k] {
				lv.ents[pos[k]].length = 1
			}
			k++
		}
		if k == depth {
			if d == l.maxDef {
				l.vpos = append(l.vpos, int32(pos[k]))
			}
			leaf.mark(d, pos[k])
		}
	}
	if l.fixed == 0 {
		// Byte strings count their length to their row's record.
		start, v := 0, 0
		row := l.pos[0] - rowsIn(r) // the row before the run's first
		for i, d := range r.Defs {
			if r.Reps[i] == 0 {
				row++
			}
			if d == l.maxDef {
				end := r.Ends[v]
				lr.rowBytes[row] += int64(end - start)
				start = end
				v++
			}
		}
	}
	return lr.values(l, r, 0, l.vpos, len(l.vpos))
}

// rowsIn returns the rows a run holds.
func rowsIn(r *levels.Run) int {
	n := 0
	for _, x := range r.Reps {
		if x == 0 {
			n++
		}
	}
	return n
}

// values writes the run's count values into the leaf's vector: at rows
// base, base+1, ... if pos is nil, else at rows pos.
func (lr *levelReader) values(l *leafPlan, r *levels.Run, base int, pos []int32, count int) error {
	if count == 0 {
		return nil
	}
	if count != len(pos) {
		pos = nil
	}
	vec := l.node.vec
	at := func(i int) int {
		if pos == nil {
			return base + i
		}
		return int(pos[i])
	}
	if l.flat() && l.fixed == 0 && pos == nil {
		// Flat byte strings: their record bytes, one value a row.
		start := 0
		for i, end := range r.Ends {
			lr.rowBytes[base+i] += 16 + int64(end-start)
			start = end
		}
	} else if l.flat() && l.fixed == 0 {
		start := 0
		for i, end := range r.Ends {
			lr.rowBytes[pos[i]] += 16 + int64(end-start)
			start = end
		}
	}
	p := C.td_vector_get_data(vec)
	switch l.conv {
	case convNull:
		return nil
	case convBool:
		d := unsafe.Slice((*bool)(p), at(count-1)+1)
		if pos == nil {
			copy(d[base:], r.Bools[:count])
		} else {
			for i, x := range pos {
				d[x] = r.Bools[i]
			}
		}
	case convI32:
		putValues(p, r.I32[:count], base, pos, func(x int32) int32 { return x })
	case convMilli32:
		if err := timesOfDay(r.I32[:count], 1000); err != nil {
			return err
		}
		putValues(p, r.I32[:count], base, pos, func(x int32) int64 { return int64(x) * 1000 })
	case convTimeMicros:
		if err := timesOfDay(r.I64[:count], 1); err != nil {
			return err
		}
		putValues(p, r.I64[:count], base, pos, func(x int64) int64 { return x })
	case convI64:
		putValues(p, r.I64[:count], base, pos, func(x int64) int64 { return x })
	case convMilli64:
		putValues(p, r.I64[:count], base, pos, func(x int64) int64 { return x * 1000 })
	case convNano64:
		putValues(p, r.I64[:count], base, pos, func(x int64) int64 { return floorDiv(x, 1000) })
	case convF32:
		putValues(p, r.F32[:count], base, pos, func(x float32) float32 { return x })
	case convF64:
		putValues(p, r.F64[:count], base, pos, func(x float64) float64 { return x })
	case convBytes:
		ends := r.Ends[:count]
		var e *C.int64_t
		if strconv.IntSize == 64 {
			e = (*C.int64_t)(unsafe.Pointer(unsafe.SliceData(ends)))
		} else {
			e64 := make([]int64, len(ends))
			for i, x := range ends {
				e64[i] = int64(x)
			}
			e = (*C.int64_t)(unsafe.Pointer(unsafe.SliceData(e64)))
		}
		var pp *C.int32_t
		if pos != nil {
			pp = (*C.int32_t)(unsafe.Pointer(unsafe.SliceData(pos)))
		}
		C.td_assign_at(vec, C.idx_t(base), pp, e, bytesPtr(r.Data), C.int64_t(count))
	case convDecimal:
		return lr.decimals(l, p, r, count, at)
	case convDecimalText:
		return lr.decimalTexts(l, vec, r, count, at)
	case convUUID:
		d := unsafe.Slice((*hugeint)(p), at(count-1)+1)
		for i := range count {
			b := r.Data[16*i : 16*i+16]
			d[at(i)] = hugeint{upper: int64(binary.BigEndian.Uint64(b) ^ 1<<63), lower: binary.BigEndian.Uint64(b[8:])}
		}
	case convInterval:
		d := unsafe.Slice((*interval)(p), at(count-1)+1)
		for i := range count {
			b := r.Data[12*i : 12*i+12]
			d[at(i)] = interval{months: int32(binary.LittleEndian.Uint32(b)), days: int32(binary.LittleEndian.Uint32(b[4:])), micros: int64(binary.LittleEndian.Uint32(b[8:])) * 1000}
		}
	default:
		return fmt.Errorf("no conversion %d", l.conv)
	}
	return nil
}

// timesOfDay checks that times, in units of per microseconds, are times
// of a day (0 to 24:00:00 included), as DuckDB's TIME holds them: a TIME
// out of that range makes DuckDB fail with an internal error that ends
// the database.
func timesOfDay[T ~int32 | ~int64](times []T, per int64) error {
	const day = 24 * 60 * 60 * 1000 * 1000
	for _, t := range times {
		if v := int64(t); v < 0 || v > day/per {
			unit := "time-micros"
			if per == 1000 {
				unit = "time-millis"
			}
			return fmt.Errorf("%w: the %s value %d is not a time of day (0 to %d)", format.ErrFormat, unit, v, day/per)
		}
	}
	return nil
}

// putValues writes vs, converted by f, into the vector data p: at rows
// base.. when pos is nil, else at rows pos.
func putValues[S, D any](p unsafe.Pointer, vs []S, base int, pos []int32, f func(S) D) {
	if pos == nil {
		d := unsafe.Slice((*D)(unsafe.Add(p, base*int(unsafe.Sizeof(*new(D))))), len(vs))
		for i, x := range vs {
			d[i] = f(x)
		}
		return
	}
	if len(pos) == 0 {
		return
	}
	d := unsafe.Slice((*D)(p), int(pos[len(pos)-1])+1)
	for i, x := range vs {
		d[pos[i]] = f(x)
	}
}

// decimals writes 16-byte big-endian decimals as DuckDB stores a DECIMAL
// of their precision: 16, 32, 64 or 128-bit integers.
func (lr *levelReader) decimals(l *leafPlan, p unsafe.Pointer, r *levels.Run, count int, at func(int) int) error {
	n := at(count-1) + 1
	for i := range count {
		b := r.Data[16*i : 16*i+16]
		hi, lo := int64(binary.BigEndian.Uint64(b)), binary.BigEndian.Uint64(b[8:])
		j := at(i)
		switch {
		case l.precision <= 4:
			unsafe.Slice((*int16)(p), n)[j] = int16(lo)
		case l.precision <= 9:
			unsafe.Slice((*int32)(p), n)[j] = int32(lo)
		case l.precision <= 18:
			unsafe.Slice((*int64)(p), n)[j] = int64(lo)
		default:
			unsafe.Slice((*hugeint)(p), n)[j] = hugeint{lower: lo, upper: hi}
		}
	}
	return nil
}

// decimalTexts writes 32-byte big-endian decimals as their text, as
// Arrow's Decimal256 arrays write it (the Arrow path's VARCHAR).
func (lr *levelReader) decimalTexts(l *leafPlan, vec C.duckdb_vector, r *levels.Run, count int, at func(int) int) error {
	var v big.Int
	mod := new(big.Int).Lsh(big.NewInt(1), 256)
	for i := range count {
		b := r.Data[32*i : 32*i+32]
		v.SetBytes(b)
		if b[0]&0x80 != 0 {
			v.Sub(&v, mod)
		}
		s := decimal256.FromBigInt(&v).ToBigFloat(l.scale).Text('g', l.precision)
		C.td_vector_assign_string_element_len(vec, C.idx_t(at(i)), bytesPtr([]byte(s)), C.idx_t(len(s)))
	}
	return nil
}

// report returns what the read cost, as levels.ScanReport says it of the
// leaves' readers and the filter's: for each column, the most blocks any
// of its readers read. The leaves of the fast path (levelflat.go) read
// their column through a format.ColumnReader of their own, with no
// levels.Reader, which ScanReport takes: their columns are added to its
// report as it counts a column (addColumnRead).
func (lr *levelReader) report() trevni.PartReport {
	r := trevni.PartReport{Part: lr.part.Name(), Fetched: lr.f.Fetched()}
	scan := levels.ScanReport(lr.rd, lr.readers, lr.filter, lr.rows, func(c int) int { return lr.fileCols[c] })
	for i, d := range lr.direct {
		if d != nil {
			blocks, bytes := d.cr.Loaded()
			addColumnRead(&scan, lr.rd, lr.fileCols[lr.leaves[i].leaf.Col], blocks, bytes)
		}
	}
	r.Scan = frontdoor.ScanReport(scan).(trevni.ScanReport)
	return r
}

// addColumnRead adds to rep a read of blocks of column c (bytes in all),
// as levels.ScanReport counts one: a column's entry keeps its most blocks
// read by any reader; a column not yet in rep is added in its place
// among the columns, in order, with its name and blocks from rd.
func addColumnRead(rep *assemble.ScanReport, rd *format.Reader, c, blocks int, bytes int64) {
	k, found := slices.BinarySearchFunc(rep.Columns, c, func(cs assemble.ColumnScan, c int) int { return cs.Column - c })
	if !found {
		cs := assemble.ColumnScan{Column: c}
		if m, err := rd.Column(c); err == nil {
			cs.Name = m.Name
		}
		if bs, err := rd.Blocks(c); err == nil {
			cs.Blocks = len(bs)
		}
		cs.BlocksSkipped = cs.Blocks
		rep.Columns = slices.Insert(rep.Columns, k, cs)
	}
	cs := &rep.Columns[k]
	if blocks > cs.BlocksRead {
		rep.BytesRead += bytes - cs.BytesRead
		cs.BlocksRead, cs.BytesRead = blocks, bytes
		cs.BlocksSkipped = cs.Blocks - blocks
	}
}

// close closes the readers and the file.
func (lr *levelReader) close() error {
	for i, r := range lr.readers {
		if r != nil {
			r.Close()
		} else if d := lr.direct[i]; d != nil {
			d.cr.Close()
		}
	}
	lr.readers, lr.direct = nil, nil
	var errs []error
	if lr.f != nil {
		errs = append(errs, lr.f.Close())
	}
	return errors.Join(errs...)
}
