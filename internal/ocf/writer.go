package ocf

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/trevni-go/trevni/internal/avrobin"
	"github.com/trevni-go/trevni/internal/codec"
)

// WriterOptions configures a Writer. The zero value writes uncompressed
// blocks of about DefaultBlockSize bytes with a random sync marker.
type WriterOptions struct {
	// Codec names the block codec: one of internal/codec's names. Empty
	// means codec.Null.
	Codec string

	// Level is the compression level; 0 selects the codec's default.
	// deflate and bzip2 take 1 to 9, zstandard 1 to 22 (zstd levels,
	// mapped to the nearest level the encoder implements). null, snappy
	// and xz ignore it.
	Level int

	// SyncMarker is the file's sync marker. The zero value asks for a
	// random one from crypto/rand; set it for reproducible output.
	SyncMarker [SyncSize]byte

	// Metadata holds extra header entries, written after avro.schema and
	// avro.codec in key order. It must not contain those two keys.
	Metadata map[string][]byte

	// BlockSize is the number of uncompressed record bytes after which
	// Append cuts a block. Zero or less selects DefaultBlockSize.
	BlockSize int
}

// headroom is the space kept in front of block payloads for the record
// count and byte size, so that a block goes out in one Write.
const headroom = 2 * avrobin.MaxVarintLen

// Writer writes an Avro object container file. It writes the header when
// created and one block per Flush, or whenever Append has gathered
// BlockSize bytes. It never writes a block of zero records. A Writer is not
// safe for concurrent use.
type Writer struct {
	w         io.Writer
	comp      compressor // nil for the null codec
	sync      [SyncSize]byte
	blockSize int
	pending   []byte // headroom, then the records of the open block
	count     int64  // records in the open block
	out       []byte // headroom, then a compressed payload, then the sync marker
	err       error  // sticky write error
	closed    bool
}

// NewWriter writes a container header for schema to w and returns a Writer
// for its blocks. The schema string is stored exactly as given; it is not
// parsed.
func NewWriter(w io.Writer, schema string, opts WriterOptions) (*Writer, error) {
	if schema == "" {
		return nil, errors.New("ocf: empty schema")
	}
	name := canonicalCodec(opts.Codec)
	if name == "" {
		name = codec.Null
	}
	comp, err := newCompressor(name, opts.Level)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(opts.Metadata))
	for k := range opts.Metadata {
		if k == MetaSchema || k == MetaCodec {
			return nil, fmt.Errorf("ocf: metadata key %q is reserved", k)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)

	wr := &Writer{
		w:         w,
		comp:      comp,
		sync:      opts.SyncMarker,
		blockSize: opts.BlockSize,
		pending:   make([]byte, headroom),
		out:       make([]byte, headroom),
	}
	if wr.blockSize <= 0 {
		wr.blockSize = DefaultBlockSize
	}
	if wr.sync == [SyncSize]byte{} {
		if _, err := rand.Read(wr.sync[:]); err != nil {
			return nil, fmt.Errorf("ocf: sync marker: %w", err)
		}
	}

	h := []byte(magic)
	h = avrobin.AppendLong(h, int64(2+len(keys)))
	h = appendString(h, MetaSchema)
	h = appendString(h, schema)
	h = appendString(h, MetaCodec)
	h = appendString(h, name)
	for _, k := range keys {
		h = appendString(h, k)
		h = appendString(h, string(opts.Metadata[k]))
	}
	h = avrobin.AppendLong(h, 0)
	h = append(h, wr.sync[:]...)
	if _, err := w.Write(h); err != nil {
		return nil, fmt.Errorf("ocf: writing header: %w", err)
	}
	return wr, nil
}

func appendString(b []byte, s string) []byte {
	return append(avrobin.AppendLong(b, int64(len(s))), s...)
}

// Sync returns the file's sync marker.
func (w *Writer) Sync() [SyncSize]byte { return w.sync }

// Append adds one binary-encoded record to the open block, copying it. When
// the block reaches the block size it is written out.
func (w *Writer) Append(record []byte) error {
	if err := w.check(); err != nil {
		return err
	}
	w.pending = append(w.pending, record...)
	w.count++
	if len(w.pending)-headroom >= w.blockSize {
		return w.Flush()
	}
	return nil
}

// WriteBlock writes count records, given as their concatenated binary
// encodings, as one block. Records gathered by Append go out first, in
// their own block. A block of no records writes nothing.
func (w *Writer) WriteBlock(count int64, data []byte) error {
	if err := w.check(); err != nil {
		return err
	}
	if count < 0 {
		return fmt.Errorf("ocf: negative record count %d", count)
	}
	if count == 0 {
		if len(data) > 0 {
			return fmt.Errorf("ocf: block of %d bytes holds no records", len(data))
		}
		return nil
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if w.comp == nil {
		w.out = append(w.out[:headroom], data...)
		return w.emit(count, &w.out)
	}
	return w.compressAndEmit(count, data)
}

// Flush writes the open block, if it holds any records. It does not flush
// the underlying writer.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if w.count == 0 {
		return nil
	}
	count := w.count
	w.count = 0
	var err error
	if w.comp == nil {
		err = w.emit(count, &w.pending)
	} else {
		err = w.compressAndEmit(count, w.pending[headroom:])
	}
	w.pending = w.pending[:headroom]
	return err
}

// Close flushes the open block and marks the Writer closed. It does not
// close the underlying writer.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	err := w.Flush()
	w.closed = true
	return err
}

func (w *Writer) check() error {
	if w.closed {
		return ErrClosed
	}
	return w.err
}

// compressAndEmit compresses data into w.out and writes it as a block.
func (w *Writer) compressAndEmit(count int64, data []byte) error {
	out, err := w.comp.compress(w.out[:headroom], data)
	if err != nil {
		w.err = fmt.Errorf("ocf: %w", err)
		return w.err
	}
	w.out = out
	return w.emit(count, &w.out)
}

// emit writes one block whose payload is (*buf)[headroom:]. The record
// count and size go into the headroom and the sync marker is appended, so
// *buf may grow.
func (w *Writer) emit(count int64, buf *[]byte) error {
	var pre [headroom]byte
	p := avrobin.AppendLong(pre[:0], count)
	p = avrobin.AppendLong(p, int64(len(*buf)-headroom))
	start := headroom - len(p)
	copy((*buf)[start:], p)
	*buf = append(*buf, w.sync[:]...)
	if _, err := w.w.Write((*buf)[start:]); err != nil {
		w.err = fmt.Errorf("ocf: writing block: %w", err)
		return w.err
	}
	return nil
}
