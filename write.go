package trevni

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/trevni-go/trevni/internal/atomicfile"
	"github.com/trevni-go/trevni/remote/store"
	"github.com/trevni-go/trevni/shred"
)

// WriteOptions configures the Trevni files Create, CreateStructs,
// CreateProto and NewWriter write. A nil *WriteOptions means the defaults:
// no codec, statistics on, 64 KiB blocks, a 16 MiB memory budget
// (format.DefaultMemoryBudget).
type WriteOptions struct {
	// Options configures the file: codec, checksum, block size, memory
	// budget (past which finished blocks spill to a temporary file),
	// metadata, layout bounds and progress (see shred.Options), and
	// Workers: how many goroutines ConvertAvro and AppendAvro decode and
	// shred on (0: one per core, GOMAXPROCS; 1: one).
	shred.Options
	// Replace lets Create replace a file that exists, or that appears
	// while it writes. Without it that is an error and the file is left
	// untouched.
	Replace bool
	// Store configures the requests made to an object store (s3://,
	// gs://, azblob://) by an upload, and by ConvertAvro's read of its
	// source: the stall that fails a request without progress (see
	// store.Options); nil means the defaults.
	Store *store.Options
	// Stores are the stores of URLs by scheme, used before the drivers
	// a program links (see Options.Stores).
	Stores map[string]store.Store
}

// ErrExists is wrapped by the error of Create (and of Close) for an output
// that exists and may not be replaced.
var ErrExists = atomicfile.ErrExists

// output is where a file is written: a file or an object that appears
// under its name only when complete, or a caller's io.Writer.
type output struct {
	w    io.Writer
	bw   *bufio.Writer
	file committer // nil for a caller's io.Writer
}

// committer is a file written whole before it appears under its name: a
// temporary file beside it (atomicfile.File) or an upload to an object
// store (store.Writer).
type committer interface {
	io.Writer
	Commit() error
	Abort() error
	TempDir() string
}

