package shred

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"unsafe"

	"github.com/trevni-go/trevni/internal/avrostruct"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/typemap"
)

// StructWriter writes Go structs of type T into a Trevni file as Avro
// records, through an AvroWriter. Fields match record fields as
// assemble.StructReader matches them (the `avro:"name"` tag, then the Go
// name, then the name ignoring case; `avro:"-"` leaves a field out), with
// the same Go types for each Avro type; every record field must have a
// struct field and every struct field a record field. The pairing of
// schema and T is compiled once; each record is then encoded to Avro
// binary with no reflection and written by the WriteBinary path.
//
// A StructWriter is not safe for concurrent use.
type StructWriter[T any] struct {
	aw   *AvroWriter
	prog *avrostruct.Prog
	buf  []byte
}

// NewStructWriter returns a writer of values of struct type T as records of
// the Avro schema given as JSON text. If schemaText is empty, the schema
// is derived from T: a record named after T's Go type; fields named by
// their avro tags, or else their Go names; bool is boolean, int and int64
// long, int32 int, float32 float, float64 double, string string, []byte
// bytes, [N]byte a fixed of size N, time.Time a long of logical type
// timestamp-micros, *X ["null", X], []X an array, map[string]X a map and a
// struct a record. A T that does not fit the schema is refused with a
// *schema.Error naming the Go field and its type. The file is written to
// out when Close is called.
func NewStructWriter[T any](out io.Writer, schemaText string, opts *Options) (*StructWriter[T], error) {
	t := reflect.TypeFor[T]()
	if schemaText == "" {
		text, err := avrostruct.Derive(t, "")
		if err != nil {
			return nil, structErr(err)
		}
		schemaText = text
	}
	aw, err := NewAvroWriter(out, schemaText, opts)
	if err != nil {
		return nil, err
	}
	prog, _, err := avrostruct.Compile(aw.Schema(), t, avrostruct.Write)
	if err != nil {
		aw.Abort()
		return nil, structErr(err)
	}
	return &StructWriter[T]{aw: aw, prog: prog}, nil
}

// ErrValue is wrapped by StructWriter.Write's errors, as by every writer's,
// for a Go value that its schema cannot hold. It is typemap.ErrValue,
// declared there once, so errors.Is matches either name.
var ErrValue = typemap.ErrValue

func structErr(err error) error {
	var fe *avrostruct.FieldError
	if errors.As(err, &fe) {
		return &schema.Error{Record: -1, Path: fe.Path, Err: fmt.Errorf("shred: %w", err)}
	}
	return err
}

// Writer returns the underlying AvroWriter: for its Schema, Columns and
// RowCount, or to write other records through it.
func (sw *StructWriter[T]) Writer() *AvroWriter { return sw.aw }

// Write writes rows as records and returns how many it wrote. It stops at
// the first row that cannot be written (a value that does not fit the
// schema: an int beyond an Avro int, a string that is not UTF-8, a
// []byte of the wrong size for a fixed, a string that is not an enum
// symbol, a nil pointer to a record that is not nullable), which is not
// written, with a *schema.Error naming the record (counted from the
// writer's first, 0) and the field; writing can go on with the next row.
func (sw *StructWriter[T]) Write(rows []T) (int, error) {
	for i := range rows {
		b, err := avrostruct.Encode(sw.buf[:0], sw.prog, unsafe.Pointer(&rows[i]))
		sw.buf = b
		if err != nil {
			var ve *avrostruct.ValueError
			if errors.As(err, &ve) {
				return i, &schema.Error{Record: sw.aw.RowCount(), Path: ve.Path, Err: fmt.Errorf("shred: %w: %s", ErrValue, ve.Msg)}
			}
			return i, err
		}
		if err := sw.aw.WriteBinary(b); err != nil {
			return i, err
		}
	}
	return len(rows), nil
}

// Close writes the file. It does not close the output.
func (sw *StructWriter[T]) Close() error { return sw.aw.Close() }

// Abort discards the file and releases its temporary storage.
func (sw *StructWriter[T]) Abort() { sw.aw.Abort() }
