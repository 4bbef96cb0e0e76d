package trevniparquet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/apache/arrow-go/v18/parquet"
)

// Some valid footers arrow-go (v18.8.0) refuses, where the Parquet format
// says how to read them and DuckDB does:
//
//   - a column of a logical type it does not know (a newer writer's):
//     LogicalTypes.md says a reader reads it as its physical type (and
//     its converted type, when it has one); arrow-go panics, "invalid
//     logical type" (unknown-logical-type.parquet);
//   - a MAP whose keys are optional (Hive and old parquet-java wrote
//     them so): the format says a key is required, and arrow-go refuses
//     the schema, where DuckDB (and parquet-java) read the map
//     (incorrect_map_schema.parquet).
//
// The footer is rewritten before arrow-go reads it, in the Thrift compact
// protocol it is written in: the unknown logical type is dropped, and the
// map's annotations (MAP on the group, MAP_KEY_VALUE on its repeated
// group) are, so that arrow-go reads a list of key-value structs, which
// the map shape (pqshape.go) makes a map again. Nothing else changes:
// the column chunks stay where they are, so the pages read as written.

// footerFix is what rewriting a footer changed.
type footerFix struct {
	// maps are the paths (names from the root's child) of the MAP
	// groups whose annotations were dropped.
	maps [][]string
	// lz4 are the column chunks (row group, column) whose codec, LZ4,
	// reads as LZ4_RAW (see pqpages.go).
	lz4 map[[2]int]bool
}

// maxThriftDepth bounds the nesting of Thrift structs, lists and maps
// walked in a footer (Parquet's own metadata nests a few levels).
const maxThriftDepth = 64

// errFooterThrift says a footer does not decode as Thrift; the footer is then
// left to arrow-go, which says so in its own terms.
var errFooterThrift = errors.New("footer is not Thrift")

// fixFooter returns r, or a reader of r with its footer rewritten as
// above and the chunks of empty compressed pages moved (pqrelocate.go;
// with verify, the CRCs of the pages rewritten checked), with what was
// changed (nil when nothing). A footer that is not one (too short,
// encrypted, longer than maxBytes, not Thrift) is left to arrow-go to
// refuse; so are pages larger than maxPage.
func fixFooter(r parquet.ReaderAtSeeker, maxBytes, maxPage int64, verify bool) (parquet.ReaderAtSeeker, *footerFix, error) {
	size, err := r.Seek(0, io.SeekEnd)
	if err != nil || size < 12 {
		return r, nil, nil
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return nil, nil, fmt.Errorf("Parquet footer: %w", err)
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if string(tail[4:]) != "PAR1" || n > size-12 || n > maxBytes {
		return r, nil, nil
	}
	meta := make([]byte, n)
	if _, err := r.ReadAt(meta, size-8-n); err != nil {
		return nil, nil, fmt.Errorf("Parquet footer: %w", err)
	}
	out, fix, err := rewriteFileMeta(meta)
	if err != nil {
		return r, nil, nil
	}
	cut := size - 8 - n
	out, segs, err := moveEmptyPages(r, out, cut, maxPage, verify)
	if err != nil {
		if errors.Is(err, errFooterThrift) {
			return r, nil, nil
		}
		return nil, nil, err
	}
	if fix == nil && segs == nil {
		return r, nil, nil
	}
	if fix == nil {
		fix = &footerFix{}
	}
	pr := &patchedFooter{r: r, cut: cut, segs: segs}
	for _, s := range segs {
		pr.moved += s.size()
	}
	pr.tail = append(out, 0, 0, 0, 0, 'P', 'A', 'R', '1')
	binary.LittleEndian.PutUint32(pr.tail[len(out):], uint32(len(out)))
	return pr, fix, nil
}

// patchedFooter reads a file whose footer (the bytes from cut) is segs
// (moved chunks, moved bytes in all) then tail.
type patchedFooter struct {
	r     io.ReaderAt
	cut   int64
	segs  []segment
	moved int64
	tail  []byte
	pos   int64
}

func (p *patchedFooter) size() int64 { return p.cut + p.moved + int64(len(p.tail)) }

func (p *patchedFooter) ReadAt(b []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	n := 0
	if off < p.cut {
		k := min(int64(len(b)), p.cut-off)
		m, err := p.r.ReadAt(b[:k], off)
		n += m
		if err != nil && !(errors.Is(err, io.EOF) && int64(m) == k) {
			return n, err
		}
		off += k
	}
	// The moved chunks.
	at := p.cut
	for _, s := range p.segs {
		if n == len(b) {
			break
		}
		sz := s.size()
		if off >= at+sz {
			at += sz
			continue
		}
		k := min(int64(len(b)-n), at+sz-off)
		if s.b != nil {
			copy(b[n:n+int(k)], s.b[off-at:])
		} else {
			m, err := p.r.ReadAt(b[n:n+int(k)], s.off+off-at)
			if int64(m) < k {
				if err == nil {
					err = io.ErrUnexpectedEOF
				}
				return n + m, err
			}
		}
		n += int(k)
		off += k
		at += sz
	}
	if n < len(b) {
		if t := off - p.cut - p.moved; t >= 0 && t < int64(len(p.tail)) {
			n += copy(b[n:], p.tail[t:])
		}
	}
	if n < len(b) {
		return n, io.EOF
	}
	return n, nil
}

func (p *patchedFooter) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += p.pos
	case io.SeekEnd:
		off += p.size()
	}
	if off < 0 {
		return 0, errors.New("negative position")
	}
	p.pos = off
	return off, nil
}

