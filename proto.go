package trevni

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/schema/protoschema"
	"github.com/trevni-go/trevni/typemap/protovalue"
)

// ProtoOptions selects the messages a protobuf read returns. A nil
// *ProtoOptions reads every field into dynamicpb messages built from the
// descriptors stored in the files.
type ProtoOptions struct {
	// ReadOptions gives the filter, the offset and the limit; its Fields
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

// eachProto calls fn with a ProtoReader over each part's messages in the
// range opts selects, and the messages still wanted (negative for no
// limit); fn returns how many it took.
func (ds *Dataset) eachProto(ctx context.Context, opts *ProtoOptions, fn func(pr *assemble.ProtoReader, f *File, remaining int64) (int64, error)) error {
	var o ProtoOptions
	if opts != nil {
		o = *opts
	}
	sp, err := newSpan(&o.ReadOptions)
	if err != nil {
		return err
	}
	for _, p := range ds.parts {
		if sp.done() {
			return nil
		}
		from, to, read := sp.next(p.rows)
		if !read {
			continue
		}
		if p.format != Trevni2 {
			return fmt.Errorf("%s: a %s file is not written from protobuf", p.Name(), p.format)
		}
		err := func() error {
			f, err := p.openFor(ctx, openRecords)
			if err != nil {
				return err
			}
			defer f.Close()
			pr, err := assemble.NewProtoReader(f.trevni, &assemble.ProtoOptions{
				MessageType: o.MessageType, Fields: o.Fields, Resolver: o.Resolver,
				Layout: ds.opts.Layout, Filter: o.Where, MaxRecordBytes: ds.opts.MaxRecordBytes,
			})
			if err == nil && from > 0 {
				err = pr.SeekRow(from)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", p.Name(), err)
			}
			pr.StopAt(to)
			n, err := fn(pr, f, sp.remaining)
			sp.took(n)
			if err != nil && !errors.Is(err, errStop) {
				return fmt.Errorf("%s: %w", p.Name(), err)
			}
			return err
		}()
		if errors.Is(err, errStop) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// errStop ends eachProto early without an error.
var errStop = errors.New("stop")

// Messages returns an iterator over the data set's messages, for files
// written from protobuf: each a new message. It stops after the last or
// the first error, which it yields.
func (ds *Dataset) Messages(ctx context.Context, opts *ProtoOptions) iter.Seq2[proto.Message, error] {
	return func(yield func(proto.Message, error) bool) {
		err := ds.eachProto(ctx, opts, func(pr *assemble.ProtoReader, _ *File, remaining int64) (int64, error) {
			var n int64
			for remaining < 0 || n < remaining {
				m, err := pr.Read()
				if err == io.EOF {
					return n, nil
				}
				if err != nil {
					return n, err
				}
				n++
				if n%4096 == 0 {
					if err := ctx.Err(); err != nil {
						return n, err
					}
				}
				if !yield(m, nil) {
					return n, errStop
				}
			}
			return n, nil
		})
		if err != nil {
			yield(nil, err)
		}
	}
}

// WriteProto writes the data set's messages to w in form (length-delimited
// binary, or protojson lines) and returns how many it wrote. opts.Progress,
// if set, is called now and then with the messages written and the bytes
// read so far.
func (ds *Dataset) WriteProto(ctx context.Context, w io.Writer, form protoschema.Framing, opts *ProtoOptions) (int64, error) {
	var total, bytes int64 // of the parts done
	err := ds.eachProto(ctx, opts, func(pr *assemble.ProtoReader, f *File, remaining int64) (int64, error) {
		pr.SetLimit(remaining)
		var so *assemble.ProtoStreamOptions
		if opts != nil && opts.Progress != nil {
			so = &assemble.ProtoStreamOptions{Progress: func(n int64) { opts.Progress(total+n, bytes+f.BytesRead()) }}
		}
		n, err := assemble.ToProtoStream(ctx, w, pr, form, so)
		total += n
		bytes += f.BytesRead()
		return n, err
	})
	return total, err
}
