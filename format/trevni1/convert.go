package trevni1

import (
	"errors"
	"io"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/shred"
)

// FromV2 converts a version-2 file written from Avro (src) to a version-1
// file on dst, record by record, and returns the records written. A schema
// version 1 cannot express is an error naming the field, before anything is
// written.
func FromV2(dst io.Writer, src *format.Reader, opts *WriterOptions) (int64, error) {
	ar, err := assemble.NewAvroReader(src, nil)
	if err != nil {
		return 0, err
	}
	rw, err := NewRecordWriter(dst, src.Meta().GetString(layout.MetaAvroSchema), opts)
	if err != nil {
		return 0, err
	}
	defer rw.Abort() // after Close, only a no-op
	var buf []byte
	for {
		buf, err = ar.ReadBinary(buf[:0])
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return rw.RowCount(), err
		}
		if _, err := rw.WriteBinary(buf); err != nil {
			return rw.RowCount(), err
		}
	}
	return rw.RowCount(), rw.Close()
}

// ToV2 converts a version-1 file (src) to a version-2 file in the Avro
// layout on dst, with the records' schema (AvroSchema), and returns the
// records written.
func ToV2(dst io.Writer, src *Reader, opts *shred.Options) (int64, error) {
	rr, err := NewRecordReader(src)
	if err != nil {
		return 0, err
	}
	aw, err := shred.NewAvroWriter(dst, rr.SchemaText(), opts)
	if err != nil {
		return 0, err
	}
	var buf []byte
	for {
		buf, err = rr.ReadBinary(buf[:0])
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			aw.Abort()
			return aw.RowCount(), err
		}
		if err := aw.WriteBinary(buf); err != nil {
			aw.Abort()
			return aw.RowCount(), err
		}
	}
	return aw.RowCount(), aw.Close()
}
