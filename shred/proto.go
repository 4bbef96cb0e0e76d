package shred

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/fieldpath"
	"github.com/trevni-go/trevni/internal/protoset"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/schema/protoschema"
	"github.com/trevni-go/trevni/typemap/protovalue"
	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// ProtoOptions configures a ProtoWriter and FromProtoStream. A nil
// *ProtoOptions means the defaults.
type ProtoOptions struct {
	// File configures the Trevni file as for an AvroWriter: codec,
	// checksum, block size, memory budget, metadata; its Layout bounds the
	// column layout and the mapping (raise MaxColumns for a message type
	// with more fields, or a higher recursion limit), and its Progress is
	// called by FromProtoStream every 4096 messages and at the end with
	// the messages written and the input bytes consumed.
	File Options
	// Mapping configures the protobuf to Avro mapping; nil means the
	// defaults. Its Limits, when nil, are File.Layout.
	Mapping *protoschema.Options
	// Resolver finds the types of extensions; nil means the global
	// registry.
	Resolver protovalue.Resolver
	// MaxJSONMessageSize bounds one line of JSONLines input, in bytes; 0
	// means DefaultMaxJSONMessageSize. A longer line is an error naming
	// the message.
	MaxJSONMessageSize int64
}

// DefaultMaxJSONMessageSize is the default of
// ProtoOptions.MaxJSONMessageSize. A message parsed from protojson into a
// dynamic message takes many times its text's size in memory (a wide
// google.protobuf.Struct, about 140 times), so the bound is far below the
// binary one.
const DefaultMaxJSONMessageSize = 4 << 20

// ProtoWriter shreds protobuf messages of one type into a Trevni file. The
// file is an ordinary Avro-Trevni file, of the Avro schema protoschema
// derives from the message type, that also stores the message's
// descriptors (protobuf.descriptor_set, protobuf.message and
// protobuf.options), so it can be read back as protobuf with no .proto.
type ProtoWriter struct {
	aw       *AvroWriter
	conv     *protovalue.Converter
	md       protoreflect.MessageDescriptor
	rec      map[string]any
	resolver protovalue.Resolver
	wire     *wireParser        // WriteWire's parser, built on first use
	dyn      *dynamicpb.Message // WriteWire's reflective fallback
}

// NewProtoWriter returns a writer of messages of type md.
func NewProtoWriter(out io.Writer, md protoreflect.MessageDescriptor, opts *ProtoOptions) (*ProtoWriter, error) {
	var o ProtoOptions
	if opts != nil {
		o = *opts
	}
	if md == nil {
		return nil, errors.New("shred: nil message descriptor")
	}
	var mo protoschema.Options
	if o.Mapping != nil {
		mo = *o.Mapping
	}
	if mo.Limits == nil {
		mo.Limits = o.File.Layout
	}
	conv, err := protovalue.NewConverter(md, &protovalue.Options{Mapping: &mo, Resolver: o.Resolver})
	if err != nil {
		return nil, err
	}
	mp := conv.Mapping()
	set, err := protoset.SetFor(md)
	if err != nil {
		return nil, err
	}
	fo := o.File
	fo.Meta = o.File.Meta.Clone()
	for _, k := range []string{protoset.MetaDescriptorSet, protoset.MetaMessage, protoschema.MetaOptions} {
		if fo.Meta.Has(k) {
			return nil, fmt.Errorf("shred: options metadata must not set %s", k)
		}
	}
	fo.Meta.Set(protoset.MetaDescriptorSet, set)
	fo.Meta.SetString(protoset.MetaMessage, string(md.FullName()))
	fo.Meta.SetString(protoschema.MetaOptions, mo.String())
	aw, err := newAvroWriter(out, mp.Schema, mp.Schema.String(), &fo)
	if err != nil {
		return nil, err
	}
	return &ProtoWriter{aw: aw, conv: conv, md: md, resolver: o.Resolver}, nil
}

// Write writes one message, which must be of the writer's type. A message
// that cannot be written is not, and writing can go on; the error is a
// *schema.Error with the message's record number and field path. As with
// WriteWire, proto2 required fields must be set: a message missing one
// (at any depth) is refused with WriteWire's error, naming the field.
func (pw *ProtoWriter) Write(m proto.Message) error {
	r := m.ProtoReflect()
	if r.Descriptor().FullName() != pw.md.FullName() {
		return fmt.Errorf("shred: message %s written to a file of %s", r.Descriptor().FullName(), pw.md.FullName())
	}
	if proto.CheckInitialized(m) != nil {
		// A required field unset: the wire path says which, where, in
		// its words, and writes the message only if it accepts it.
		b, err := partialOpts.Marshal(m)
		if err != nil {
			return pw.aw.recordError(fieldpath.New(err))
		}
		return pw.WriteWire(b)
	}
	rec, err := pw.conv.ToAvroInto(r, pw.rec)
	if err != nil {
		return pw.aw.recordError(err)
	}
	pw.rec = rec
	return pw.aw.Write(rec)
}

