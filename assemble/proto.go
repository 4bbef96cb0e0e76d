package assemble

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"iter"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/fieldpath"
	"github.com/trevni-go/trevni/internal/protoset"
	"github.com/trevni-go/trevni/predicate"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/schema/protoschema"
	"github.com/trevni-go/trevni/typemap/protovalue"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// ProtoOptions configures a ProtoReader. A nil *ProtoOptions, like the
// zero value, reads every field into dynamicpb messages built from the
// descriptors stored in the file.
type ProtoOptions struct {
	// MessageType, if set, is the type to read into, such as a generated
	// message's (m.ProtoReflect().Type()). Its full name must be the
	// file's message. Its fields may have evolved since the file was
	// written: fields added since read as unset, fields removed are not
	// read, and fields renamed are matched by number.
	MessageType protoreflect.MessageType
	// Fields, if set, selects fields by dotted path of protobuf field
	// names ("resource_spans.scope_spans.spans.name"); only their columns
	// are read and the other fields stay unset.
	Fields []string
	// Resolver finds extension and message types; nil means the types in
	// the file's descriptors with dynamicpb, or the global registry with
	// MessageType.
	Resolver protovalue.Resolver
	// Layout bounds the mapping of the message type read into (nil means
	// the defaults of package layout).
	Layout *layout.Options
	// Filter, if set, is a filter expression on the fields of the file's
	// schema, as Options.Filter: only the messages satisfying it are
	// read, and blocks whose statistics rule out a match are not.
	Filter string
	// MaxRecordBytes bounds the size of one message as assembled, as
	// Options.MaxRecordBytes; 0 means DefaultMaxRecordBytes.
	MaxRecordBytes int64
}

// ProtoReader reads the messages of a Trevni file written from protobuf.
// It is not safe for concurrent use.
type ProtoReader struct {
	ar        *AvroReader
	conv      *protovalue.Converter
	mt        protoreflect.MessageType
	resolver  protovalue.Resolver
	recursion int           // for messages stored serialized
	own       bool          // every field of the file's own type: ReadWire's fast path
	wire      *wireEncoder  // ReadWire's encoder, built on first use
	msg       proto.Message // ReadWire's message when it uses ReadInto
}

// NewProtoReader prepares to read the messages of rd, using the descriptors
// stored in the file.
func NewProtoReader(rd *format.Reader, opts *ProtoOptions) (*ProtoReader, error) {
	var o ProtoOptions
	if opts != nil {
		o = *opts
	}
	if rd == nil {
		return nil, errors.New("assemble: nil reader")
	}
	meta := rd.Meta()
	set, ok := meta.Get(protoset.MetaDescriptorSet)
	name := meta.GetString(protoset.MetaMessage)
	if !ok || name == "" {
		return nil, fmt.Errorf("assemble: the file has no %s and %s metadata: it was not written from protobuf", protoset.MetaDescriptorSet, protoset.MetaMessage)
	}
	mopts, err := protoschema.ParseStoredOptions(meta.GetString(protoschema.MetaOptions))
	if err != nil {
		return nil, err
	}
	mopts.Limits = o.Layout
	files, err := protoset.ParseSet(set)
	if err != nil {
		return nil, fmt.Errorf("assemble: the file's descriptors: %w", err)
	}
	md, err := protoset.FindMessage(files, name)
	if err != nil {
		return nil, fmt.Errorf("assemble: the file's descriptors: %w", err)
	}
	mt := o.MessageType
	resolver := o.Resolver
	if mt == nil {
		mt = dynamicpb.NewMessageType(md)
		if resolver == nil {
			resolver = dynamicpb.NewTypes(files)
		}
	} else {
		if mt.Descriptor().FullName() != md.FullName() {
			return nil, fmt.Errorf("assemble: the file holds %s messages, not %s", md.FullName(), mt.Descriptor().FullName())
		}
		if resolver == nil {
			resolver = protoregistry.GlobalTypes
		}
	}
	// The reader's mapping, from the type read into: the file's schema
	// is the writer's, so fields added or removed since resolve as Avro
	// fields do, and renamed ones by field number.
	conv, err := protovalue.NewConverter(mt.Descriptor(), &protovalue.Options{Mapping: mopts, Resolver: resolver})
	if err != nil {
		return nil, err
	}
	recursion := protovalue.RecursionLimit(o.Layout)
	mp := conv.Mapping()
	text := mp.Schema.String()
	// A selection leaves unknown fields out unless it names their field.
	ar, err := NewAvroReader(rd, &Options{ReaderSchema: text, Fields: o.Fields, MatchField: protoschema.MatchFieldNumber, Filter: o.Filter, MaxRecordBytes: o.MaxRecordBytes, internalSchema: true})
	if err != nil {
		return nil, err
	}
	// The fast path needs the file's schema to be the mapping's. Compare
	// the schemas, not the stored text: files written before the mapping
	// built its schema as a tree store the same schema in other words.
	own := o.MessageType == nil && len(o.Fields) == 0 && ar.fileSchema.String() == text
	return &ProtoReader{ar: ar, conv: conv, mt: mt, resolver: resolver, recursion: recursion, own: own}, nil
}

