package format

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Errors that callers can test for with errors.Is.
var (
	// ErrFormat reports a file that is not a well-formed Trevni file:
	// truncated, corrupt or inconsistent.
	ErrFormat = errors.New("not a valid trevni file")
	// ErrChecksum reports a block whose checksum does not match its data.
	// It is a kind of ErrFormat: errors.Is matches an error wrapping it to
	// ErrFormat as well, since a file whose checksum fails is damaged.
	ErrChecksum = KindOf(ErrFormat, "checksum mismatch")
	// ErrCodec reports an unknown codec or checksum name.
	ErrCodec = errors.New("unknown codec")
	// ErrLimit reports input that needs more than a configured limit
	// allows, such as a block larger than ReaderOptions.MaxBlockSize. The
	// message names the option that raises the limit.
	ErrLimit = errors.New("limit exceeded")
	// ErrRecordSize, which wraps ErrLimit, reports a row or record whose
	// assembled form would exceed a reader's byte budget
	// (RowReader.MaxBytes, and the record readers of package assemble).
	ErrRecordSize = fmt.Errorf("%w: record too large", ErrLimit)
	// ErrUsage reports a call that breaks the writer's or reader's protocol,
	// such as writing a value of the wrong type or too few values in a row.
	ErrUsage = errors.New("invalid use")
)

// KindOf returns a new sentinel error of message text that is a kind of
// the sentinel kind: errors.Is matches an error wrapping it to kind as
// well as to itself, with the message left as text. ErrChecksum is a kind
// of ErrFormat; trevni1 and clmn make their malformed-file errors kinds of
// ErrFormat, so that one test finds a damaged file of any format.
func KindOf(kind error, text string) error { return &kindError{text: text, kind: kind} }

// kindError is a sentinel of KindOf.
type kindError struct {
	text string
	kind error
}

func (e *kindError) Error() string { return e.text }

// Is reports whether target is the kind (or a kind it is of).
func (e *kindError) Is(target error) bool { return errors.Is(e.kind, target) }

// Error locates a problem in a Trevni file. Fields that do not apply are -1
// (or empty for Column).
type Error struct {
	Offset int64  // byte offset in the file
	Column string // column name
	Index  int    // column number
	Block  int    // block number within the column
	Row    int64  // top-level row number
	Err    error  // what went wrong

	// own: Err is a Source's own error, which names the place in its
	// file's terms: the message is Err's alone.
	own bool
}

func (e *Error) Error() string {
	if e.own {
		return e.Err.Error()
	}
	var b strings.Builder
	b.WriteString("trevni: ")
	sep := ""
	if e.Column != "" || e.Index >= 0 {
		b.WriteString("column ")
		if e.Column != "" {
			b.WriteString(strconv.Quote(e.Column))
		}
		if e.Index >= 0 {
			if e.Column != "" {
				b.WriteByte(' ')
			}
			b.WriteString("(#" + strconv.Itoa(e.Index) + ")")
		}
		sep = ", "
	}
	if e.Block >= 0 {
		b.WriteString(sep + "block " + strconv.Itoa(e.Block))
		sep = ", "
	}
	if e.Row >= 0 {
		b.WriteString(sep + "row " + strconv.FormatInt(e.Row, 10))
		sep = ", "
	}
	if e.Offset >= 0 {
		b.WriteString(sep + "offset " + strconv.FormatInt(e.Offset, 10))
		sep = ", "
	}
	if sep != "" {
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// newError returns an *Error with every location unknown.
func newError(err error) *Error {
	return &Error{Offset: -1, Index: -1, Block: -1, Row: -1, Err: err}
}

// unwrapLocation returns the cause inside err when err is an *Error, so
// that a caller adding its own location does not repeat one.
func unwrapLocation(err error) error {
	if e, ok := err.(*Error); ok {
		return e.Err
	}
	return err
}