// Schema returns the Avro schema of the file, which protoschema derives
// from the message type.
func (pw *ProtoWriter) Schema() *schema.Schema { return pw.aw.Schema() }

// Columns returns the file's columns.
func (pw *ProtoWriter) Columns() []layout.Column { return pw.aw.Columns() }

// RowCount returns the number of messages written.
func (pw *ProtoWriter) RowCount() int64 { return pw.aw.RowCount() }

// Close writes the file. It does not close the output.
func (pw *ProtoWriter) Close() error { return pw.aw.Close() }

// Abort discards the file and releases its temporary storage.
func (pw *ProtoWriter) Abort() { pw.aw.Abort() }

// partialOpts marshals a message missing required fields, for WriteWire
// to locate them.
var partialOpts = proto.MarshalOptions{AllowPartial: true}

// maxMessageSize bounds one message of a delimited stream.
const maxMessageSize = 256 << 20

// FromProtoStream converts a stream of messages of type md, framed as
// form says, into a Trevni file written to out, and returns the number of messages written. An
// error names the message (counting from 0) and where it starts in the
// input. Cancelling ctx stops it between messages; the file is then not
// written.
//
// The messages are parsed on opts.File.Workers goroutines (0 means
// runtime.GOMAXPROCS(0)), each taking ranges of whole messages that a
// reader cuts by their length prefixes or at line ends, as
// AppendContainer does with container blocks: the records are written in
// the order of the stream, the memory budget is shared, and an error
// names the message one goroutine would have named. Progress is then
// called once per segment joined.
func FromProtoStream(ctx context.Context, out io.Writer, in io.Reader, form protoschema.Framing, md protoreflect.MessageDescriptor, opts *ProtoOptions) (int64, error) {
	pw, err := NewProtoWriter(out, md, opts)
	if err != nil {
		return 0, err
	}
	var o ProtoOptions
	if opts != nil {
		o = *opts
	}
	progress := o.File.Progress
	cr := &countingReader{r: in}
	br := bufio.NewReaderSize(cr, 256<<10)
	m := protoset.MessageType(md).New().Interface()
	js := jsonDecoder{resolver: o.Resolver}
	maxLine := o.MaxJSONMessageSize
	if maxLine <= 0 {
		maxLine = DefaultMaxJSONMessageSize
	}
	// A message from JSON may be nested no deeper, counted as the binary
	// encoding nests it, than the file's types may be: what the readers
	// can give back.
	maxDepth := layout.DefaultMaxDepth
	if l := o.File.Layout; l != nil && l.MaxDepth > 0 {
		maxDepth = l.MaxDepth
	}
	var line []byte
	done := ctx.Done()
	fail := func(start int64, err error) (int64, error) {
		pw.Abort()
		return pw.RowCount(), newStreamError(pw.RowCount(), start, err)
	}
	if n := pw.aw.parallelWorkers(); n > 1 && (form == protoschema.Delimited || form == protoschema.JSONLines) {
		if err := ctx.Err(); err != nil {
			pw.Abort()
			return 0, fmt.Errorf("shred: stopped at message 0: %w", err)
		}
		var read func(ctx context.Context, p *pipeline)
		var newShred func() func(ctx context.Context, w *worker, rg *workRange) error
		if form == protoschema.Delimited {
			read = func(ctx context.Context, p *pipeline) { readDelimitedRanges(ctx, br, p) }
			newShred = func() func(ctx context.Context, w *worker, rg *workRange) error {
				return func(ctx context.Context, w *worker, rg *workRange) error { return w.shredDelimited(ctx, rg, pw) }
			}
		} else {
			read = func(ctx context.Context, p *pipeline) { readJSONRanges(ctx, br, p, maxLine) }
			newShred = func() func(ctx context.Context, w *worker, rg *workRange) error {
				m := protoset.MessageType(md).New().Interface() // the worker's
				return func(ctx context.Context, w *worker, rg *workRange) error {
					return w.shredJSON(ctx, rg, pw, js, m, maxDepth)
				}
			}
		}
		rows, err := pw.fromStreamParallel(ctx, n, read, newShred)
		if err != nil {
			return rows, err
		}
		if progress != nil {
			progress(rows, cr.n)
		}
		return rows, pw.Close()
	}
	var msg []byte
	for {
		select {
		case <-done:
			pw.Abort()
			return pw.RowCount(), fmt.Errorf("shred: stopped at message %d: %w", pw.RowCount(), ctx.Err())
		default:
		}
		start := cr.n - int64(br.Buffered())
		var err error
		switch form {
		case protoschema.Delimited:
			if msg, err = readDelimited(br, msg); err == nil {
				err = pw.WriteWire(msg)
			}
		case protoschema.JSONLines:
			line, err = readLine(br, line[:0], 0, maxLine)
			if err == io.EOF && len(bytes.TrimSpace(line)) > 0 {
				err = nil
			}
			if err == nil {
				if len(bytes.TrimSpace(line)) == 0 {
					continue
				}
				proto.Reset(m)
				if err = js.Unmarshal(line, m); err == nil {
					if tooDeep(m.ProtoReflect(), 1, maxDepth) {
						err = fmt.Errorf("%w: message nested more than %d deep (as its binary encoding nests it; layout.Options.MaxDepth)", schema.ErrTooLarge, maxDepth)
					} else {
						err = pw.Write(m)
					}
				}
			}
		default:
			err = fmt.Errorf("shred: unknown message framing %v", form)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(start, err)
		}
		if progress != nil && pw.RowCount()%4096 == 0 {
			progress(pw.RowCount(), cr.n-int64(br.Buffered()))
		}
	}
	if progress != nil {
		progress(pw.RowCount(), cr.n)
	}
	return pw.RowCount(), pw.Close()
}

