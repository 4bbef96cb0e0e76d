package trevni

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/atomicfile"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/remote/store"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/schema/protoschema"
	"github.com/trevni-go/trevni/shred"
	"github.com/trevni-go/trevni/typemap/protovalue"
)

// Codec is the compression of a Trevni file's blocks.
type Codec string

// The codecs a Trevni file may be written with (WriteOptions), and an Avro
// container file (AvroOptions). Java's trevni-core reads all but Zstd.
const (
	Deflate Codec = format.CodecDeflate // raw deflate: the default
	Snappy  Codec = format.CodecSnappy  // fast, larger files
	Zstd    Codec = format.CodecZstd    // smaller and faster than deflate; Java cannot read it
	Bzip2   Codec = format.CodecBzip2   // small and slow
	NoCodec Codec = format.CodecNull    // blocks stored as they are
	XZ      Codec = "xz"                // Avro container files only (AvroOptions); a Trevni writer refuses it
)

// ParseCodec returns the codec of a name as the trevni command's --codec
// takes it ("null", "deflate", "snappy", "bzip2", "zstd", and for Avro
// container files "xz"; "zstandard", Avro's name, is Zstd too), or an
// error listing those names.
func ParseCodec(name string) (Codec, error) {
	switch c := Codec(name); c {
	case NoCodec, Deflate, Snappy, Bzip2, Zstd, XZ:
		return c, nil
	case format.CodecZstandard:
		return Zstd, nil
	}
	return "", fmt.Errorf("unknown codec %q (want null, deflate, snappy, bzip2, zstd or xz)", name)
}

// ParseChecksum returns the checksum of a name as the trevni command's
// --checksum takes it ("crc32", or the specification's "crc-32", and
// "null"), or an error listing those names.
func ParseChecksum(name string) (Checksum, error) {
	switch name {
	case string(CRC32), "crc-32":
		return CRC32, nil
	case string(NoChecksum):
		return NoChecksum, nil
	}
	return "", fmt.Errorf("unknown checksum %q (want crc32 or null)", name)
}

// Checksum is the check stored with each block of a Trevni file.
type Checksum string

// The checksums a Trevni file may be written with.
const (
	CRC32      Checksum = format.ChecksumCRC32 // CRC-32 of each uncompressed block: the default
	NoChecksum Checksum = "null"               // no check
)

