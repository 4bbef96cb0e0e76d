package format

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/trevni-go/trevni/format/stats"
)

// codecName returns the name of the codec column c is stored with.
func (w *Writer) codecName(c *columnWriter) string {
	if n := c.meta.Codec(); n != "" {
		return n
	}
	return w.fileMeta.GetString(KeyCodec)
}

// Close finishes the last blocks, writes the whole file to the output and
// releases the spill file. It does not close the output.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	defer w.release()
	if w.err == nil && w.inRow {
		w.fail(fmt.Errorf("%w: Close inside a row", ErrUsage))
	}
	if w.err == nil {
		w.checkTotals()
	}
	if w.err != nil {
		w.closed = true
		return w.err
	}
	for _, c := range w.cols {
		if err := w.cutBlock(c); err != nil {
			w.fail(err)
			return err
		}
	}
	if err := w.wait(); err != nil {
		w.fail(err)
		return err
	}
	if err := w.spillWait(); err != nil {
		w.fail(err)
		return err
	}
	for _, c := range w.cols {
		if c.st != nil {
			c.meta.Meta.Set(stats.MetaKey, c.st.Encode())
		}
	}
	err := w.writeFile()
	w.fail(err)
	return err
}

// checkTotals checks every column's totals of lengths and values against
// the structure: a top-level column holds one entry per row, a child one
// per element of its parent, and an array column as many values as its
// lengths add up to. With row checks on, EndRow has checked each row
// already; with them off, this is the check that remains.
func (w *Writer) checkTotals() {
	for _, c := range w.cols {
		if !c.mandatory {
			continue
		}
		due := w.rowCount
		if c.parent >= 0 {
			due = w.cols[c.parent].elems
		}
		if c.meta.Array {
			if c.lengths != due {
				w.usage(c, "wrote %d lengths in all, want %d", c.lengths, due)
				return
			}
			due = c.elems
		}
		if c.meta.Type != Null && c.values != due {
			w.usage(c, "wrote %d values in all, want %d", c.values, due)
			return
		}
	}
}

// Abort discards everything written and releases the spill file.
func (w *Writer) Abort() {
	if !w.closed {
		w.fail(errors.New("trevni: writer aborted"))
	}
	w.release()
}

func (w *Writer) release() {
	w.closed = true
	w.pending.Wait()
	w.spillWait()
	if w.spill != nil {
		name := w.spill.Name()
		w.spill.Close()
		os.Remove(name)
		w.spill = nil
	}
	for _, c := range w.cols {
		c.blocks = nil
		c.enc.b = nil
	}
}

// columnSize returns the bytes column c occupies in the file.
func (c *columnWriter) size() int64 {
	n := int64(4)
	for _, b := range c.blocks {
		n += 12 + int64(len(b.first)) + int64(b.dataLen)
	}
	return n
}

func (w *Writer) writeFile() error {
	bw := bufio.NewWriterSize(w.out, 256<<10)
	var h encoder
	h.b = append(h.b, magic[:]...)
	h.writeFixed64(uint64(w.rowCount))
	h.writeFixed32(uint32(len(w.cols)))
	writeMeta(&h, &w.fileMeta)
	for _, c := range w.cols {
		writeColumnMeta(&h, &c.meta)
	}
	start := int64(len(h.b)) + 8*int64(len(w.cols))
	for _, c := range w.cols {
		h.writeFixed64(uint64(start))
		start += c.size()
	}
	if _, err := bw.Write(h.b); err != nil {
		return err
	}
	var copyBuf []byte
	for _, c := range w.cols {
		h.reset(h.b)
		h.writeFixed32(uint32(len(c.blocks)))
		for _, b := range c.blocks {
			h.writeFixed32(uint32(b.rows))
			h.writeFixed32(uint32(b.rawSize))
			h.writeFixed32(uint32(b.dataLen - c.checksum))
			h.b = append(h.b, b.first...)
		}
		if _, err := bw.Write(h.b); err != nil {
			return err
		}
		for _, b := range c.blocks {
			if b.spillAt < 0 {
				if _, err := bw.Write(b.data); err != nil {
					return err
				}
				continue
			}
			if copyBuf == nil {
				copyBuf = make([]byte, 256<<10)
			}
			sr := io.NewSectionReader(w.spill, b.spillAt, int64(b.dataLen))
			if _, err := io.CopyBuffer(bw, sr, copyBuf); err != nil {
				return fmt.Errorf("trevni: reading spill file: %w", err)
			}
		}
	}
	return bw.Flush()
}

func writeMeta(e *encoder, m *MetaData) {
	e.writeInt(int32(m.Len()))
	for i := 0; i < m.Len(); i++ {
		e.writeString(m.Key(i))
		e.writeBytes(m.Value(i))
	}
}

// writeColumnMeta writes a column's metadata in Java's order: name, type,
// values, parent, array, then the rest.
func writeColumnMeta(e *encoder, c *ColumnMeta) {
	n := 2 + c.Meta.Len()
	for _, b := range []bool{c.Values, c.Parent != "", c.Array} {
		if b {
			n++
		}
	}
	e.writeInt(int32(n))
	e.writeString(KeyName)
	e.writeString(c.Name)
	e.writeString(KeyType)
	e.writeString(c.Type.String())
	if c.Values {
		e.writeString(KeyValues)
		e.writeString("")
	}
	if c.Parent != "" {
		e.writeString(KeyParent)
		e.writeString(c.Parent)
	}
	if c.Array {
		e.writeString(KeyArray)
		e.writeString("")
	}
	for i := 0; i < c.Meta.Len(); i++ {
		e.writeString(c.Meta.Key(i))
		e.writeBytes(c.Meta.Value(i))
	}
}
