// Package convert converts whole files between Trevni version 1 (package
// trevni1, Impala's variant) and version 2 in the Avro layout (packages
// shred and assemble), record by record.
//
// It sits above both formats so that the version-1 reader and writer need
// neither the shredder nor the assembler.
package convert

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/shred"
	"github.com/trevni-go/trevni/trevni1"
)

// checkEvery is how many records pass between two looks at the context.
const checkEvery = 1024

// stopped returns ctx's error, wrapped with the records done, or nil.
func stopped(ctx context.Context, what string, n int64) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("convert: %s stopped after %d records: %w", what, n, err)
	}
	return nil
}

// FromV2 converts a version-2 file written from Avro (src) to a version-1
// file on dst, record by record, and returns the records written. A schema
// version 1 cannot express is an error naming the field, before anything is
// written. It stops with ctx's error, wrapped, if ctx ends first; dst then
// holds nothing of use.
func FromV2(ctx context.Context, dst io.Writer, src *format.Reader, opts *trevni1.WriterOptions) (int64, error) {
	if err := stopped(ctx, "FromV2", 0); err != nil {
		return 0, err
	}
	ar, err := assemble.NewAvroReader(src, nil)
	if err != nil {
		return 0, err
	}
	rw, err := trevni1.NewRecordWriter(dst, src.Meta().GetString(layout.MetaAvroSchema), opts)
	if err != nil {
		return 0, err
	}
	defer rw.Abort() // after Close, only a no-op
	var buf []byte
	for n := int64(1); ; n++ {
		if n%checkEvery == 0 {
			if err := stopped(ctx, "FromV2", rw.RowCount()); err != nil {
				return rw.RowCount(), err
			}
		}
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
// layout on dst, with the records' schema (trevni1.Reader.AvroSchema), and
// returns the records written. It stops with ctx's error, wrapped, if ctx
// ends first; dst then holds nothing of use.
func ToV2(ctx context.Context, dst io.Writer, src *trevni1.Reader, opts *shred.Options) (int64, error) {
	if err := stopped(ctx, "ToV2", 0); err != nil {
		return 0, err
	}
	rr, err := trevni1.NewRecordReader(src)
	if err != nil {
		return 0, err
	}
	aw, err := shred.NewAvroWriter(dst, rr.SchemaText(), opts)
	if err != nil {
		return 0, err
	}
	var buf []byte
	for n := int64(1); ; n++ {
		if n%checkEvery == 0 {
			if err := stopped(ctx, "ToV2", aw.RowCount()); err != nil {
				aw.Abort()
				return aw.RowCount(), err
			}
		}
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
