package ocf

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/trevni-go/trevni/internal/codec"
)

// ReaderOption configures a Reader.
type ReaderOption func(*readerConfig)

type readerConfig struct {
	maxBlockSize        int64
	maxDecompressedSize int64
}

// WithMaxBlockSize limits the stored (compressed) size of a block, and the
// size of each header metadata key and value, to n bytes. A larger block
// is an error wrapping ErrTooLarge. n <= 0 selects DefaultMaxBlockSize.
func WithMaxBlockSize(n int64) ReaderOption {
	return func(c *readerConfig) { c.maxBlockSize = n }
}

// WithMaxDecompressedSize limits the decompressed size of a block to n
// bytes. A block that would decompress to more is an error wrapping
// ErrTooLarge. n <= 0 selects DefaultMaxDecompressedSize.
func WithMaxDecompressedSize(n int64) ReaderOption {
	return func(c *readerConfig) { c.maxDecompressedSize = n }
}

// byteReader is what the Reader consumes its input through.
type byteReader interface {
	io.Reader
	io.ByteReader
}

// Reader reads the blocks of an Avro object container file. A Reader is not
// safe for concurrent use.
type Reader struct {
	r       byteReader
	off     int64 // bytes consumed from r
	block   int64 // index of the next block
	cfg     readerConfig
	schema  string
	codec   string
	meta    map[string][]byte
	sync    [SyncSize]byte
	syncBuf [SyncSize]byte // the marker after the current block
	dec     decompressor   // nil for the null codec
	raw     []byte         // stored bytes of the current block
	data    []byte         // decompressed bytes of the current block
	err     error          // sticky: set once reading has failed or ended
}

// NewReader reads the container header from r and returns a Reader
// positioned at the first block. Unless r implements io.ByteReader it is
// wrapped in a bufio.Reader, so the Reader may consume bytes from r past
// the end of the container.
func NewReader(r io.Reader, opts ...ReaderOption) (*Reader, error) {
	rd := &Reader{}
	for _, o := range opts {
		o(&rd.cfg)
	}
	if rd.cfg.maxBlockSize <= 0 {
		rd.cfg.maxBlockSize = DefaultMaxBlockSize
	}
	if rd.cfg.maxDecompressedSize <= 0 {
		rd.cfg.maxDecompressedSize = DefaultMaxDecompressedSize
	}
	if br, ok := r.(byteReader); ok {
		rd.r = br
	} else {
		rd.r = bufio.NewReaderSize(r, 64<<10)
	}
	if err := rd.readHeader(); err != nil {
		return nil, err
	}
	return rd, nil
}

// Schema returns the avro.schema metadata value exactly as stored.
func (r *Reader) Schema() string { return r.schema }

// Codec returns the block codec: the avro.codec metadata value, or "null"
// when the header has none.
func (r *Reader) Codec() string { return r.codec }

// Meta returns a copy of the header metadata, including avro.schema and
// avro.codec. The values are shared with the Reader and must not be
// modified.
func (r *Reader) Meta() map[string][]byte { return maps.Clone(r.meta) }

// Sync returns the file's sync marker.
func (r *Reader) Sync() [SyncSize]byte { return r.sync }

// InputOffset returns the number of bytes of the container consumed so
// far: after a successful NextBlock, the offset of the following block.
func (r *Reader) InputOffset() int64 { return r.off }

// NextBlock reads the next block and returns its record count and its
// decompressed bytes, the concatenated binary encodings of the records.
// The data slice is owned by the Reader and valid only until the next call.
// At the clean end of the input NextBlock returns io.EOF; other errors are
// of type *Error, and a truncated input gives one wrapping
// io.ErrUnexpectedEOF. Once NextBlock has failed it keeps returning the same
// error.
func (r *Reader) NextBlock() (count int64, data []byte, err error) {
	return r.nextBlock(nil, false)
}

// NextBlockInto is NextBlock with the decompressed bytes in dst's memory
// (from dst[:0], grown if need be) rather than the Reader's, so that a
// caller keeping several blocks at once copies none of them again.
func (r *Reader) NextBlockInto(dst []byte) (count int64, data []byte, err error) {
	return r.nextBlock(dst, true)
}

// RawBlock is one block of a container as stored: its records still
// compressed, for a caller that decompresses blocks on other goroutines
// (with a Decompressor each).
type RawBlock struct {
	// Index is the block's number, counting from 0.
	Index int64
	// Offset is the byte offset of the block in the input.
	Offset int64
	// End is the byte offset after the block (its sync marker included).
	End int64
	// Count is the block's record count.
	Count int64
	// Data is the stored bytes of the records.
	Data []byte
}

