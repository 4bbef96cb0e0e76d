package assemble

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/fieldpath"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/schema/protoschema"
	"github.com/trevni-go/trevni/typemap/protovalue"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// ProtoOptions configures a ProtoReader. The zero value reads every field
// into dynamicpb messages built from the descriptors stored in the file.
type ProtoOptions struct {
	// MessageType, if set, is the type to read into, such as a generated
	// message's (m.ProtoReflect().Type()). Its full name must be the
	// file's message. Its fields may have evolved since the file was
	// written: fields added since read as unset, fields removed are not
	// read.
	MessageType protoreflect.MessageType
	// Fields, if set, selects fields by dotted path of protobuf field
	// names ("resource_spans.scope_spans.spans.name"); only their columns
	// are read and the other fields stay unset.
	Fields []string
	// Resolver finds extension and message types; nil means the types in
	// the file's descriptors with dynamicpb, or the global registry with
	// MessageType.
	Resolver protovalue.Resolver
}

// ProtoReader reads the messages of a Trevni file written from protobuf.
type ProtoReader struct {
	ar       *AvroReader
	conv     *protovalue.Converter
	mt       protoreflect.MessageType
	resolver protovalue.Resolver
	own      bool          // every field of the file's own type: ReadWire's fast path
	wire     *wireEncoder  // ReadWire's encoder, built on first use
	msg      proto.Message // ReadWire's message when it uses Read
}

// NewProtoReader prepares to read the messages of rd, using the descriptors
// stored in the file.
func NewProtoReader(rd *format.Reader, opts *ProtoOptions) (*ProtoReader, error) {
	var o ProtoOptions
	if opts != nil {
		o = *opts
	}
	meta := rd.Meta()
	set, ok := meta.Get(protoschema.MetaDescriptorSet)
	name := meta.GetString(protoschema.MetaMessage)
	if !ok || name == "" {
		return nil, fmt.Errorf("assemble: the file has no %s and %s metadata: it was not written from protobuf", protoschema.MetaDescriptorSet, protoschema.MetaMessage)
	}
	mopts, err := protoschema.ParseOptions(meta.GetString(protoschema.MetaOptions))
	if err != nil {
		return nil, err
	}
	files, err := protoschema.ParseDescriptorSet(set)
	if err != nil {
		return nil, fmt.Errorf("assemble: the file's descriptors: %w", err)
	}
	md, err := protoschema.FindMessage(files, name)
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
	// fields do.
	mp, err := protoschema.New(mt.Descriptor(), mopts)
	if err != nil {
		return nil, err
	}
	// A selection leaves unknown fields out unless it names their field.
	ar, err := NewAvroReader(rd, &Options{ReaderSchema: mp.Schema(), Fields: o.Fields, MatchField: matchFieldNumber})
	if err != nil {
		return nil, err
	}
	own := o.MessageType == nil && len(o.Fields) == 0 && mp.Schema() == meta.GetString(layout.MetaAvroSchema)
	return &ProtoReader{ar: ar, conv: protovalue.NewConverter(mp, resolver), mt: mt, resolver: resolver, own: own}, nil
}

// SeekRow positions the reader before message row; see AvroReader.SeekRow.
func (pr *ProtoReader) SeekRow(row int64) error { return pr.ar.SeekRow(row) }

// StopAt makes the reader report io.EOF at message row; see
// AvroReader.StopAt.
func (pr *ProtoReader) StopAt(row int64) { pr.ar.StopAt(row) }

// MessageType returns the type messages are read into.
func (pr *ProtoReader) MessageType() protoreflect.MessageType { return pr.mt }

// RowCount returns the number of messages in the file.
func (pr *ProtoReader) RowCount() int64 { return pr.ar.RowCount() }

// Read resets m and fills it with the next message, or returns io.EOF
// after the last. m must be of the reader's message type.
func (pr *ProtoReader) Read(m proto.Message) error {
	v, err := pr.ar.Read()
	if err != nil {
		return err
	}
	rec, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("assemble: record %d is %T, not a record", pr.ar.row-1, v)
	}
	if err := pr.conv.FromAvro(rec, m.ProtoReflect()); err != nil {
		return fieldpath.Record(err, pr.ar.row-1)
	}
	return nil
}

// Next returns the next message in a new message of the reader's type, or
// io.EOF after the last.
func (pr *ProtoReader) Next() (proto.Message, error) {
	m := pr.mt.New().Interface()
	if err := pr.Read(m); err != nil {
		return nil, err
	}
	return m, nil
}

// ProtoOutput is the form of a stream of messages.
type ProtoOutput int

const (
	// DelimitedOutput: binary messages, each preceded by its length as a
	// varint.
	DelimitedOutput ProtoOutput = iota
	// JSONLinesOutput: one protojson message per line.
	JSONLinesOutput
)

// ToProtoStream writes every remaining message of pr to w and returns how
// many it wrote. Binary messages are marshalled deterministically.
func ToProtoStream(w io.Writer, pr *ProtoReader, form ProtoOutput, progress func(rows int64)) (int64, error) {
	bw := bufio.NewWriterSize(w, 256<<10)
	m := pr.mt.New().Interface()
	js := protojson.MarshalOptions{}
	var buf []byte
	var size [binary.MaxVarintLen64]byte
	var n int64
	for {
		var err error
		if form == DelimitedOutput {
			buf, err = pr.ReadWire(buf[:0])
		} else {
			err = pr.Read(m)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return n, err
		}
		switch form {
		case DelimitedOutput:
			if _, err := bw.Write(binary.AppendUvarint(size[:0], uint64(len(buf)))); err != nil {
				return n, err
			}
			if _, err := bw.Write(buf); err != nil {
				return n, err
			}
		case JSONLinesOutput:
			if buf, err = js.MarshalAppend(buf[:0], m); err != nil {
				return n, fieldpath.Record(err, n)
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

// matchFieldNumber matches a reader field to the writer field of the same
// protobuf field number (schemas derived from protobuf carry them): a
// renamed protobuf field is the same field. It is the hook
// Options.MatchField; protoschema.MatchFieldNumber is to replace it.
func matchFieldNumber(rf *schema.Field, ws *schema.Schema) int {
	n, ok := rf.Prop(protoschema.PropNumber)
	if !ok {
		return -1
	}
	for i, f := range ws.Fields {
		if m, ok := f.Prop(protoschema.PropNumber); ok && fmt.Sprint(m) == fmt.Sprint(n) {
			return i
		}
	}
	return -1
}