// SeekRow positions the reader before message row; see AvroReader.SeekRow.
func (pr *ProtoReader) SeekRow(row int64) error { return pr.ar.SeekRow(row) }

// Row returns the number of the row the next message is read from, or
// past; see AvroReader.Row.
func (pr *ProtoReader) Row() int64 { return pr.ar.Row() }

// StopAt makes the reader report io.EOF at message row; see
// AvroReader.StopAt.
func (pr *ProtoReader) StopAt(row int64) { pr.ar.StopAt(row) }

// SetLimit makes the reader report io.EOF after n more messages, counting
// only those it returns (those that satisfy the filter); a negative n
// removes the limit. See AvroReader.SetLimit.
func (pr *ProtoReader) SetLimit(n int64) { pr.ar.SetLimit(n) }

// Count returns how many messages from the reader's position to its end
// (see StopAt) satisfy the filter, reading only the filter's columns (and
// no column at all without a filter), and leaves the reader at its end.
// See AvroReader.Count.
func (pr *ProtoReader) Count(ctx context.Context) (int64, error) { return pr.ar.Count(ctx) }

// NextMatch returns the number of the next message, from the reader's
// position up to its end, that satisfies ProtoOptions.Filter, and moves
// the reader past it without reading it; io.EOF when none is left or the
// limit is reached. Without a filter it is an error. See
// AvroReader.NextMatch.
func (pr *ProtoReader) NextMatch() (int64, error) { return pr.ar.NextMatch() }

// Report returns how much of the file the reader has read so far. See
// AvroReader.Report.
func (pr *ProtoReader) Report() ScanReport { return pr.ar.Report() }

