package trevni

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"iter"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/fieldpath"
	"github.com/trevni-go/trevni/internal/protoset"
	"github.com/trevni-go/trevni/schema/protoschema"
	"github.com/trevni-go/trevni/typemap/protovalue"
)

// ProtoOptions selects the messages a protobuf read returns. A nil
// *ProtoOptions reads every field into dynamicpb messages built from the
// descriptors stored in the files.
type ProtoOptions struct {
	// ReadOptions gives the filter, the range and the limit; its Fields
	// are dotted paths of protobuf field names.
	ReadOptions
	// MessageType, if set, is the type to read into, such as a generated
	// message's; its fields may have evolved since the files were
	// written (see assemble.ProtoOptions).
	MessageType protoreflect.MessageType
	// Resolver finds extension and message types; nil means the types in
	// the files' descriptors, or the global registry with MessageType.
	Resolver protovalue.Resolver
}

// ProtoReader reads the messages of a data set of files written from
// protobuf, part after part, as one sequence. It is not safe for
// concurrent use. Close it when done.
type ProtoReader struct {
	r *Reader
}

// NewProtoReader returns a reader of the data set's messages.
func (ds *Dataset) NewProtoReader(ctx context.Context, opts *ProtoOptions) (*ProtoReader, error) {
	var o ProtoOptions
	if opts != nil {
		o = *opts
	}
	r := &Reader{ds: ds, ctx: ctx, opts: o.ReadOptions}
	r.make = func(rd *format.Reader) (partReader, error) {
		pm, err := assemble.NewProtoReader(rd, &assemble.ProtoOptions{
			MessageType: o.MessageType, Fields: o.Fields, Resolver: o.Resolver,
			Layout: ds.opts.layout(), Filter: o.Where, MaxRecordBytes: ds.opts.MaxRecordBytes,
		})
		if err != nil {
			return nil, err
		}
		return pm, nil
	}
	r.open = func(rd *format.Reader) (partReader, error) {
		pr, err := r.make(rd)
		if err == nil {
			r.pm = pr.(*assemble.ProtoReader)
		}
		return pr, err
	}
	if err := r.start(); err != nil {
		return nil, err
	}
	return &ProtoReader{r: r}, nil
}

// Read returns the next message, a new one, or io.EOF after the last.
func (p *ProtoReader) Read() (proto.Message, error) {
	return step(p.r, func() (proto.Message, error) { return p.r.pm.Read() })
}

// ReadWire appends the next message, in the protobuf wire format, to dst,
// or returns io.EOF after the last (see assemble.ProtoReader.ReadWire).
func (p *ProtoReader) ReadWire(dst []byte) ([]byte, error) {
	return step(p.r, func() ([]byte, error) { return p.r.pm.ReadWire(dst) })
}

// All returns an iterator over the remaining messages, as Read returns
// them. It stops after the last, or after yielding an error.
func (p *ProtoReader) All() iter.Seq2[proto.Message, error] {
	return func(yield func(proto.Message, error) bool) {
		for {
			m, err := p.Read()
			if err == io.EOF {
				return
			}
			if !yield(m, err) || err != nil {
				return
			}
		}
	}
}

// Row returns the data set's row after the message Read returned last.
func (p *ProtoReader) Row() int64 { return p.r.Row() }

// Records returns the number of messages returned so far.
func (p *ProtoReader) Records() int64 { return p.r.Records() }

// BytesRead returns the bytes read from the parts so far.
func (p *ProtoReader) BytesRead() int64 { return p.r.BytesRead() }

// Report returns what reading has cost so far, part by part.
func (p *ProtoReader) Report() []PartReport { return p.r.Report() }

// Close closes the part being read.
func (p *ProtoReader) Close() error { return p.r.Close() }

// Messages returns an iterator over the data set's messages, for files
// written from protobuf: each a new message. It stops after the last or
// the first error, which it yields.
func (ds *Dataset) Messages(ctx context.Context, opts *ProtoOptions) iter.Seq2[proto.Message, error] {
	return func(yield func(proto.Message, error) bool) {
		p, err := ds.NewProtoReader(ctx, opts)
		if err != nil {
			yield(nil, err)
			return
		}
		defer p.Close()
		for m, err := range p.All() {
			if !yield(m, err) {
				return
			}
		}
	}
}

// Framing is how WriteProto separates the messages it writes (package
// schema/protoschema's type, named here).
type Framing = protoschema.Framing

// The framings of WriteProto.
const (
	// Delimited writes binary messages, each preceded by its length as a
	// varint (protodelim's form, Java's writeDelimitedTo).
	Delimited = protoschema.Delimited
	// JSONLines writes one protojson message per line.
	JSONLines = protoschema.JSONLines
)

// WriteProto writes the data set's messages to w in form (Delimited
// binary, or JSONLines) and returns how many it wrote. opts.Progress,
// if set, is called now and then with the messages written and the bytes
// read so far.
func (ds *Dataset) WriteProto(ctx context.Context, w io.Writer, form Framing, opts *ProtoOptions) (int64, error) {
	p, err := ds.NewProtoReader(ctx, opts)
	if err != nil {
		return 0, err
	}
	defer p.Close()
	return p.writeTo(ctx, w, form, opts)
}

// writeTo is WriteProto's writing of p's remaining messages.
func (p *ProtoReader) writeTo(ctx context.Context, w io.Writer, form protoschema.Framing, opts *ProtoOptions) (int64, error) {
	r := p.r
	if n := r.workers(); n > 1 && (form == protoschema.Delimited || form == protoschema.JSONLines) {
		return r.writeProtoParallel(w, n, form)
	}
	var total int64
	var so *assemble.ProtoStreamOptions
	if opts != nil && opts.Progress != nil {
		so = &assemble.ProtoStreamOptions{Progress: func(n int64) { opts.Progress(total+n, r.BytesRead()) }}
	}
	for r.part != nil {
		n, err := assemble.ToProtoStream(ctx, w, r.pm, form, so)
		total += n
		r.n += n
		if err != nil {
			return total, partErr(r.file.part.Name(), err)
		}
		if err := r.next(); err == io.EOF {
			break
		} else if err != nil {
			return total, err
		}
	}
	return total, nil
}

// writeProtoParallel is WriteProto on n workers.
func (r *Reader) writeProtoParallel(w io.Writer, n int, form protoschema.Framing) (int64, error) {
	newEnc := func() encodeFunc {
		var (
			wire []byte
			m    proto.Message
			js   protoset.JSONOptions
		)
		return func(pr partReader, dst []byte) ([]byte, error) {
			pm := pr.(*assemble.ProtoReader)
			var err error
			if form == protoschema.Delimited {
				if wire, err = pm.ReadWire(wire[:0]); err != nil {
					return dst, err
				}
				dst = binary.AppendUvarint(dst, uint64(len(wire)))
				return append(dst, wire...), nil
			}
			if m == nil {
				m = pm.MessageType().New().Interface()
			}
			if err := pm.ReadInto(m); err != nil {
				return dst, err
			}
			if dst, err = protoset.AppendJSON(dst, m, js); err != nil {
				return dst, fieldpath.Record(err, pm.Row()-1)
			}
			return append(dst, '\n'), nil
		}
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	written, err := r.writeParallel(n, newEnc, func(data []byte, _ []int) error {
		_, err := bw.Write(data)
		return err
	})
	if err != nil {
		if err == r.ctx.Err() {
			err = fmt.Errorf("trevni: writing protobuf: %w", err)
		}
		return written, err
	}
	return written, bw.Flush()
}
