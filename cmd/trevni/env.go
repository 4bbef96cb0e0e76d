package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/remote"
)

// env is what a running command sees: its context, which is cancelled when
// the run is interrupted, its standard streams and the common options.
type env struct {
	ctx    context.Context
	app    *app
	name   string   // the command's name, for messages
	quiet  bool     // --quiet: no progress
	force  bool     // --force: replace existing output files
	limits limits   // --max-columns, --max-depth, --max-block-size, --block-memory
	inputs []string // the file arguments, positional and flags, that may be read
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// usagef returns a usage error: the command line is wrong. It is reported
// with the command's usage and exit status 2.
func (e *env) usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// report prints one problem as one line on standard error, for commands that
// go on after a problem (validate). The error that ends a command is
// returned, not reported.
func (e *env) report(err error) {
	e.app.errorf("trevni: %s: %s\n", e.name, oneLine(limitHint(err)))
}

// interrupted returns the context's error once the run is interrupted. Long
// loops call it every so often.
func (e *env) interrupted() error {
	return e.ctx.Err()
}

// displayName names a file argument in messages.
func displayName(path string, output bool) string {
	switch {
	case path != "-" && path != "":
		return path
	case output:
		return "standard output"
	}
	return "standard input"
}

// openInput opens a file argument for streaming input: "-" is standard
// input, which Close leaves open.
func (e *env) openInput(path string) (io.ReadCloser, error) {
	if path == "-" {
		return io.NopCloser(&ctxReader{ctx: e.ctx, r: e.stdin}), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s: is a directory", path)
	}
	return f, nil
}

// trevniInput is a Trevni file opened for reading by env.openTrevni.
type trevniInput struct {
	*format.Reader
	name string // for messages
	ra   *countingReaderAt
	done func() error
}

// Name returns the file's name for messages.
func (in *trevniInput) Name() string { return in.name }

// track makes p follow the bytes read from the file.
func (in *trevniInput) track(p *progress) { in.ra.progress = p }

// Close closes the file, and removes the copy of standard input if any.
func (in *trevniInput) Close() error { return in.done() }

// openTrevni opens a Trevni file argument: "-" is standard input, which is
// used in place when it is a regular file and copied to a temporary file
// otherwise, since the reader needs random access. opts may be nil. Reads
// fail once the run is interrupted, and errors name the file.
func (e *env) openTrevni(path string, opts *format.ReaderOptions) (*trevniInput, error) {
	return e.openTrevniFor(path, opts, false)
}

// openTrevniFor is openTrevni; headerOnly says that nothing past the
// header will be read, so that a URL is read through a HeaderReader
// (windows that grow from 8 KiB as the header goes on) rather than the
// coalescer, whose first window would fetch a megabyte of column data.
func (e *env) openTrevniFor(path string, opts *format.ReaderOptions, headerOnly bool) (*trevniInput, error) {
	name := displayName(path, false)
	var (
		ra   io.ReaderAt
		size int64
		done func() error
	)
	switch {
	case path == "-":
		var err error
		if ra, size, done, err = e.stdinReaderAt(); err != nil {
			return nil, fmt.Errorf("%s: cannot read: %w", name, err)
		}
	case remote.IsURL(path):
		h, err := remote.OpenHTTP(e.ctx, path, e.limits.http())
		if err != nil {
			return nil, err
		}
		if headerOnly {
			ra, size, done = remote.NewHeaderReader(h, h.Size()), h.Size(), func() error { return nil }
			break
		}
		// Columns are fetched in a few large range requests: the
		// reader tells the coalescer each column's byte range.
		c := remote.NewCoalescer(h, h.Size(), nil)
		o := format.ReaderOptions{}
		if opts != nil {
			o = *opts
		}
		o.Prefetch = c.Prefetch
		opts = &o
		ra, size, done = c, h.Size(), func() error { return nil }
	default:
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		if fi.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s: is a directory", path)
		}
		ra, size, done = f, fi.Size(), f.Close
		if !fi.Mode().IsRegular() { // a named pipe: copied, as standard input is
			ra, size, done, err = e.spool(f)
			f.Close()
			if err != nil {
				return nil, fmt.Errorf("%s: cannot read: %w", name, err)
			}
		}
	}
	cra := &countingReaderAt{ctx: e.ctx, ra: ra}
	rd, err := format.NewReader(cra, size, e.limits.reader(opts))
	if err != nil {
		done()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &trevniInput{Reader: rd, name: name, ra: cra, done: done}, nil
}

// stdinReaderAt gives random access to standard input: in place if it
// already allows it, otherwise through a temporary copy that done removes.
func (e *env) stdinReaderAt() (ra io.ReaderAt, size int64, done func() error, err error) {
	nop := func() error { return nil }
	switch in := e.stdin.(type) {
	case interface {
		io.ReaderAt
		Size() int64
	}: // *bytes.Reader, *strings.Reader
		return in, in.Size(), nop, nil
	case *os.File:
		if fi, err := in.Stat(); err == nil && fi.Mode().IsRegular() {
			if off, err := in.Seek(0, io.SeekCurrent); err == nil && off <= fi.Size() {
				return io.NewSectionReader(in, off, fi.Size()-off), fi.Size() - off, nop, nil
			}
		}
	}
	return e.spool(e.stdin)
}

// spool copies a stream that allows no random access (standard input, a
// named pipe) to a temporary file, and returns it for random access; done
// removes it, as does the signal handler.
func (e *env) spool(r io.Reader) (ra io.ReaderAt, size int64, done func() error, err error) {
	tmp, err := os.CreateTemp("", "trevni-stdin-*")
	if err != nil {
		return nil, 0, nil, err
	}
	// Where the system allows it, remove the copy's name at once, so that
	// nothing is left behind whatever happens.
	removed := os.Remove(tmp.Name()) == nil
	cleanup := func() {
		tmp.Close()
		if !removed {
			os.Remove(tmp.Name())
		}
	}
	unregister := e.app.addCleanup(cleanup)
	done = func() error {
		unregister()
		cleanup()
		return nil
	}
	n, err := io.Copy(tmp, &ctxReader{ctx: e.ctx, r: r})
	if err != nil {
		done()
		return nil, 0, nil, err
	}
	return tmp, n, done, nil
}

// ctxReader is a reader that fails once its context is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (r *ctxReader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.r.Read(p)
}

// countingReaderAt counts the bytes read, for progress, and fails once its
// context is done, so that long reads stop when the run is interrupted.
type countingReaderAt struct {
	ctx      context.Context
	ra       io.ReaderAt
	n        atomic.Int64
	base     int64 // bytes of the data set's parts before this one
	progress *progress
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.ra.ReadAt(p, off)
	total := c.n.Add(int64(n))
	if c.progress != nil {
		c.progress.setBytes(c.base + total)
	}
	return n, err
}