// NextRawBlock reads the next block without decompressing it, appending
// its stored bytes to dst (which may hold earlier blocks: a caller keeps
// several blocks in one buffer). Errors are as for NextBlock; the block's
// checks that need its decompressed bytes (the codec's, snappy's
// checksum) are the Decompressor's.
func (r *Reader) NextRawBlock(dst []byte) (RawBlock, []byte, error) {
	if r.err != nil {
		return RawBlock{}, dst, r.err
	}
	b := RawBlock{Index: r.block, Offset: r.off}
	count, size, err := r.readBlockHeader()
	if err == nil {
		start := len(dst)
		dst, err = r.readAppend(dst, int(size))
		if err == nil {
			if _, err = r.readFull(r.syncBuf[:]); err == nil && r.syncBuf != r.sync {
				err = ErrSyncMarker
			}
		}
		b.Data = dst[start:len(dst):len(dst)]
		if err != nil {
			dst = dst[:start]
		}
	}
	if err != nil {
		if err != io.EOF {
			err = &Error{Block: r.block, Offset: b.Offset, Err: err}
		}
		r.err = err
		return RawBlock{}, dst, err
	}
	b.Count, b.End = count, r.off
	r.block++
	return b, dst, nil
}

// readAppend reads n bytes onto the end of buf, growing it in steps as
// data arrives (see readN).
func (r *Reader) readAppend(buf []byte, n int) ([]byte, error) {
	if cap(buf)-len(buf) >= n {
		start := len(buf)
		buf = buf[:start+n]
		_, err := r.readFull(buf[start:])
		return buf, err
	}
	for left := n; left > 0; {
		step := min(max(len(buf), 64<<10), left)
		buf = slices.Grow(buf, step)
		m, err := r.readFull(buf[len(buf) : len(buf)+step])
		buf = buf[:len(buf)+m]
		if err != nil {
			return buf, err
		}
		left -= step
	}
	return buf, nil
}

// Decompressor decompresses the stored blocks of one container, as its
// Reader would, for a goroutine of its own. It is not safe for concurrent
// use: each goroutine has one.
type Decompressor struct {
	dec decompressor // nil for the null codec
}

// NewDecompressor returns a Decompressor for the blocks of the container
// read by r, with r's limits.
func (r *Reader) NewDecompressor() (*Decompressor, error) {
	dec, err := newDecompressor(r.codec, r.cfg.maxDecompressedSize)
	if err != nil {
		return nil, err
	}
	return &Decompressor{dec: dec}, nil
}

// Null reports whether the container's blocks are stored uncompressed:
// Decompress then returns their stored bytes.
func (d *Decompressor) Null() bool { return d.dec == nil }

// Decompress returns the records of block b decompressed, in dst's memory
// when they need decompressing (from dst[:0], grown if need be) and in
// b.Data's for the null codec. An error is an *Error naming the block.
func (d *Decompressor) Decompress(dst []byte, b *RawBlock) ([]byte, error) {
	if d.dec == nil || len(b.Data) == 0 {
		return b.Data, nil
	}
	out, err := d.dec.decompress(dst, b.Data)
	if err != nil {
		return out, &Error{Block: b.Index, Offset: b.Offset, Err: err}
	}
	return out, nil
}

func (r *Reader) nextBlock(dst []byte, into bool) (count int64, data []byte, err error) {
	if r.err != nil {
		return 0, nil, r.err
	}
	start := r.off
	count, data, err = r.readBlock(dst, into)
	if err != nil {
		if err != io.EOF {
			err = &Error{Block: r.block, Offset: start, Err: err}
		}
		r.err = err
		return 0, nil, err
	}
	r.block++
	return count, data, nil
}

// readBlock reads one block; see NextBlock and NextBlockInto.
func (r *Reader) readBlock(dst []byte, into bool) (int64, []byte, error) {
	count, size, err := r.readBlockHeader()
	if err != nil {
		return 0, nil, err
	}
	r.raw, err = r.readN(r.raw, int(size))
	if err != nil {
		return 0, nil, err
	}
	if _, err := r.readFull(r.syncBuf[:]); err != nil {
		return 0, nil, err
	}
	if r.syncBuf != r.sync {
		return 0, nil, ErrSyncMarker
	}
	if r.dec == nil || size == 0 {
		if into {
			return count, append(dst[:0], r.raw...), nil
		}
		return count, r.raw, nil
	}
	if !into {
		dst = r.data
	}
	out, err := r.dec.decompress(dst, r.raw)
	if !into && cap(out) > cap(r.data) {
		r.data = out[:0]
	}
	if err != nil {
		return 0, nil, err
	}
	return count, out, nil
}

