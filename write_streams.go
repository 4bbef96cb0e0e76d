package trevni

import (
	"context"
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/trevni-go/trevni/internal/avrojson"
	"github.com/trevni-go/trevni/internal/plainjson"
	"github.com/trevni-go/trevni/shred"
)

// The writers of streams: records that arrive as text or framed messages
// (JSON lines, a protobuf stream), decoded and shredded on
// WriteOptions.Workers goroutines, as the trevni command's fromjson and
// fromproto write them. AppendAvro and ConvertAvroStream (write.go) are
// those of Avro container files.

// LineError is the error of AppendJSONLines about one line of its input:
// the line's number, counting from 1 at the start of that input, and what
// is wrong with it (a *RecordError for a record that does not fit the
// schema).
type LineError struct {
	Line int64
	Err  error
}

// Error formats the error as "line N: cause".
func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Unwrap returns the cause.
func (e *LineError) Unwrap() error { return e.Err }

// AppendJSONLines writes one record for every line of r that is not blank:
// in Avro's JSON encoding of the writer's schema (as Dataset.WriteJSON
// writes records), or with opts.Plain in plain JSON (as WriteJSON writes
// it with JSONOptions.Plain: unions bare, bytes in base64, a union taking
// its first branch that fits); opts.Pretty does not apply, nor does a
// nil opts. The lines are decoded and shredded on WriteOptions.Workers
// goroutines, the records written in the order of the lines.
// WriteOptions.Progress is called now and then with the records written
// and the bytes of r consumed. ctx is checked between lines.
//
// The first line that does not decode or does not fit the schema ends
// the writing with a *LineError naming it, as does an error reading r;
// the Writer is then good only for Abort.
func (w *Writer) AppendJSONLines(ctx context.Context, r io.Reader, opts *JSONOptions) error {
	s := w.aw.Schema()
	decode := func(line []byte) (any, error) { return avrojson.Decode(s, line) }
	if opts != nil && opts.Plain {
		decode = func(line []byte) (any, error) { return plainjson.Decode(s, line) }
	}
	err := w.aw.WriteLines(ctx, r, decode)
	var le *shred.LineError
	if errors.As(err, &le) {
		return &LineError{Line: le.Line, Err: le.Err}
	}
	return err
}

// ConvertProtoStream writes to w a Trevni file of the protobuf messages
// of type md read from r, framed as framing says (Delimited: each
// preceded by its length as a varint; JSONLines: one protojson message a
// line), and returns the messages written. The file is the one a
// ProtoWriter writes (its descriptors stored). The messages are parsed on
// WriteOptions.Workers goroutines, written in the order of the stream;
// WriteOptions.Progress is called now and then with the messages written
// and the bytes of r consumed. An error names the message (counting from
// 0) and where it starts in r; ctx stops it between messages, and nothing
// is then written. Replace and Stores in opts do not apply; spill files go
// to TempDir.
func ConvertProtoStream(ctx context.Context, w io.Writer, r io.Reader, framing Framing, md protoreflect.MessageDescriptor, opts *ProtoWriteOptions) (int64, error) {
	if err := opts.checkMeta(); err != nil {
		return 0, err
	}
	po := opts.shred()
	return shred.FromProtoStream(ctx, w, r, framing, md, &po)
}