// readLine appends the next line of br to buf, its newline included,
// failing once the line, from buf[from] on, passes limit bytes.
func readLine(br *bufio.Reader, buf []byte, from int, limit int64) ([]byte, error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if int64(len(buf)-from)+int64(len(chunk)) > limit {
			return buf, fmt.Errorf("%w: a line longer than %d bytes (ProtoOptions.MaxJSONMessageSize)", format.ErrRecordSize, limit)
		}
		buf = append(buf, chunk...)
		if err != bufio.ErrBufferFull {
			return buf, err
		}
	}
}

// tooDeep reports whether m, at depth depth, holds messages nested deeper
// than limit, counting as the binary encoding nests them (a map entry is
// a message).
func tooDeep(m protoreflect.Message, depth, limit int) bool {
	if depth > limit {
		return true
	}
	deep := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					deep = tooDeep(mv.Message(), depth+2, limit)
					return !deep
				})
			}
		case fd.IsList():
			if fd.Message() != nil {
				l := v.List()
				for i := 0; i < l.Len() && !deep; i++ {
					deep = tooDeep(l.Get(i).Message(), depth+1, limit)
				}
			}
		case fd.Message() != nil:
			deep = tooDeep(v.Message(), depth+1, limit)
		}
		return !deep
	})
	return deep
}

// readDelimited reads the next length-delimited message into buf's
// storage. It returns io.EOF at the end of the input, io.ErrUnexpectedEOF
// within a message, and a *protodelim.SizeTooLargeError for a length past
// maxMessageSize. The buffer grows with the data read, not with the length
// the input claims.
func readDelimited(br *bufio.Reader, buf []byte) ([]byte, error) {
	size, err := binary.ReadUvarint(br)
	if err != nil {
		return buf, err
	}
	if size > maxMessageSize {
		return buf, &protodelim.SizeTooLargeError{Size: size, MaxSize: maxMessageSize}
	}
	n := int(size)
	buf = buf[:0]
	for len(buf) < n {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(n-len(buf), max(len(buf), 64<<10)))
		}
		k, err := io.ReadFull(br, buf[len(buf):min(n, cap(buf))])
		buf = buf[:len(buf)+k]
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return buf, err
		}
	}
	return buf, nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// jsonDecoder decodes protojson messages, resolving types with resolver
// (nil: the global registry), through internal/protoset.
type jsonDecoder struct{ resolver protovalue.Resolver }

// Unmarshal decodes the protojson b into m.
func (d jsonDecoder) Unmarshal(b []byte, m proto.Message) error {
	var r protoset.Resolver
	if d.resolver != nil {
		r = d.resolver
	}
	return protoset.UnmarshalJSON(b, m, r)
}