// Thrift compact protocol types.
const (
	tBoolTrue  = 1
	tBoolFalse = 2
	tByte      = 3
	tI16       = 4
	tI32       = 5
	tI64       = 6
	tDouble    = 7
	tBinary    = 8
	tList      = 9
	tSet       = 10
	tMap       = 11
	tStruct    = 12
)

// thriftField is one field of a struct: its id and type, where its header
// starts, and its value's bytes.
type thriftField struct {
	id              int
	typ             byte
	start, val, end int
}

func uvarint(b []byte, pos int) (uint64, int, error) {
	v, n := binary.Uvarint(b[pos:])
	if n <= 0 {
		return 0, 0, errFooterThrift
	}
	return v, pos + n, nil
}

// readStruct returns the fields of the struct at pos and the position
// after its stop byte.
func readStruct(b []byte, pos, depth int) ([]thriftField, int, error) {
	if depth > maxThriftDepth {
		return nil, 0, errFooterThrift
	}
	var fields []thriftField
	last := 0
	for {
		if pos >= len(b) {
			return nil, 0, errFooterThrift
		}
		start := pos
		h := b[pos]
		pos++
		if h == 0 {
			return fields, pos, nil
		}
		typ := h & 0x0f
		id := last + int(h>>4)
		if h>>4 == 0 {
			v, p, err := uvarint(b, pos)
			if err != nil {
				return nil, 0, err
			}
			id, pos = int(int16(v>>1)^-int16(v&1)), p
		}
		end, err := skipValue(b, pos, typ, depth+1)
		if err != nil {
			return nil, 0, err
		}
		fields = append(fields, thriftField{id: id, typ: typ, start: start, val: pos, end: end})
		last, pos = id, end
	}
}

// skipValue returns the position after a value of type typ at pos.
func skipValue(b []byte, pos int, typ byte, depth int) (int, error) {
	if depth > maxThriftDepth {
		return 0, errFooterThrift
	}
	switch typ {
	case tBoolTrue, tBoolFalse:
		return pos, nil // in the field header (a list's are bytes: see skipElems)
	case tByte:
		if pos >= len(b) {
			return 0, errFooterThrift
		}
		return pos + 1, nil
	case tI16, tI32, tI64:
		_, p, err := uvarint(b, pos)
		return p, err
	case tDouble:
		if pos+8 > len(b) {
			return 0, errFooterThrift
		}
		return pos + 8, nil
	case tBinary:
		n, p, err := uvarint(b, pos)
		if err != nil || n > uint64(len(b)-p) {
			return 0, errFooterThrift
		}
		return p + int(n), nil
	case tList, tSet:
		n, et, p, err := listHeader(b, pos)
		if err != nil {
			return 0, err
		}
		return skipElems(b, p, et, n, depth)
	case tMap:
		n, p, err := uvarint(b, pos)
		if err != nil || n > uint64(len(b)-p) {
			return 0, errFooterThrift
		}
		if n == 0 {
			return p, nil
		}
		if p >= len(b) {
			return 0, errFooterThrift
		}
		kt, vt := b[p]>>4, b[p]&0x0f
		p++
		for range n {
			if p, err = skipElems(b, p, kt, 1, depth); err != nil {
				return 0, err
			}
			if p, err = skipElems(b, p, vt, 1, depth); err != nil {
				return 0, err
			}
		}
		return p, nil
	case tStruct:
		_, p, err := readStruct(b, pos, depth)
		return p, err
	}
	return 0, errFooterThrift
}

// listHeader returns the length and element type of the list at pos, and
// the position of its first element.
func listHeader(b []byte, pos int) (n int, et byte, p int, err error) {
	if pos >= len(b) {
		return 0, 0, 0, errFooterThrift
	}
	h := b[pos]
	p = pos + 1
	et = h & 0x0f
	size := uint64(h >> 4)
	if size == 15 {
		if size, p, err = uvarint(b, p); err != nil {
			return 0, 0, 0, err
		}
	}
	if size > uint64(len(b)-p) { // every element takes a byte at least
		return 0, 0, 0, errFooterThrift
	}
	return int(size), et, p, nil
}

