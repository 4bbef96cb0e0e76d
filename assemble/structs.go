package assemble

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"reflect"
	"unsafe"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/avrostruct"
	"github.com/trevni-go/trevni/internal/fieldpath"
	"github.com/trevni-go/trevni/schema"
)

// StructReader reads the records of a Trevni file written from Avro into
// Go structs of type T, in the style of parquet-go's GenericReader.
//
// T's exported fields are the projection: only the columns they need are
// read. They match record fields by the `avro:"name"` tag (the tag
// github.com/hamba/avro uses), then by name, then by name ignoring case;
// `avro:"-"` leaves a field out. The Go types that fit each Avro type:
//
//	boolean            bool
//	int                int, int32, int64; time.Time for the date logical type
//	long               int64, int; time.Time for timestamp-millis, -micros, -nanos
//	                   and the local-timestamp types (read as UTC)
//	float              float32, float64
//	double             float64
//	string, bytes      string, []byte
//	fixed              [N]byte of the fixed's size, []byte
//	enum               string (the symbol), int (the index)
//	array              []E
//	map                map[string]E
//	record             a struct, or a pointer to one
//	["null", X]        *X: nil for null (either branch order)
//
// A struct that does not fit the file's schema is refused by
// NewStructReader with a *schema.Error naming the Go field path and the Go
// type (and wrapping ErrIncompatible).
//
// The pairing of the file's schema and T is compiled once; records then go
// from the columns through the one plan interpreter (as ReadBinary) into
// T's fields with no reflection and, for structs of scalars and strings,
// no allocation per record in steady state.
//
// A StructReader is not safe for concurrent use.
type StructReader[T any] struct {
	ar   *AvroReader
	prog *avrostruct.Prog
	dec  avrostruct.Decoder
	buf  []byte
	one  []T
	flat *flatPlan // nil: every batch takes the general path
}

// NewStructReader prepares to read the records of rd into values of type
// T, a struct type. opts is as for NewAvroReader, except that the reader
// schema is made from T and the file's schema, so opts.ReaderSchema and
// opts.Fields must be empty.
func NewStructReader[T any](rd *format.Reader, opts *Options) (*StructReader[T], error) {
	if rd == nil {
		return nil, errors.New("assemble: NewStructReader: nil reader")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.ReaderSchema != "" || len(o.Fields) > 0 {
		return nil, errors.New("assemble: NewStructReader: the struct type is the reader schema; Options.ReaderSchema and Fields must be empty")
	}
	_, fileSchema, err := storedSchema(rd, o.Layout)
	if err != nil {
		return nil, err
	}
	t := reflect.TypeFor[T]()
	prog, projected, err := avrostruct.Compile(fileSchema, t, avrostruct.Read)
	if err != nil {
		var fe *avrostruct.FieldError
		if errors.As(err, &fe) {
			return nil, &schema.Error{Record: -1, Path: fe.Path, Err: fmt.Errorf("%w: %w", ErrIncompatible, err)}
		}
		return nil, err
	}
	o.ReaderSchema = projected.String()
	o.internalSchema = true
	ar, err := NewAvroReader(rd, &o)
	if err != nil {
		return nil, err
	}
	return &StructReader[T]{ar: ar, prog: prog, flat: planFlat(ar, prog)}, nil
}

// AliasStrings, when on, makes the strings Read stores point into the
// reader's own buffer instead of into memory of their own: they are then
// valid only until the next call of Read (or the next step of All), and
// must be copied (strings.Clone) to be kept. Off by default: strings are
// then copied into blocks of memory that are never written again, so they
// stay valid for good (a string kept alive keeps its block alive).
func (sr *StructReader[T]) AliasStrings(on bool) { sr.dec.Alias = on }

// Reader returns the underlying AvroReader: for SeekRow, StopAt,
// ColumnsRead and the reader schema made from T.
func (sr *StructReader[T]) Reader() *AvroReader { return sr.ar }

// RowCount returns the number of records in the file.
func (sr *StructReader[T]) RowCount() int64 { return sr.ar.RowCount() }

// Read reads up to len(dst) records into dst and returns how many it read.
// At the end of the file it returns 0 and io.EOF (never io.EOF with n > 0).
// It overwrites every field of T it reads and reuses the memory dst's
// elements already hold: slices are refilled within their capacity, maps
// cleared and refilled, pointers' targets overwritten. Callers that keep
// such memory from an earlier batch must not pass it in again.
// An error is a *schema.Error naming the record and the field path, and
// the first n records of dst are good.
func (sr *StructReader[T]) Read(dst []T) (int, error) {
	if sr.flat != nil && len(dst) > 0 {
		if n, ok, err := sr.readFlat(dst); ok {
			return n, err
		}
	}
	if sr.dec.Alias {
		sr.buf = sr.buf[:0]
	}
	for i := range dst {
		start := 0
		if sr.dec.Alias {
			start = len(sr.buf)
		} else {
			sr.buf = sr.buf[:0]
		}
		b, err := sr.ar.ReadBinary(sr.buf)
		if err != nil {
			if err == io.EOF && i > 0 {
				return i, nil
			}
			return i, err
		}
		sr.buf = b
		if err := sr.dec.Decode(b[start:], sr.prog, unsafe.Pointer(&dst[i])); err != nil {
			return i, fieldpath.Record(fmt.Errorf("%w: decoding into %s: %w", format.ErrFormat, reflect.TypeFor[T](), err), sr.ar.row-1)
		}
	}
	return len(dst), nil
}

// All returns an iterator over the remaining records. The *T it yields is
// the same value each time, overwritten by the next step: copy it to keep
// it. It stops after the last record, or after yielding an error (never
// io.EOF).
func (sr *StructReader[T]) All() iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		if sr.one == nil {
			sr.one = make([]T, 1)
		}
		for {
			n, err := sr.Read(sr.one)
			if err == io.EOF {
				return
			}
			if err != nil {
				yield(nil, err)
				return
			}
			if n == 1 && !yield(&sr.one[0], nil) {
				return
			}
		}
	}
}
