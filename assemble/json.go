package assemble

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/avrojson"
	"github.com/trevni-go/trevni/schema"
)

// jsonEntry locates one map entry in a scratch buffer: its raw key at
// [key, text), then its encoded text ("key":value) at [text, end).
type jsonEntry struct{ key, text, end int }

// ReadJSON appends the next record, in Avro's JSON encoding of the reader
// schema, to dst, or returns io.EOF after the last. It writes exactly what
// ToJSON writes for the record (fields in schema order, map keys sorted,
// Java's escapes and float format), straight from the columns without a Go
// value per field.
func (ar *AvroReader) ReadJSON(dst []byte) ([]byte, error) {
	if ar.selective {
		return dst, errors.New("assemble: records with selected fields have no JSON encoding of the schema")
	}
	if err := ar.startRow(); err != nil {
		return dst, err
	}
	out, err := ar.json(dst, ar.root, 0)
	if err != nil {
		return dst, ar.recordError(err)
	}
	ar.row++
	return out, nil
}

func (ar *AvroReader) json(b []byte, p *plan, depth int) ([]byte, error) {
	var err error
	switch p.op {
	case opRecord:
		b = append(b, '{')
		for i, f := range p.fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, f.key...)
			if f.p == nil {
				b = append(b, f.defJSON...)
				continue
			}
			if b, err = ar.json(b, f.p, depth); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	case opArray:
		n, err := ar.length(ar.cols[p.w.Col])
		if err != nil {
			return b, err
		}
		b = append(b, '[')
		for i := 0; i < n; i++ {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = ar.json(b, p.items, depth+1); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case opMap:
		return ar.jsonMap(b, p, depth)
	case opWriterUnion:
		br, err := ar.branch(p.w)
		if err != nil {
			return b, err
		}
		if p.w.Branches[br] == nil {
			if p.nullErr != nil {
				return b, p.nullErr
			}
			return append(b, "null"...), nil
		}
		if p.branchErr[br] != nil {
			return b, p.branchErr[br]
		}
		idx := p.readerIdx[br]
		if idx < 0 {
			return ar.json(b, p.branches[br], depth)
		}
		return ar.jsonBranch(b, p.rs.Branches[idx], p.branches[br], depth)
	case opReaderUnion:
		if p.items == nil {
			return append(b, "null"...), nil
		}
		return ar.jsonBranch(b, p.rs.Branches[p.branch], p.items, depth)
	case opEnum:
		o, err := ar.cols[p.w.Col].ReadInt()
		if err != nil {
			return b, err
		}
		k, err := p.enumOrdinal(o)
		if err != nil {
			return b, err
		}
		return avrojson.AppendString(b, p.rs.Symbols[k]), nil
	}
	return ar.jsonSimple(b, p)
}

// jsonBranch writes a union value: an object whose one key names the branch.
func (ar *AvroReader) jsonBranch(b []byte, branch *schema.Schema, p *plan, depth int) ([]byte, error) {
	b = append(b, '{')
	b = avrojson.AppendString(b, branch.FullName())
	b = append(b, ':')
	b, err := ar.json(b, p, depth)
	if err != nil {
		return b, err
	}
	return append(b, '}'), nil
}

// jsonMap writes a map with its keys sorted, as ToJSON does: each entry is
// encoded into the scratch buffer of the map's depth, after its raw key,
// and the entries are then copied out in key order.
func (ar *AvroReader) jsonMap(b []byte, p *plan, depth int) ([]byte, error) {
	n, err := ar.length(ar.cols[p.w.Col])
	if err != nil {
		return b, err
	}
	for len(ar.jsonScratch) <= depth {
		ar.jsonScratch = append(ar.jsonScratch, nil)
		ar.jsonEntries = append(ar.jsonEntries, nil)
	}
	scratch, entries := ar.jsonScratch[depth][:0], ar.jsonEntries[depth][:0]
	keys := ar.cols[p.w.KeyCol]
	for i := 0; i < n; i++ {
		k, err := keys.ReadBytes()
		if err != nil {
			return b, err
		}
		if !utf8.Valid(k) {
			return b, fmt.Errorf("%w: map key is not valid UTF-8", format.ErrFormat)
		}
		e := jsonEntry{key: len(scratch)}
		scratch = append(scratch, k...)
		e.text = len(scratch)
		scratch = avrojson.AppendStringBytes(scratch, k)
		scratch = append(scratch, ':')
		if scratch, err = ar.json(scratch, p.items, depth+1); err != nil {
			return b, err
		}
		e.end = len(scratch)
		entries = append(entries, e)
	}
	slices.SortStableFunc(entries, func(x, y jsonEntry) int {
		return bytes.Compare(scratch[x.key:x.text], scratch[y.key:y.text])
	})
	b = append(b, '{')
	for i, e := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, scratch[e.text:e.end]...)
	}
	ar.jsonScratch[depth], ar.jsonEntries[depth] = scratch, entries
	return append(b, '}'), nil
}

// jsonSimple writes one simple value, promoted to the reader's type.
func (ar *AvroReader) jsonSimple(b []byte, p *plan) ([]byte, error) {
	c := ar.cols[p.w.Col]
	rk := p.rs.Kind
	switch p.w.Type {
	case format.Null:
		return append(b, "null"...), nil
	case format.Boolean:
		v, err := c.ReadBool()
		if err != nil {
			return b, err
		}
		if v {
			return append(b, "true"...), nil
		}
		return append(b, "false"...), nil
	case format.Int, format.Long:
		v, err := readInteger(c, p.w.Type)
		if err != nil {
			return b, err
		}
		switch rk {
		case schema.Float:
			return avrojson.AppendFloat(b, float64(float32(v)), 32), nil
		case schema.Double:
			return avrojson.AppendFloat(b, float64(v), 64), nil
		}
		return strconv.AppendInt(b, v, 10), nil
	case format.Float:
		v, err := c.ReadFloat()
		if err != nil {
			return b, err
		}
		if rk == schema.Double {
			return avrojson.AppendFloat(b, float64(v), 64), nil
		}
		return avrojson.AppendFloat(b, float64(v), 32), nil
	case format.Double:
		v, err := c.ReadDouble()
		if err != nil {
			return b, err
		}
		return avrojson.AppendFloat(b, v, 64), nil
	}
	v, err := c.ReadBytes()
	if err != nil {
		return b, err
	}
	switch rk {
	case schema.String:
		if !utf8.Valid(v) {
			return b, fmt.Errorf("%w: string is not valid UTF-8", format.ErrFormat)
		}
		return avrojson.AppendStringBytes(b, v), nil
	case schema.Fixed:
		if err := checkFixed(p.rs, v); err != nil {
			return b, err
		}
	}
	return avrojson.AppendBytes(b, v), nil
}