// WriteOptions configures the Trevni files that Create, CreateStructs,
// CreateProto, ConvertAvro, Concat and the New... writers write. A nil
// *WriteOptions means the defaults, which are the trevni command's: the
// Deflate codec, CRC32 checksums, block statistics, 64 KiB blocks, a 16 MiB
// memory budget, and one goroutine.
type WriteOptions struct {
	// Codec compresses the blocks; "" means Deflate.
	Codec Codec
	// Checksum checks the blocks; "" means CRC32.
	Checksum Checksum
	// BlockSize is the uncompressed bytes at which a column's block is
	// cut; 0 means 64 KiB (format.DefaultBlockSize).
	BlockSize int
	// Memory bounds the finished blocks held in memory before they spill
	// to a temporary file (beside a local output, or in the system's
	// temporary directory); 0 means 16 MiB (format.DefaultMemoryBudget).
	Memory int64
	// Workers is how many goroutines decode, shred and compress (of
	// ConvertAvro, AppendAvro and Concat, and of the compression of every
	// writer); 0 or 1 means the calling goroutine alone. The records
	// written are the same; with several, blocks end where their ranges
	// do.
	Workers int
	// NoStats leaves out the per-block column statistics that filters use
	// to skip blocks (with NoCodec and NoChecksum the file is then byte
	// for byte what Java's trevni-core writes).
	NoStats bool
	// MaxColumns and MaxDepth bound the columns and the nesting of the
	// schema written; 0 means the defaults of package schema/layout.
	MaxColumns, MaxDepth int
	// MaxBlockSize bounds the uncompressed bytes of one block (a larger
	// value is an error); 0 means 64 MiB, the most a reader takes by
	// default (see format.WriterOptions.MaxBlockSize).
	MaxBlockSize int
	// TempDir is where the New... writers spill blocks past Memory; ""
	// means the system's temporary directory. (Create's spill beside
	// their output.)
	TempDir string
	// Progress, if set, is called by ConvertAvro and AppendAvro now and
	// then with the records written and the input bytes consumed so far.
	Progress func(records, bytesIn int64)
	// Replace lets an output that exists, or that appears while it is
	// written, be replaced. Without it that is an error wrapping
	// ErrExists and the output is left untouched. It does not apply to
	// the New... writers.
	Replace bool
	// Stores are the stores of URLs by scheme, used before the drivers
	// a program links (see OpenOptions.Stores).
	Stores map[string]Store
	// StoreRetries, StoreBackoff and StoreStall configure the requests
	// made to an object store (s3://, gs://, azblob://) by an upload, and
	// by ConvertAvro's and Concat's reads of their sources, as
	// OpenOptions' do: StoreStall fails an upload's request that makes no
	// progress for that long (0 means 30 s, negative no bound).
	StoreRetries int
	StoreBackoff time.Duration
	StoreStall   time.Duration
	// Meta is further file metadata (a program's own keys, or those of a
	// file being rewritten), written in this order after the codec and
	// checksum. The keys the writers set themselves (trevni.codec,
	// trevni.checksum, avro.schema, the protobuf descriptors) may not be
	// given: that is an error naming the key. Concat does not apply it.
	Meta []MetaEntry

	// keepMapOrder keeps the entries of maps written as Avro binary
	// (WriteBinary, AppendAvro, ConvertAvro) in their order, where by
	// default they are sorted by key (see shred.Options.KeepMapOrder).
	// The Parquet converter sets it (frontdoor.KeepMapOrder): a Parquet
	// MAP's entries have an order, which DuckDB and Arrow show.
	keepMapOrder bool
}

// MetaEntry is one key of a Trevni file's metadata and its value
// (WriteOptions.Meta).
type MetaEntry struct {
	Key   string
	Value []byte
}

// storeOptions returns the options of store requests o sets, nil for the
// defaults.
func (o *WriteOptions) storeOptions() *store.Options {
	if o == nil {
		return nil
	}
	return storeOptions(o.StoreRetries, o.StoreBackoff, o.StoreStall)
}

// checkMeta refuses a key of Meta that the writers set themselves.
func (o *WriteOptions) checkMeta() error {
	if o == nil {
		return nil
	}
	for _, m := range o.Meta {
		switch m.Key {
		case format.KeyCodec, format.KeyChecksum, layout.MetaAvroSchema:
			return fmt.Errorf("WriteOptions.Meta sets %s, which the writer sets itself (the codec and checksum through WriteOptions.Codec and Checksum)", m.Key)
		}
	}
	return nil
}

// shred returns the options of the writers beneath.
func (o *WriteOptions) shred() shred.Options {
	var w WriteOptions
	if o != nil {
		w = *o
	}
	so := shred.Options{
		WriterOptions: format.WriterOptions{
			Codec: string(w.Codec), Checksum: string(w.Checksum),
			BlockSize: w.BlockSize, MemoryBudget: w.Memory,
			Concurrency: max(w.Workers, 1), DisableStats: w.NoStats,
			MaxBlockSize: w.MaxBlockSize, TempDir: w.TempDir,
		},
		Progress:     w.Progress,
		Workers:      max(w.Workers, 1),
		KeepMapOrder: w.keepMapOrder,
	}
	for _, m := range w.Meta {
		so.Meta.Set(m.Key, m.Value)
	}
	if so.Codec == "" {
		so.Codec = string(Deflate)
	}
	if so.Checksum == "" {
		so.Checksum = string(CRC32)
	}
	if w.MaxColumns != 0 || w.MaxDepth != 0 {
		so.Layout = &layout.Options{MaxColumns: w.MaxColumns, MaxDepth: w.MaxDepth}
	}
	return so
}