// readBlockHeader reads a block's record count and size and checks them.
// io.EOF is the clean end of the input.
func (r *Reader) readBlockHeader() (count, size int64, err error) {
	count, err = r.readLong()
	if err != nil {
		return 0, 0, err // io.EOF here is the clean end
	}
	size, err = r.readLong()
	if err != nil {
		return 0, 0, noEOF(err)
	}
	switch {
	case count < 0:
		return 0, 0, fmt.Errorf("%w: negative record count %d", ErrFormat, count)
	case size < 0:
		return 0, 0, fmt.Errorf("%w: negative block size %d", ErrFormat, size)
	case size > r.cfg.maxBlockSize:
		return 0, 0, fmt.Errorf("%w: block size %d exceeds limit %d", ErrTooLarge, size, r.cfg.maxBlockSize)
	case count == 0 && size > 0:
		return 0, 0, fmt.Errorf("%w: block of %d bytes holds no records", ErrFormat, size)
	}
	return count, size, nil
}

// readHeader reads the magic, the metadata map and the sync marker.
func (r *Reader) readHeader() error {
	var m [len(magic)]byte
	if _, err := r.readFull(m[:]); err != nil {
		return r.headerError(0, err)
	}
	if string(m[:]) != magic {
		return r.headerError(0, ErrNotContainer)
	}
	r.meta = make(map[string][]byte)
	for {
		start := r.off
		n, err := r.readLong()
		if err != nil {
			return r.headerError(start, noEOF(err))
		}
		if n == 0 {
			break
		}
		if n < 0 {
			// A negative count is followed by the byte size of the block.
			if n == -1<<63 {
				return r.headerError(start, fmt.Errorf("%w: metadata block count %d", ErrFormat, n))
			}
			n = -n
			if _, err := r.readLong(); err != nil {
				return r.headerError(start, noEOF(err))
			}
		}
		if n > maxMetaEntries-int64(len(r.meta)) {
			return r.headerError(start, fmt.Errorf("%w: more than %d metadata entries", ErrTooLarge, maxMetaEntries))
		}
		for range n {
			start := r.off
			key, err := r.readBytes()
			if err != nil {
				return r.headerError(start, fmt.Errorf("metadata key: %w", err))
			}
			start = r.off
			val, err := r.readBytes()
			if err != nil {
				return r.headerError(start, fmt.Errorf("metadata value for %q: %w", key, err))
			}
			r.meta[string(key)] = val
		}
	}
	start := r.off
	if _, err := r.readFull(r.sync[:]); err != nil {
		return r.headerError(start, err)
	}

	schema, ok := r.meta[MetaSchema]
	if !ok {
		return r.headerError(start, fmt.Errorf("%w: no %s in metadata", ErrFormat, MetaSchema))
	}
	r.schema = string(schema)
	r.codec = codec.Null
	if c, ok := r.meta[MetaCodec]; ok {
		r.codec = string(c)
	}
	dec, err := newDecompressor(r.codec, r.cfg.maxDecompressedSize)
	if err != nil {
		return r.headerError(start, err)
	}
	r.dec = dec
	return nil
}

func (r *Reader) headerError(off int64, err error) error {
	return &Error{Block: -1, Offset: off, Err: err}
}

// readBytes reads an Avro bytes or string value into a new slice.
func (r *Reader) readBytes() ([]byte, error) {
	n, err := r.readLong()
	if err != nil {
		return nil, noEOF(err)
	}
	if n < 0 {
		return nil, fmt.Errorf("%w: negative length %d", ErrFormat, n)
	}
	if n > r.cfg.maxBlockSize {
		return nil, fmt.Errorf("%w: length %d exceeds limit %d", ErrTooLarge, n, r.cfg.maxBlockSize)
	}
	b, err := r.readN(nil, int(n))
	if err != nil {
		return nil, err
	}
	return bytes.Clone(b), nil // drop any spare capacity
}

// readLong reads one Avro long, counting the bytes it consumes.
func (r *Reader) readLong() (int64, error) {
	v, n, err := readLong(r.r)
	r.off += int64(n)
	return v, err
}

// readFull fills p, treating any early end of input as truncation.
func (r *Reader) readFull(p []byte) (int, error) {
	n, err := io.ReadFull(r.r, p)
	r.off += int64(n)
	return n, noEOF(err)
}

// readN reads n bytes into buf[:n], reusing buf when it is large enough.
// Otherwise the buffer grows in steps as data arrives, so a size field that
// the input cannot back costs at most about twice the bytes really present.
func (r *Reader) readN(buf []byte, n int) ([]byte, error) {
	if cap(buf) >= n {
		buf = buf[:n]
		_, err := r.readFull(buf)
		return buf, err
	}
	buf = buf[:0]
	for len(buf) < n {
		step := min(max(len(buf), 64<<10), n-len(buf))
		buf = slices.Grow(buf, step)
		m, err := r.readFull(buf[len(buf) : len(buf)+step])
		buf = buf[:len(buf)+m]
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// noEOF turns io.EOF into io.ErrUnexpectedEOF: the input ended inside a
// structure.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
