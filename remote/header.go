package remote

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
)

// Sizes of a HeaderReader's prefix.
const (
	DefaultHeaderWindow = 8 << 10  // the first fetch: the bytes a header read asks for first
	MaxHeaderPrefix     = 32 << 20 // the prefix grows no further; reads past it go straight through
)

// HeaderReader is an io.ReaderAt for opening a file whose header alone will
// be read (a row count, a schema): it keeps the file's first bytes, and a
// read that runs past them fetches as many again (8 KiB, then 16, 32 ...),
// so that a header of n bytes costs about log2(n/8 KiB)+1 reads of the
// underlying ReaderAt and at most about 2n bytes, where a Coalescer's
// window would fetch a megabyte of column data with a small header, and
// reads of 8 KiB one at a time would make a request per 8 KiB of a large
// one (block statistics make headers grow with the blocks). Reads
// elsewhere go straight through. It is safe for concurrent use.
type HeaderReader struct {
	ra    io.ReaderAt
	size  int64
	mu    sync.Mutex
	buf   []byte // the bytes [0, len(buf)) of the source
	reads int64
}

// NewHeaderReader wraps ra, whose content is size bytes long.
func NewHeaderReader(ra io.ReaderAt, size int64) *HeaderReader {
	return &HeaderReader{ra: ra, size: size}
}

// NewHeaderReaderFrom wraps ra, whose content is size bytes long, holding
// prefix already: the source's first bytes, kept from an earlier
// HeaderReader of the same version of the source (Prefix), so that a file
// opened again reads its header without fetching it again. prefix must not
// be changed afterwards.
func NewHeaderReaderFrom(ra io.ReaderAt, size int64, prefix []byte) *HeaderReader {
	prefix = prefix[:min(int64(len(prefix)), size)]
	return &HeaderReader{ra: ra, size: size, buf: prefix[:len(prefix):len(prefix)]}
}

// Prefix returns the source's first bytes that h holds. They are not
// changed afterwards: a read that grows the prefix copies it.
func (h *HeaderReader) Prefix() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf[:len(h.buf):len(h.buf)]
}

// Reads returns how many reads the underlying ReaderAt was asked for.
func (h *HeaderReader) Reads() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reads
}

// ReadAt reads len(p) bytes at off: from the kept prefix, growing it if
// the read starts in it or right after it, or straight from the source.
func (h *HeaderReader) ReadAt(p []byte, off int64) (int, error) {
	want, short, err := clip(len(p), off, h.size)
	if want == 0 {
		return 0, err
	}
	end := off + want
	h.mu.Lock()
	have := int64(len(h.buf))
	if off <= have && end > have && end <= MaxHeaderPrefix {
		// Grow the prefix: by as much as it holds, at least to end.
		newEnd := min(max(end, have+max(have, DefaultHeaderWindow)), h.size, MaxHeaderPrefix)
		buf := slices.Grow(h.buf, int(newEnd-have))[:newEnd]
		h.reads++
		k, err := h.ra.ReadAt(buf[have:], have)
		if int64(k) < newEnd-have {
			h.mu.Unlock()
			if err == nil || errors.Is(err, io.EOF) {
				err = fmt.Errorf("remote: read of %d bytes at %d returned %d: %w", newEnd-have, have, k, io.ErrUnexpectedEOF)
			}
			return 0, err
		}
		h.buf = buf
		have = newEnd
	}
	if end <= have {
		copy(p, h.buf[off:end])
		h.mu.Unlock()
		return int(want), short
	}
	h.reads++
	h.mu.Unlock()
	return h.ra.ReadAt(p, off)
}