// ErrExists is wrapped by the error of Create (and of Close) for an output
// that exists and may not be replaced.
var ErrExists = atomicfile.ErrExists

// output is where a file is written: a file or an object that appears
// under its name only when complete (frontdoor.Output, the one committer
// of the library and the command), or a caller's io.Writer.
type output struct {
	w    io.Writer
	file *frontdoor.Output // nil for a caller's io.Writer
	done bool              // committed or aborted
}

// create starts writing the file name: a local file or an object of a
// store (s3://, gs://, azblob://), uploaded as it is written. Spill files
// go to the private directory beside a local file, or to the system's
// temporary directory.
func create(ctx context.Context, name string, opts *WriteOptions) (*output, shred.Options, error) {
	so := opts.shred()
	if err := opts.check(); err != nil {
		return nil, so, err
	}
	var o WriteOptions
	if opts != nil {
		o = *opts
	}
	f, err := frontdoor.Create(ctx, name, o.Replace, o.Stores, o.storeOptions())
	if err != nil {
		return nil, so, err
	}
	so.TempDir = f.TempDir()
	return &output{w: f, file: f}, so, nil
}

// commit flushes the output and puts the file in place.
func (o *output) commit() error {
	if o.done {
		return errClosed
	}
	o.done = true
	if o.file == nil {
		return nil
	}
	return o.file.Commit()
}

// abort removes a file's temporary copy.
func (o *output) abort() {
	if o.done {
		return
	}
	o.done = true
	if o.file != nil {
		o.file.Abort()
	}
}

// finish closes the writer with close and commits the output, or aborts it.
func (o *output) finish(close func() error) error {
	if o.done {
		return errClosed
	}
	if err := close(); err != nil {
		o.abort()
		return err
	}
	return o.commit()
}

// errClosed is the error of a writer's Close after Close or Abort.
var errClosed = errors.New("trevni: the writer is closed")

// Writer writes Avro records into a Trevni file. It is not safe for
// concurrent use.
type Writer struct {
	aw       *shred.AvroWriter
	out      *output
	progress func(records, bytesIn int64) // WriteOptions.Progress, for AppendCSV
}

// Create starts a Trevni file of records of the Avro schema schemaText
// (JSON), written to a temporary file beside name and put in place by
// Close; Abort, or a failed Close, leaves nothing behind. name may be an
// object of a store (s3://bucket/key, gs://, azblob://): the file is then
// uploaded as it is written (in parts, for a large one) and the upload
// completed by Close, or abandoned by Abort, leaving no object. ctx bounds
// the upload, Close's included: when it ends, the upload fails.
func Create(ctx context.Context, name, schemaText string, opts *WriteOptions) (*Writer, error) {
	out, so, err := create(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	aw, err := shred.NewAvroWriter(out.w, schemaText, &so)
	if err != nil {
		out.abort()
		return nil, writeErr(fmt.Errorf("%s: %w", name, err))
	}
	return &Writer{aw: aw, out: out, progress: so.Progress}, nil
}

// NewWriter starts a Trevni file of records of the Avro schema schemaText,
// written to w by Close. Replace and Store in opts do not apply.
func NewWriter(w io.Writer, schemaText string, opts *WriteOptions) (*Writer, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	so := opts.shred()
	aw, err := shred.NewAvroWriter(w, schemaText, &so)
	if err != nil {
		return nil, writeErr(err)
	}
	return &Writer{aw: aw, out: &output{w: w}, progress: so.Progress}, nil
}

// Write writes one record, a goavro native value of the schema
// (map[string]any for a record, []any for an array ...). A record that
// does not fit the schema is an error (a *RecordError naming the record
// and the field) and is not written; writing may go on.
func (w *Writer) Write(record any) error { return writeErr(w.aw.Write(record)) }

// WriteBinary writes one record in Avro's binary encoding of the schema:
// the fast path, with no Go value per field.
func (w *Writer) WriteBinary(record []byte) error { return writeErr(w.aw.WriteBinary(record)) }

// AppendAvro writes every record of an Avro object container file whose
// schema has the writer's canonical form, decoding on WriteOptions.Workers
// goroutines; ctx stops it between blocks.
func (w *Writer) AppendAvro(ctx context.Context, in io.Reader) error {
	return writeErr(w.aw.AppendContainer(ctx, in))
}

// Records returns the number of records written so far.
func (w *Writer) Records() int64 { return w.aw.RowCount() }

// SchemaText returns the Avro schema of the records written, as JSON
// text.
func (w *Writer) SchemaText() string { return w.aw.Schema().String() }

// Close writes the file and, for Create, puts it in place.
func (w *Writer) Close() error { return writeErr(w.out.finish(w.aw.Close)) }

// Abort discards the file. It does nothing after Close.
func (w *Writer) Abort() {
	if w.out.done {
		return
	}
	w.aw.Abort()
	w.out.abort()
}

// StructWriter writes Go structs as the records of a Trevni file. A field
// of T matches the record field named by its `avro:"name"` tag, or else
// its Go name (or that name ignoring case); `avro:"-"` leaves a field out.
// See assemble.StructReader for the Go types that fit each Avro type. It
// is not safe for concurrent use.
type StructWriter[T any] struct {
	sw  *shred.StructWriter[T]
	out *output
}

// CreateStructs starts a Trevni file of records given as values of the
// struct type T, written as Create writes. schemaText is their Avro
// schema; "" derives one from T.
func CreateStructs[T any](ctx context.Context, name, schemaText string, opts *WriteOptions) (*StructWriter[T], error) {
	out, so, err := create(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	sw, err := shred.NewStructWriter[T](out.w, schemaText, &so)
	if err != nil {
		out.abort()
		return nil, writeErr(fmt.Errorf("%s: %w", name, err))
	}
	return &StructWriter[T]{sw: sw, out: out}, nil
}

// NewStructWriter starts a Trevni file of records given as values of the
// struct type T, written to w by Close. Replace and Store in opts do not
// apply.
func NewStructWriter[T any](w io.Writer, schemaText string, opts *WriteOptions) (*StructWriter[T], error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	so := opts.shred()
	sw, err := shred.NewStructWriter[T](w, schemaText, &so)
	if err != nil {
		return nil, writeErr(err)
	}
	return &StructWriter[T]{sw: sw, out: &output{w: w}}, nil
}

// Write writes rows and returns how many were written: all, or those
// before the first that does not fit the schema, whose error it returns.
func (w *StructWriter[T]) Write(rows []T) (int, error) {
	n, err := w.sw.Write(rows)
	return n, writeErr(err)
}

// Records returns the number of records written so far.
func (w *StructWriter[T]) Records() int64 { return w.sw.Writer().RowCount() }

// Close writes the file and, for CreateStructs, puts it in place.
func (w *StructWriter[T]) Close() error { return writeErr(w.out.finish(w.sw.Close)) }

// Abort discards the file. It does nothing after Close.
func (w *StructWriter[T]) Abort() {
	if w.out.done {
		return
	}
	w.sw.Abort()
	w.out.abort()
}

// ProtoWriter writes protobuf messages of one type into a Trevni file that
// also stores their descriptors, so that it reads back as protobuf with no
// .proto. It is not safe for concurrent use.
type ProtoWriter struct {
	pw  *shred.ProtoWriter
	out *output
}

// ProtoWriteOptions configures CreateProto and NewProtoWriter. A nil
// *ProtoWriteOptions means the defaults.
type ProtoWriteOptions struct {
	// WriteOptions configures the file, as for Create.
	WriteOptions
	// RecursionLimit is how many times a message type may be expanded
	// inside itself before a deeper occurrence is stored as serialized
	// bytes; 0 stores the first recurrence as bytes. The file records
	// it, and its readers read it back as written.
	RecursionLimit int
	// DropUnknown leaves out the column that keeps each message's unknown
	// fields and extensions: smaller files, but such messages do not
	// read back whole.
	DropUnknown bool
	// Resolver finds the types of extensions; nil means the global
	// registry.
	Resolver protovalue.Resolver
	// MaxJSONMessage bounds one line of a JSONLines stream
	// (ConvertProtoStream), in bytes; 0 means 4 MiB. A longer line is an
	// error naming it.
	MaxJSONMessage int64
}

// shred returns the options of the writer beneath.
func (o *ProtoWriteOptions) shred() shred.ProtoOptions {
	if o == nil {
		return shred.ProtoOptions{File: (*WriteOptions)(nil).shred()}
	}
	po := shred.ProtoOptions{File: o.WriteOptions.shred(), Resolver: o.Resolver, MaxJSONMessageSize: o.MaxJSONMessage}
	if o.RecursionLimit != 0 || o.DropUnknown {
		po.Mapping = &protoschema.Options{RecursionLimit: o.RecursionLimit, DropUnknown: o.DropUnknown}
	}
	return po
}

// CreateProto starts a Trevni file of messages of type md, written as
// Create writes.
func CreateProto(ctx context.Context, name string, md protoreflect.MessageDescriptor, opts *ProtoWriteOptions) (*ProtoWriter, error) {
	po := opts.shred()
	var wo *WriteOptions
	if opts != nil {
		wo = &opts.WriteOptions
	}
	out, so, err := create(ctx, name, wo)
	if err != nil {
		return nil, err
	}
	po.File = so
	pw, err := shred.NewProtoWriter(out.w, md, &po)
	if err != nil {
		out.abort()
		return nil, writeErr(fmt.Errorf("%s: %w", name, err))
	}
	return &ProtoWriter{pw: pw, out: out}, nil
}

// NewProtoWriter starts a Trevni file of messages of type md, written to w
// by Close. Replace and Store in opts do not apply.
func NewProtoWriter(w io.Writer, md protoreflect.MessageDescriptor, opts *ProtoWriteOptions) (*ProtoWriter, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	po := opts.shred()
	pw, err := shred.NewProtoWriter(w, md, &po)
	if err != nil {
		return nil, writeErr(err)
	}
	return &ProtoWriter{pw: pw, out: &output{w: w}}, nil
}

// Write writes one message, of the writer's type. A message that cannot
// be written (a proto2 required field unset, at any depth, as WriteWire
// refuses it too) is not, with an error naming the record and field;
// writing can go on.
func (w *ProtoWriter) Write(m proto.Message) error { return writeErr(w.pw.Write(m)) }

// WriteWire writes one message in the protobuf wire format: the fast
// path, with no message built.
func (w *ProtoWriter) WriteWire(msg []byte) error { return writeErr(w.pw.WriteWire(msg)) }

// Records returns the number of messages written so far.
func (w *ProtoWriter) Records() int64 { return w.pw.RowCount() }

// Close writes the file and, for CreateProto, puts it in place.
func (w *ProtoWriter) Close() error { return writeErr(w.out.finish(w.pw.Close)) }

// Abort discards the file. It does nothing after Close.
func (w *ProtoWriter) Abort() {
	if w.out.done {
		return
	}
	w.pw.Abort()
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
			in, err = store.OpenStream(ctx, st, src, wo.storeOptions())
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
		return n, writeErr(fmt.Errorf("%s: %w", src, err))
	}
	return n, out.commit()
}

// ConvertAvroStream writes to w a Trevni file of the records of the Avro
// object container file read from r (standard input, a pipe, a download),
// of the container's schema as its header gives it, through the fast path
// of ConvertAvro, and returns the records written. ctx stops it between
// blocks. Replace and Stores in opts do not apply; spill files go to
// TempDir.
func ConvertAvroStream(ctx context.Context, w io.Writer, r io.Reader, opts *WriteOptions) (int64, error) {
	if err := opts.check(); err != nil {
		return 0, err
	}
	so := opts.shred()
	n, err := shred.FromContainer(ctx, w, r, &so)
	return n, writeErr(err)
}
