package trevni

import (
	"context"
	"fmt"
	"io"
	"os"
)

// wholeChunk is the size of the requests that copy a remote part whole.
const wholeChunk = 8 << 20

// OpenWhole opens the part for reading all of it, perhaps more than once
// (as Validate does): a part over a store or HTTP, of no more than
// OpenOptions.MaxDownload bytes, is first copied into a temporary file
// (in OpenOptions.TempDir, removed when the data set is closed) in
// requests of 8 MiB of the version the data set was opened on, so that
// each of its bytes is fetched once however often it is read. Other
// parts, and larger ones, are opened as Open opens them. The caller must
// Close the file.
func (p *Part) OpenWhole(ctx context.Context) (*File, error) {
	limit := p.ds.opts.MaxDownload
	if limit <= 0 {
		limit = DefaultMaxDownload
	}
	if p.download == nil && p.src.ra == nil && p.ds.opts.isURL(p.src.name) && p.size <= limit {
		if err := p.copyWhole(ctx); err != nil {
			return nil, err
		}
	}
	return p.Open(ctx)
}

// copyWhole copies the remote part into a temporary file, held as the
// part's download until the data set is closed.
func (p *Part) copyWhole(ctx context.Context) error {
	src, err := p.open(ctx, openHeaderOnly)
	if err != nil {
		return err
	}
	defer src.Close()
	if src.http == nil { // downloaded already: the server serves no ranges
		return nil
	}
	f, err := os.CreateTemp(p.ds.opts.TempDir, "trevni-whole-*")
	if err != nil {
		return fmt.Errorf("%s: a temporary copy to read it whole: %w", p.Name(), err)
	}
	buf := make([]byte, min(wholeChunk, max(src.size, 1)))
	n, err := io.CopyBuffer(onlyWriter{f}, onlyReader{io.NewSectionReader(readerAtCtx{ctx, src.http}, 0, src.size)}, buf)
	if err == nil && n != src.size {
		err = fmt.Errorf("copied %d of %d bytes: %w", n, src.size, io.ErrUnexpectedEOF)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return fmt.Errorf("%s: a temporary copy to read it whole: %w", p.Name(), err)
	}
	p.download, p.downloadSize = f, n
	return nil
}

// readerAtCtx stops reading once ctx is done.
type readerAtCtx struct {
	ctx context.Context
	ra  io.ReaderAt
}

func (r readerAtCtx) ReadAt(b []byte, off int64) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.ra.ReadAt(b, off)
}

// onlyReader and onlyWriter hide ReadFrom and WriteTo, so that
// io.CopyBuffer reads in the buffer's chunks.
type onlyReader struct{ io.Reader }
type onlyWriter struct{ io.Writer }
