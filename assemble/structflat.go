package assemble

import (
	"io"
	"reflect"
	"unsafe"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/avrostruct"
	"github.com/trevni-go/trevni/internal/fieldpath"
	"github.com/trevni-go/trevni/internal/utf8check"
	"github.com/trevni-go/trevni/schema"
)

// The flat path of StructReader: when every field of T is a top-level
// boolean, int, long, float, double, string or bytes of the file, read
// into a Go scalar, string or []byte without conversion of type (an int
// into an int64 is fine), and there is no filter, a batch of records is
// filled column by column by the column readers' batch reads (format's
// ReadLongs and the like), with no Avro encoding and decoding per record.
// Anything the batch reads cannot settle (bad data, a string that is not
// UTF-8, a record that may pass the byte budget) sends the columns back
// to the batch's first row and the batch through the general path, which
// gives the records and the error it always gave.

// flatField is one field of T the flat path fills.
type flatField struct {
	off  uintptr
	kind reflect.Kind
	typ  format.ValueType // its column's type
	str  bool             // a string field of the file, checked for UTF-8
	col  *format.ColumnReader
}

// flatPlan is the flat path of a StructReader.
type flatPlan struct {
	fields []flatField
	fixed  int64 // the most bytes the fields other than strings and bytes encode to
	varLen bool  // some field is a string or bytes

	bools  []bool
	i32    []int32
	i64    []int64
	f32    []float32
	f64    []float64
	strLen []int64 // the string and bytes bytes of each record of a batch
}

// planFlat returns the flat plan of reading ar's records through prog,
// or nil when the flat path does not cover them.
func planFlat(ar *AvroReader, prog *avrostruct.Prog) *flatPlan {
	ff := prog.Flat()
	if ff == nil || ar.filter != nil || ar.root == nil || ar.root.op != opRecord || len(ar.root.fields) != len(ff) {
		return nil
	}
	fp := &flatPlan{}
	for i, f := range ar.root.fields {
		p := f.p
		if p == nil || p.op != opSimple || p.w == nil || p.rs == nil || p.w.Kind != p.rs.Kind || p.rs.Logical != schema.LogicalNone ||
			p.w.Schema != nil && p.w.Schema.Logical != schema.LogicalNone {
			return nil
		}
		c := ar.cols[p.w.Col]
		if c == nil || c.Meta().Array || c.Meta().Parent != "" || c.Meta().Type != p.w.Type {
			return nil
		}
		g := flatField{off: ff[i].Off, kind: ff[i].Kind, typ: p.w.Type, str: p.rs.Kind == schema.String, col: c}
		switch {
		case g.kind == reflect.String || g.kind == reflect.Slice:
			if g.typ != format.String && g.typ != format.Bytes {
				return nil
			}
			fp.varLen = true
			fp.fixed += 5 // the length
		case ff[i].Avro != p.rs.Kind:
			return nil
		case g.typ == format.Boolean:
			fp.fixed++
		case g.typ == format.Int:
			fp.fixed += 5
		case g.typ == format.Long:
			fp.fixed += 10
		case g.typ == format.Float:
			fp.fixed += 4
		case g.typ == format.Double:
			fp.fixed += 8
		default:
			return nil
		}
		fp.fields = append(fp.fields, g)
	}
	return fp
}

