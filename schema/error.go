package schema

import (
	"errors"
	"strconv"
)

// ErrTooLarge is returned (wrapped) for a schema beyond a configured bound:
// nesting deeper than ParseOptions.MaxDepth here, or a column layout
// beyond package schema/layout's limits, which return this same error.
var ErrTooLarge = errors.New("schema is too large")

// Error reports a problem in a schema, or in a record of one, and where it
// is. It is the one error type of the packages above the Trevni format
// (schema, shred, assemble and the type mappings): callers find the
// record and the field with errors.As, and the cause with errors.Is on
// what it wraps (a format error, for example, keeps its column, block and
// offset).
type Error struct {
	// Record is the number of the record the problem is in, counting from
	// 0 at the start of the file or stream; -1 when the problem is with a
	// schema rather than a record.
	Record int64
	// Path locates the problem: in a record, a field path such as
	// "received[2].sigs[0].algo"; in a schema, a place such as
	// "field vec.Outer.tags, items". Empty for the whole record or schema.
	Path string
	// Err is what went wrong.
	Err error
}

// Error returns "record N, field PATH: message" for a record and
// "avro schema: PATH: message" for a schema.
func (e *Error) Error() string {
	var b []byte
	if e.Record >= 0 {
		b = append(b, "record "...)
		b = strconv.AppendInt(b, e.Record, 10)
		if e.Path != "" {
			b = append(b, ", field "...)
			b = append(b, e.Path...)
		}
	} else {
		b = append(b, "avro schema"...)
		if e.Path != "" {
			b = append(b, ": "...)
			b = append(b, e.Path...)
		}
	}
	b = append(b, ": "...)
	b = append(b, e.Err.Error()...)
	return string(b)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }
