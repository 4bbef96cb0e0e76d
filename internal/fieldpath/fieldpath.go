// Package fieldpath builds the field path of an error on its way up a
// recursive walk of a record, so that the error can say where it happened
// ("received[2].sigs[0].algo") without the walk keeping a path as it goes.
// Segments are collected innermost first and joined once, so the cost is
// linear in the depth. At the record's boundary, [Record] turns the result
// into the project's one public error type, *schema.Error.
package fieldpath

import (
	"errors"
	"strconv"
	"strings"

	"github.com/trevni-go/trevni/schema"
)

// Error is an error together with the path where it happened, while it
// travels up a walk; callers outside the project see *schema.Error.
type Error struct {
	segs []string // innermost first
	Err  error
}

// Error returns "path: message".
func (e *Error) Error() string { return e.Path() + ": " + e.Err.Error() }

// Unwrap returns the error without its path.
func (e *Error) Unwrap() error { return e.Err }

// Path returns the dotted path: field names joined by dots, indexes and
// map keys in brackets.
func (e *Error) Path() string {
	var b strings.Builder
	for i := len(e.segs) - 1; i >= 0; i-- {
		s := e.segs[i]
		if b.Len() > 0 && s[0] != '[' {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

// New starts the path of err, still empty.
func New(err error) error { return &Error{Err: err} }

// At adds the segment seg (a field name, or "[3]", or `["key"]`) in front
// of err's path.
func At(err error, seg string) error {
	if pe, ok := err.(*Error); ok {
		pe.segs = append(pe.segs, seg)
		return pe
	}
	return &Error{segs: []string{seg}, Err: err}
}

// Index is the segment of element i of an array.
func Index(i int) string { return "[" + strconv.Itoa(i) + "]" }

// Key is the segment of the map entry of key k.
func Key(k string) string { return "[" + strconv.Quote(k) + "]" }

// Split returns the path and the error without it: "" and err itself if
// err has no path.
func Split(err error) (string, error) {
	if pe, ok := err.(*Error); ok {
		return pe.Path(), pe.Err
	}
	return "", err
}

// Record returns err as a *schema.Error of record row, with the path
// collected so far. An error that already is a *schema.Error for a
// record is returned as it is.
func Record(err error, row int64) error {
	var se *schema.Error
	if errors.As(err, &se) && se.Record >= 0 {
		return err
	}
	path, inner := Split(err)
	return &schema.Error{Record: row, Path: path, Err: inner}
}