// readFlat reads up to len(dst) records by the flat path. ok is false
// when the batch must go through the general path (the columns are then
// back where they were).
func (sr *StructReader[T]) readFlat(dst []T) (n int, ok bool, err error) {
	ar, fp := sr.ar, sr.flat
	if ar.limit == 0 || ar.row >= ar.end {
		return 0, true, io.EOF
	}
	n = int(min(int64(len(dst)), ar.end-ar.row))
	if ar.limit > 0 {
		n = int(min(int64(n), ar.limit))
	}
	start := ar.row
	if fp.varLen {
		fp.strLen = grow(fp.strLen, n)
		clear(fp.strLen)
	}
	if sr.dec.Alias {
		sr.buf = sr.buf[:0]
	}
	base := unsafe.Pointer(unsafe.SliceData(dst))
	size := unsafe.Sizeof(dst[0])
	at := func(i int, off uintptr) unsafe.Pointer { return unsafe.Add(base, uintptr(i)*size+off) }
	for fi := range fp.fields {
		f := &fp.fields[fi]
		c := f.col
		var k int
		var rerr error
		switch f.typ {
		case format.Boolean:
			fp.bools = grow(fp.bools, n)
			k, rerr = c.ReadBools(fp.bools)
			for i, v := range fp.bools[:k] {
				*(*bool)(at(i, f.off)) = v
			}
		case format.Int:
			fp.i32 = grow(fp.i32, n)
			k, rerr = c.ReadInts(fp.i32)
			for i, v := range fp.i32[:k] {
				switch f.kind {
				case reflect.Int32:
					*(*int32)(at(i, f.off)) = v
				case reflect.Int64:
					*(*int64)(at(i, f.off)) = int64(v)
				default:
					*(*int)(at(i, f.off)) = int(v)
				}
			}
		case format.Long:
			fp.i64 = grow(fp.i64, n)
			k, rerr = c.ReadLongs(fp.i64)
			if f.kind == reflect.Int64 {
				for i, v := range fp.i64[:k] {
					*(*int64)(at(i, f.off)) = v
				}
			} else {
				for i, v := range fp.i64[:k] {
					*(*int)(at(i, f.off)) = int(v)
				}
			}
		case format.Float:
			fp.f32 = grow(fp.f32, n)
			k, rerr = c.ReadFloats(fp.f32)
			for i, v := range fp.f32[:k] {
				if f.kind == reflect.Float32 {
					*(*float32)(at(i, f.off)) = v
				} else {
					*(*float64)(at(i, f.off)) = float64(v)
				}
			}
		case format.Double:
			fp.f64 = grow(fp.f64, n)
			k, rerr = c.ReadDoubles(fp.f64)
			for i, v := range fp.f64[:k] {
				*(*float64)(at(i, f.off)) = v
			}
		default: // string or bytes
			bad := false
			k, rerr = c.ReadBytesTo(n, func(i int, b []byte) {
				if bad {
					return
				}
				if f.str && !utf8check.Valid(b) {
					bad = true
					return
				}
				fp.strLen[i] += int64(len(b))
				p := at(i, f.off)
				switch {
				case f.kind == reflect.Slice:
					s := (*[]byte)(p)
					*s = append((*s)[:0], b...)
				case sr.dec.Alias && len(b) > 0:
					// Into sr.buf, valid until the next Read, as the
					// general path's aliased strings are.
					from := len(sr.buf)
					sr.buf = append(sr.buf, b...)
					*(*string)(p) = unsafe.String(&sr.buf[from], len(b))
				default:
					s := (*string)(p)
					*s = sr.dec.String(b, *s)
				}
			})
			if bad {
				k = -1
			}
		}
		if rerr != nil || k < n {
			// Back to the batch's first row, for the general path.
			if err := ar.seekColumns(start); err != nil {
				return 0, true, fieldpath.Record(err, start) // as the general path's StartRow
			}
			return 0, false, nil
		}
	}
	if fp.varLen {
		for _, l := range fp.strLen[:n] {
			if fp.fixed+l > ar.maxBytes {
				if err := ar.seekColumns(start); err != nil {
					return 0, true, fieldpath.Record(err, start)
				}
				return 0, false, nil
			}
		}
	} else if fp.fixed > ar.maxBytes {
		if err := ar.seekColumns(start); err != nil {
			return 0, true, fieldpath.Record(err, start)
		}
		return 0, false, nil
	}
	ar.row += int64(n)
	ar.returned += int64(n)
	if ar.limit > 0 {
		ar.limit -= int64(n)
	}
	return n, true, nil
}

// grow returns s resized to n, reusing its memory when it can.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