// skipElems returns the position after n elements of type et (of a list,
// set or map) at pos.
func skipElems(b []byte, pos int, et byte, n int, depth int) (int, error) {
	var err error
	for range n {
		if et == tBoolTrue || et == tBoolFalse {
			if pos >= len(b) {
				return 0, errFooterThrift
			}
			pos++
			continue
		}
		if pos, err = skipValue(b, pos, et, depth); err != nil {
			return 0, err
		}
	}
	return pos, nil
}

// appendStruct appends the fields of src (a struct's) but those drop says,
// their headers written anew (a field's id is written as the difference
// from the last one written), and the stop byte.
func appendStruct(out, src []byte, fields []thriftField, drop func(id int) bool) []byte {
	last := 0
	for _, f := range fields {
		if drop(f.id) {
			continue
		}
		if d := f.id - last; d > 0 && d <= 15 {
			out = append(out, byte(d<<4)|f.typ)
		} else {
			out = append(out, f.typ)
			out = binary.AppendUvarint(out, uint64(uint16((f.id<<1)^(f.id>>15))))
		}
		out = append(out, src[f.val:f.end]...)
		last = f.id
	}
	return append(out, 0)
}

// schemaElement is what rewriteFileMeta needs of one SchemaElement.
type schemaElement struct {
	fields     []thriftField
	start, end int
	name       string
	repetition int // -1 when not set
	children   int
	converted  int // -1 when not set
	logical    int // the id of the logical type union's member; 0 when not set, -1 when unknown
	drop       map[int]bool
}

// Field ids of Parquet's Thrift structs (parquet.thrift).
const (
	fileMetaSchema       = 2
	elemRepetition       = 3
	elemName             = 4
	elemNumChildren      = 5
	elemConverted        = 6
	elemLogical          = 10
	convertedMap         = 1
	convertedMapKeyValue = 2
	logicalMap           = 2
	repetitionOptional   = 1
)

// knownLogical says whether arrow-go knows the logical type union member
// of this id (STRING to TIMESTAMP, INTEGER to GEOGRAPHY; 9 was INTERVAL,
// never used).
func knownLogical(id int) bool { return id >= 1 && id <= 18 && id != 9 }