// createFile starts the file or object name, refusing to replace one that
// exists unless replace is set. ctx bounds an upload; o's Store configures
// its requests.
func createFile(ctx context.Context, name string, replace bool, o *WriteOptions) (committer, error) {
	if store.IsURL(name, o.Stores) {
		st, err := store.For(name, o.Stores)
		if err != nil {
			return nil, err
		}
		w, err := st.Create(ctx, name, replace, o.Store)
		if err != nil {
			return nil, err
		}
		return w, nil
	}
	f, err := atomicfile.Create(name, replace)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// create starts writing the file name: a local file or an object of a
// store (s3://, gs://, azblob://), uploaded as it is written. Spill files
// go to the private directory beside a local file, or to the system's
// temporary directory.
func create(ctx context.Context, name string, opts *WriteOptions) (*output, shred.Options, error) {
	var o WriteOptions
	if opts != nil {
		o = *opts
	}
	f, err := createFile(ctx, name, o.Replace, &o)
	if err != nil {
		return nil, o.Options, err
	}
	if o.WriterOptions.TempDir == "" {
		o.WriterOptions.TempDir = f.TempDir()
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	return &output{w: bw, bw: bw, file: f}, o.Options, nil
}

// commit flushes the output and puts the file in place.
func (o *output) commit() error {
	if o.file == nil {
		return nil
	}
	if err := o.bw.Flush(); err != nil {
		o.file.Abort()
		return err
	}
	return o.file.Commit()
}

// abort removes a file's temporary copy.
func (o *output) abort() {
	if o.file != nil {
		o.file.Abort()
	}
}

// finish closes the writer with close and commits the output, or aborts it.
func (o *output) finish(close func() error) error {
	if err := close(); err != nil {
		o.abort()
		return err
	}
	return o.commit()
}

// Writer writes Avro records into a Trevni file. It is not safe for
// concurrent use.
type Writer struct {
	*shred.AvroWriter
	out *output
}

// Create starts a Trevni file of records of the Avro schema schemaText
// (JSON), written to a temporary file beside name and put in place by
// Close; Abort, or a failed Close, leaves nothing behind. name may be an
// object of a store (s3://bucket/key, gs://, azblob://): the file is then
// uploaded as it is written (in parts, for a large one) and the upload
// completed by Close, or abandoned by Abort, leaving no object.
func Create(name, schemaText string, opts *WriteOptions) (*Writer, error) {
	out, so, err := create(context.Background(), name, opts)
	if err != nil {
		return nil, err
	}
	aw, err := shred.NewAvroWriter(out.w, schemaText, &so)
	if err != nil {
		out.abort()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &Writer{AvroWriter: aw, out: out}, nil
}

// NewWriter starts a Trevni file of records of the Avro schema schemaText,
// written to w by Close. Replace in opts does not apply.
func NewWriter(w io.Writer, schemaText string, opts *WriteOptions) (*Writer, error) {
	var so *shred.Options
	if opts != nil {
		so = &opts.Options
	}
	aw, err := shred.NewAvroWriter(w, schemaText, so)
	if err != nil {
		return nil, err
	}
	return &Writer{AvroWriter: aw, out: &output{w: w}}, nil
}

// AppendAvro writes every record of an Avro object container file whose
// schema has the writer's canonical form (see shred.AvroWriter's
// AppendContainer).
func (w *Writer) AppendAvro(ctx context.Context, in io.Reader) error {
	return w.AppendContainer(ctx, in)
}

// Close writes the file and, for Create, puts it in place.
func (w *Writer) Close() error { return w.out.finish(w.AvroWriter.Close) }

// Abort discards the file.
func (w *Writer) Abort() {
	w.AvroWriter.Abort()
	w.out.abort()
}

// StructWriter writes Go structs as the records of a Trevni file (see
// shred.StructWriter for the Go types that fit the Avro schema).
type StructWriter[T any] struct {
	*shred.StructWriter[T]
	out *output
}

// CreateStructs starts a Trevni file of records of the Avro schema
// schemaText, given as values of the struct type T, written as Create
// writes.
func CreateStructs[T any](name, schemaText string, opts *WriteOptions) (*StructWriter[T], error) {
	out, so, err := create(context.Background(), name, opts)
	if err != nil {
		return nil, err
	}
	sw, err := shred.NewStructWriter[T](out.w, schemaText, &so)
	if err != nil {
		out.abort()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &StructWriter[T]{StructWriter: sw, out: out}, nil
}

// Close writes the file and puts it in place.
func (w *StructWriter[T]) Close() error { return w.out.finish(w.StructWriter.Close) }

// Abort discards the file.
func (w *StructWriter[T]) Abort() {
	w.StructWriter.Abort()
	w.out.abort()
}

// ProtoWriter writes protobuf messages of one type into a Trevni file that
// also stores their descriptors, so that it reads back as protobuf with no
// .proto.
type ProtoWriter struct {
	*shred.ProtoWriter
	out *output
}

// ProtoWriteOptions configures CreateProto. A nil *ProtoWriteOptions means
// the defaults.
type ProtoWriteOptions struct {
	// ProtoOptions configures the file and the protobuf to Avro mapping.
	shred.ProtoOptions
	// Replace lets CreateProto replace a file that exists.
	Replace bool
}

// CreateProto starts a Trevni file of messages of type md, written as
// Create writes.
func CreateProto(name string, md protoreflect.MessageDescriptor, opts *ProtoWriteOptions) (*ProtoWriter, error) {
	var o ProtoWriteOptions
	if opts != nil {
		o = *opts
	}
	out, so, err := create(context.Background(), name, &WriteOptions{Options: o.File, Replace: o.Replace})
	if err != nil {
		return nil, err
	}
	o.File = so
	pw, err := shred.NewProtoWriter(out.w, md, &o.ProtoOptions)
	if err != nil {
		out.abort()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &ProtoWriter{ProtoWriter: pw, out: out}, nil
}

// Write writes one message.
func (w *ProtoWriter) Write(m proto.Message) error { return w.ProtoWriter.Write(m) }

// Close writes the file and puts it in place.
func (w *ProtoWriter) Close() error { return w.out.finish(w.ProtoWriter.Close) }

// Abort discards the file.
func (w *ProtoWriter) Abort() {
	w.ProtoWriter.Abort()
	w.out.abort()
}

// ConvertAvro converts the Avro object container file src into the Trevni
// file dst, through the fast path, and returns the records written. dst is
// written as Create writes; either may be an object of a store.
func ConvertAvro(ctx context.Context, dst, src string, opts *WriteOptions) (int64, error) {
	var in io.ReadCloser
	var err error
	var wo WriteOptions
	if opts != nil {
		wo = *opts
	}
	if store.IsURL(src, wo.Stores) {
		var st store.Store
		if st, err = store.For(src, wo.Stores); err == nil {
			in, err = store.OpenStream(ctx, st, src, wo.Store)
		}
	} else {
		in, err = os.Open(src)
	}
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, so, err := create(ctx, dst, opts)
	if err != nil {
		return 0, err
	}
	n, err := shred.FromContainer(ctx, out.w, bufio.NewReaderSize(in, 1<<20), &so)
	if err != nil {
		out.abort()
		return n, fmt.Errorf("%s: %w", src, err)
	}
	return n, out.commit()
}