// Validate checks every remaining message (up to StopAt's row; with a
// filter, its matches only, at most SetLimit's number) as Read would read
// it, without keeping it: what AvroReader.Validate checks of the records,
// and what the conversion to messages checks (numbers in the range of
// their kind, map keys that parse, at most one member of a oneof set,
// UTF-8 strings). It returns nil if all are good, or the first bad
// message's *schema.Error; the reader is then at the end (or at the bad
// message). Reading every field of the file's own type, without a filter,
// its time is AvroReader.Validate's, linear in the bytes stored: alike
// messages are checked once; otherwise each message is converted, so it
// is linear in the messages. It checks ctx between messages and returns
// its error, wrapped, if ctx ends first.
func (pr *ProtoReader) Validate(ctx context.Context) error {
	e, err := pr.wireEncoder()
	if err != nil {
		return err
	}
	ar := pr.ar
	var buf []byte
	if e.root != nil && ar.filter == nil {
		return ar.validateRows(ctx, func() error {
			var err error
			buf, err = e.message(buf[:0], e.root)
			return err
		})
	}
	for n := int64(0); ; n++ {
		if n%checkEvery == 0 && ctx.Err() != nil {
			return fmt.Errorf("assemble: validation stopped at record %d: %w", ar.row, ctx.Err())
		}
		if buf, err = pr.ReadWire(buf[:0]); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// MessageType returns the type messages are read into.
func (pr *ProtoReader) MessageType() protoreflect.MessageType { return pr.mt }

// RowCount returns the number of messages in the file.
func (pr *ProtoReader) RowCount() int64 { return pr.ar.RowCount() }

// Schema returns the Avro schema messages are read as: the mapping of the
// type read into.
func (pr *ProtoReader) Schema() *schema.Schema { return pr.ar.Schema() }

// Columns returns the file's columns: the layout of the file's schema.
func (pr *ProtoReader) Columns() []layout.Column { return pr.ar.Columns() }

// Filter returns the compiled ProtoOptions.Filter, or nil.
func (pr *ProtoReader) Filter() *predicate.Predicate { return pr.ar.Filter() }

// ColumnsRead returns the indexes of the columns the reader reads.
func (pr *ProtoReader) ColumnsRead() []int { return pr.ar.ColumnsRead() }

// ReadInto resets m and fills it with the next message, or returns io.EOF
// after the last. m must be of the reader's message type. An error for a
// message is a *schema.Error with the message's record number, counted
// from the start of the file.
func (pr *ProtoReader) ReadInto(m proto.Message) error {
	v, err := pr.ar.Read()
	if err != nil {
		return err
	}
	rec, ok := v.(map[string]any)
	if !ok {
		return fieldpath.Record(fmt.Errorf("assemble: a %T, not a record", v), pr.ar.row-1)
	}
	if err := pr.conv.FromAvro(rec, m.ProtoReflect()); err != nil {
		return fieldpath.Record(err, pr.ar.row-1)
	}
	return nil
}

// Read returns the next message in a new message of the reader's type, or
// io.EOF after the last.
func (pr *ProtoReader) Read() (proto.Message, error) {
	m := pr.mt.New().Interface()
	if err := pr.ReadInto(m); err != nil {
		return nil, err
	}
	return m, nil
}

// All returns an iterator over the remaining messages, each a new message.
// It stops after the last; an error is yielded once, and then it stops.
func (pr *ProtoReader) All() iter.Seq2[proto.Message, error] {
	return func(yield func(proto.Message, error) bool) {
		for {
			m, err := pr.Read()
			if err == io.EOF {
				return
			}
			if !yield(m, err) || err != nil {
				return
			}
		}
	}
}

// ProtoStreamOptions configures ToProtoStream. A nil *ProtoStreamOptions
// means the defaults.
type ProtoStreamOptions struct {
	// Progress, if set, is called every 4096 messages and at the end with
	// the number of messages written.
	Progress func(rows int64)
}

// ToProtoStream writes every remaining message of pr to w, framed as form
// says, and returns how many it wrote. Binary messages are marshalled deterministically. Errors
// for a message carry its record number counted from the start of the
// file, also after SeekRow. Cancelling ctx stops it between messages.
func ToProtoStream(ctx context.Context, w io.Writer, pr *ProtoReader, form protoschema.Framing, opts *ProtoStreamOptions) (int64, error) {
	var progress func(int64)
	if opts != nil {
		progress = opts.Progress
	}
	if form != protoschema.Delimited && form != protoschema.JSONLines {
		return 0, fmt.Errorf("assemble: unknown message framing %v", form)
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	m := pr.mt.New().Interface()
	var js protoset.JSONOptions
	done := ctx.Done()
	var buf []byte
	var size [binary.MaxVarintLen64]byte
	var n int64
	for {
		select {
		case <-done:
			return n, fmt.Errorf("assemble: stopped at record %d: %w", pr.ar.row, ctx.Err())
		default:
		}
		var err error
		if form == protoschema.Delimited {
			buf, err = pr.ReadWire(buf[:0])
		} else {
			err = pr.ReadInto(m)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return n, err
		}
		switch form {
		case protoschema.Delimited:
			if _, err := bw.Write(binary.AppendUvarint(size[:0], uint64(len(buf)))); err != nil {
				return n, err
			}
			if _, err := bw.Write(buf); err != nil {
				return n, err
			}
		case protoschema.JSONLines:
			if buf, err = protoset.AppendJSON(buf[:0], m, js); err != nil {
				return n, fieldpath.Record(err, pr.ar.row-1)
			}
			buf = append(buf, '\n')
			if _, err := bw.Write(buf); err != nil {
				return n, err
			}
		}
		n++
		if progress != nil && n%4096 == 0 {
			progress(n)
		}
	}
	if progress != nil {
		progress(n)
	}
	return n, bw.Flush()
}