// rewriteFileMeta returns the FileMetaData meta rewritten as fixFooter
// says, and what changed (nil, with meta, when nothing).
func rewriteFileMeta(meta []byte) ([]byte, *footerFix, error) {
	top, _, err := readStruct(meta, 0, 0)
	if err != nil {
		return nil, nil, err
	}
	fix := &footerFix{}
	changed := false
	if at, chunks, err := lz4Codecs(meta, top); err != nil {
		return nil, nil, err
	} else if len(at) > 0 {
		meta = slices.Clone(meta)
		fix.lz4 = map[[2]int]bool{}
		for i, pos := range at {
			meta[pos] = zigzagLZ4Raw
			fix.lz4[chunks[i]] = true
		}
		changed = true
	}
	var list *thriftField
	for i := range top {
		if top[i].id == fileMetaSchema && top[i].typ == tList {
			list = &top[i]
		}
	}
	if list == nil {
		if changed {
			return meta, fix, nil
		}
		return meta, nil, nil
	}
	n, et, pos, err := listHeader(meta, list.val)
	if err != nil || et != tStruct {
		return nil, nil, errFooterThrift
	}
	elems := make([]schemaElement, 0, min(n, 1<<16))
	for range n {
		fields, end, err := readStruct(meta, pos, 2)
		if err != nil {
			return nil, nil, err
		}
		e := schemaElement{fields: fields, start: pos, end: end, repetition: -1, converted: -1}
		for _, f := range fields {
			switch {
			case f.id == elemName && f.typ == tBinary:
				_, p, _ := uvarint(meta, f.val)
				e.name = string(meta[p:f.end])
			case f.id == elemRepetition && f.typ == tI32:
				v, _, _ := uvarint(meta, f.val)
				e.repetition = int(int32(v>>1) ^ -int32(v&1))
			case f.id == elemNumChildren && f.typ == tI32:
				v, _, _ := uvarint(meta, f.val)
				e.children = int(int32(v>>1) ^ -int32(v&1))
			case f.id == elemConverted && f.typ == tI32:
				v, _, _ := uvarint(meta, f.val)
				e.converted = int(int32(v>>1) ^ -int32(v&1))
			case f.id == elemLogical && f.typ == tStruct:
				members, _, err := readStruct(meta, f.val, 3)
				if err != nil {
					return nil, nil, err
				}
				e.logical = -1
				for _, m := range members {
					if knownLogical(m.id) {
						e.logical = m.id
					}
				}
			}
		}
		elems = append(elems, e)
		pos = end
	}
	for i := range elems {
		if elems[i].logical == -1 {
			elems[i].dropField(elemLogical)
			changed = true
		}
	}
	// The MAP groups whose keys are optional: walk the tree the elements
	// list depth first (each group followed by its children).
	var path []string
	var walk func(i, depth int) (int, error)
	walk = func(i, depth int) (int, error) {
		if i >= len(elems) || depth > maxThriftDepth {
			return 0, errFooterThrift
		}
		e := &elems[i]
		if depth > 0 {
			path = append(path, e.name)
			defer func() { path = path[:len(path)-1] }()
		}
		isMap := e.converted == convertedMap || e.logical == logicalMap
		if isMap && e.children == 1 && i+2 < len(elems) && elems[i+1].children >= 1 && elems[i+2].repetition == repetitionOptional {
			e.dropField(elemConverted)
			e.dropField(elemLogical)
			if elems[i+1].converted == convertedMapKeyValue {
				elems[i+1].dropField(elemConverted)
			}
			fix.maps = append(fix.maps, append([]string(nil), path...))
			changed = true
		}
		next := i + 1
		if e.children < 0 || e.children > len(elems) {
			return 0, errFooterThrift
		}
		for range e.children {
			var err error
			if next, err = walk(next, depth+1); err != nil {
				return 0, err
			}
		}
		return next, nil
	}
	if len(elems) > 0 {
		if _, err := walk(0, 0); err != nil {
			return nil, nil, err
		}
	}
	if !changed {
		return meta, nil, nil
	}
	if fix.maps == nil && !slices.ContainsFunc(elems, func(e schemaElement) bool { return e.drop != nil }) {
		return meta, fix, nil
	}
	out := make([]byte, 0, len(meta))
	out = append(out, meta[:list.val]...)
	out = append(out, meta[list.val:elems[0].start]...) // the list's header, as it was
	for _, e := range elems {
		if e.drop == nil {
			out = append(out, meta[e.start:e.end]...)
			continue
		}
		out = appendStruct(out, meta, e.fields, func(id int) bool { return e.drop[id] })
	}
	out = append(out, meta[list.end:]...)
	return out, fix, nil
}

// Field ids of the structs that lead to a column chunk's codec, and the
// codec's values (as one-byte zigzag varints).
const (
	fileMetaRowGroups = 4
	rowGroupColumns   = 1
	chunkMetaData     = 3
	columnMetaCodec   = 4
	zigzagLZ4         = 5 << 1
	zigzagLZ4Raw      = 7 << 1
)

// lz4Codecs returns the positions in meta (a FileMetaData, whose fields
// are top) of the codec values of the column chunks compressed with LZ4,
// and the chunks (row group, column).
func lz4Codecs(meta []byte, top []thriftField) ([]int, [][2]int, error) {
	var (
		at     []int
		chunks [][2]int
	)
	for _, f := range top {
		if f.id != fileMetaRowGroups || f.typ != tList {
			continue
		}
		n, et, pos, err := listHeader(meta, f.val)
		if err != nil || et != tStruct {
			return nil, nil, errFooterThrift
		}
		for g := range n {
			rg, end, err := readStruct(meta, pos, 1)
			if err != nil {
				return nil, nil, err
			}
			pos = end
			for _, cf := range rg {
				if cf.id != rowGroupColumns || cf.typ != tList {
					continue
				}
				m, et, cpos, err := listHeader(meta, cf.val)
				if err != nil || et != tStruct {
					return nil, nil, errFooterThrift
				}
				for c := range m {
					chunk, end, err := readStruct(meta, cpos, 2)
					if err != nil {
						return nil, nil, err
					}
					cpos = end
					for _, mf := range chunk {
						if mf.id != chunkMetaData || mf.typ != tStruct {
							continue
						}
						cmd, _, err := readStruct(meta, mf.val, 3)
						if err != nil {
							return nil, nil, err
						}
						for _, k := range cmd {
							if k.id == columnMetaCodec && k.typ == tI32 && k.end == k.val+1 && meta[k.val] == zigzagLZ4 {
								at = append(at, k.val)
								chunks = append(chunks, [2]int{g, c})
							}
						}
					}
				}
			}
		}
	}
	return at, chunks, nil
}

// dropField marks the field of this id to be left out.
func (e *schemaElement) dropField(id int) {
	for _, f := range e.fields {
		if f.id == id {
			if e.drop == nil {
				e.drop = map[int]bool{}
			}
			e.drop[id] = true
		}
	}
}
