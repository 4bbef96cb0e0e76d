package trevniparquet

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"

	flatbuffers "github.com/google/flatbuffers/go"
)

// checkArrowSchema checks the vectors of the Arrow schema a Parquet file
// keeps in its ARROW:schema metadata (an IPC message, base64) before
// arrow-go reads it: arrow-go sizes slices by their counts unchecked, so
// a damaged count would allocate without bound.
func checkArrowSchema(text string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("damaged: %s", panicText(r))
		}
	}()
	b, err := base64.StdEncoding.DecodeString(text)
	if err != nil || len(b) == 0 {
		if b, err = base64.RawStdEncoding.DecodeString(text); err != nil {
			return fmt.Errorf("not base64: %w", err)
		}
	}
	// An IPC message: an optional continuation marker, the length of
	// the flatbuffer, the flatbuffer.
	if len(b) >= 4 && binary.LittleEndian.Uint32(b) == 0xffffffff {
		b = b[4:]
	}
	if len(b) < 4 {
		return errors.New("cut short")
	}
	n := binary.LittleEndian.Uint32(b)
	b = b[4:]
	if uint64(n) > uint64(len(b)) {
		return fmt.Errorf("a message of %d bytes in %d", n, len(b))
	}
	b = b[:n]
	c := &fbCheck{buf: b}
	msg := c.root()
	if hdr := c.table(msg, 2); hdr != nil { // Message.header: the Schema
		c.vector(msg, 4, c.keyValue) // Message.custom_metadata
		c.vector(hdr, 1, c.field)    // Schema.fields
		c.vector(hdr, 2, c.keyValue) // Schema.custom_metadata
		c.vector(hdr, 3, nil)        // Schema.features
	}
	return nil
}

// fbCheck walks a flatbuffer, panicking at a vector past its end.
type fbCheck struct {
	buf   []byte
	depth int
}

func (c *fbCheck) root() *flatbuffers.Table {
	if len(c.buf) < 4 {
		panic("no root")
	}
	return c.at(flatbuffers.GetUOffsetT(c.buf))
}

func (c *fbCheck) at(pos flatbuffers.UOffsetT) *flatbuffers.Table {
	if int(pos)+4 > len(c.buf) {
		panic("a table past the end")
	}
	t := &flatbuffers.Table{Bytes: c.buf, Pos: pos}
	vt := int(pos) - int(t.GetSOffsetT(pos))
	if vt < 0 || vt+4 > len(c.buf) {
		panic("a vtable past the end")
	}
	if vt+int(t.GetVOffsetT(flatbuffers.UOffsetT(vt))) > len(c.buf) {
		panic("a vtable past the end")
	}
	return t
}

// table returns the table in field slot of t, or nil.
func (c *fbCheck) table(t *flatbuffers.Table, slot int) *flatbuffers.Table {
	o := flatbuffers.UOffsetT(t.Offset(flatbuffers.VOffsetT(4 + 2*slot)))
	if o == 0 {
		return nil
	}
	if int(t.Pos+o)+4 > len(c.buf) {
		panic("an offset past the end")
	}
	return c.at(t.Indirect(t.Pos + o))
}

// vector checks the vector in field slot of t (of 4-byte elements at
// least), and each element with each when it is a vector of tables.
func (c *fbCheck) vector(t *flatbuffers.Table, slot int, each func(*flatbuffers.Table)) {
	o := flatbuffers.UOffsetT(t.Offset(flatbuffers.VOffsetT(4 + 2*slot)))
	if o == 0 {
		return
	}
	if int(t.Pos+o)+4 > len(c.buf) {
		panic("an offset past the end")
	}
	start := t.Vector(o)
	n := t.VectorLen(o)
	if n < 0 || int(start) > len(c.buf) || n > (len(c.buf)-int(start))/4 {
		panic(fmt.Sprintf("a vector of %d past the end", n))
	}
	if each == nil {
		return
	}
	c.depth++
	if c.depth > 200 {
		panic("nested too deep")
	}
	for i := range n {
		p := start + flatbuffers.UOffsetT(4*i)
		each(c.at(p + flatbuffers.GetUOffsetT(c.buf[p:])))
	}
	c.depth--
}

func (c *fbCheck) keyValue(*flatbuffers.Table) {}

// field checks an Arrow Field: its children, metadata, and the type ids
// of a union.
func (c *fbCheck) field(f *flatbuffers.Table) {
	c.vector(f, 5, c.field)            // children
	c.vector(f, 6, c.keyValue)         // custom_metadata
	if f.GetByteSlot(4+2*2, 0) == 14 { // type_type Union
		if u := c.table(f, 3); u != nil {
			c.vector(u, 1, nil) // typeIds
		}
	}
}
