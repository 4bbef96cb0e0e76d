package trevni

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/remote"
	"github.com/trevni-go/trevni/remote/store"
)

// Object is one file opened by OpenObject or OpenObjectStream for reads at
// random, whatever its format: the bytes of a local file, of an http(s)
// URL read with range requests, or of an object of a store read with
// ranged requests, pinned to the version it had when it was opened. It is
// what a program hands a reader of another format (a Parquet library's
// io.ReaderAt) to read a name as the front door does, with the same
// retries, timeouts and options. It is safe for concurrent reads; Close
// it after the last.
type Object struct {
	ctx     context.Context
	name    string
	ra      io.ReaderAt
	size    int64
	version string
	fetch   fetcher // of a remote object: counts what was fetched

	once     sync.Once
	done     func() error
	closeErr error
}

// OpenObject opens the file name for reads at random: a local file, an
// http or https URL, or the URL of an object of a store (s3://, gs://,
// azblob://, or a scheme of opts.Stores), resolved as Open resolves one
// part (no glob, directory or prefix). A URL is read with range requests
// through opts.HTTP, an object of a store with opts' retries, backoff and
// stall (a stalled request fails with an error wrapping ErrTimeout); the
// reads of either are pinned to the version it has now: once it is
// replaced or deleted, they fail with an error wrapping ErrChanged (a
// URL's version is its ETag, else its Last-Modified, and its size). A URL
// whose
// server serves no byte ranges is downloaded whole into a temporary file
// (opts.TempDir, at most opts.MaxDownload bytes), removed by Close. A
// named pipe is copied to a temporary file as OpenObjectStream copies a
// stream. ctx bounds the open and every read: once it is done, reads fail
// with its error. Of opts only the options of where and how names are read
// count; nil means the defaults.
func OpenObject(ctx context.Context, name string, opts *OpenOptions) (*Object, error) {
	if name == "-" {
		return nil, errors.New("standard input: open it with OpenObjectStream")
	}
	obj := &Object{ctx: ctx, name: name, done: func() error { return nil }}
	switch {
	case opts.isStoreURL(name):
		o, err := openStoreObject(ctx, name, opts)
		if err != nil {
			return nil, err
		}
		obj.fetch = countFetched(o)
		obj.ra, obj.size, obj.version, obj.done = obj.fetch, o.Size(), o.Version(), o.Close
	case opts.isURL(name):
		h, err := openHTTP(ctx, name, opts)
		if errors.Is(err, remote.ErrNoRanges) {
			f, n, err := downloadTemp(ctx, name, opts)
			if err != nil {
				return nil, err
			}
			obj.ra, obj.size, obj.done = f, n, func() error { return removeTemp(f) }
			break
		}
		if err != nil {
			return nil, err
		}
		obj.fetch = h
		obj.ra, obj.size, obj.version = h, h.Size(), h.Version()
	default:
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		fi, err := f.Stat()
		if err == nil && fi.IsDir() {
			err = fmt.Errorf("%s: is a directory", name)
		}
		if err != nil {
			f.Close()
			return nil, err
		}
		if !fi.Mode().IsRegular() {
			// A named pipe: read once, into a copy.
			defer f.Close()
			return OpenObjectStream(ctx, f, name, opts)
		}
		obj.ra, obj.size, obj.done = f, fi.Size(), f.Close
	}
	return obj, nil
}

// OpenObjectStream opens a stream for reads at random as an Object named
// name: in place when r allows it (an *os.File of a regular file, from its
// current offset; anything with ReadAt and Size, such as *bytes.Reader),
// else copied whole into a temporary file (opts.TempDir, "" for the
// system's), whose name is removed at once where the system allows it and
// which Close removes. Standard input is opened so (name "-"). ctx bounds
// the copy and every read. Close does not close r.
func OpenObjectStream(ctx context.Context, r io.Reader, name string, opts *OpenOptions) (*Object, error) {
	obj := &Object{ctx: ctx, name: name, done: func() error { return nil }}
	switch in := r.(type) {
	case interface {
		io.ReaderAt
		Size() int64
	}:
		obj.ra, obj.size = in, in.Size()
		return obj, nil
	case *os.File:
		if fi, err := in.Stat(); err == nil && fi.Mode().IsRegular() {
			if off, err := in.Seek(0, io.SeekCurrent); err == nil && off <= fi.Size() {
				obj.size = fi.Size() - off
				obj.ra = io.NewSectionReader(in, off, obj.size)
				return obj, nil
			}
		}
	}
	var dir string
	if opts != nil {
		dir = opts.TempDir
	}
	tmp, err := os.CreateTemp(dir, "trevni-stream-*")
	if err != nil {
		return nil, fmt.Errorf("%s: a copy to read at random: %w", name, err)
	}
	// Where the system allows it, the copy's name goes at once, so that
	// nothing is left behind whatever happens to the program.
	removed := os.Remove(tmp.Name()) == nil
	obj.done = func() error {
		err := tmp.Close()
		if !removed {
			if rerr := os.Remove(tmp.Name()); err == nil {
				err = rerr
			}
		}
		return err
	}
	n, err := io.Copy(tmp, frontdoor.ContextReader(ctx, r))
	if err != nil {
		obj.done()
		return nil, fmt.Errorf("%s: cannot read: %w", name, err)
	}
	obj.ra, obj.size = tmp, n
	return obj, nil
}

// ReadAt reads len(p) bytes at off, as io.ReaderAt says; it fails with the
// context's error once the context OpenObject was given is done.
func (o *Object) ReadAt(p []byte, off int64) (int, error) {
	if err := o.ctx.Err(); err != nil {
		return 0, err
	}
	return o.ra.ReadAt(p, off)
}

// Size returns the object's length in bytes.
func (o *Object) Size() int64 { return o.size }

// Name returns the name the object was opened by.
func (o *Object) Name() string { return o.name }

// Version returns the version of a remote object that its reads are pinned
// to (an ETag or a store's generation), "" for a local file or a server
// that gives none.
func (o *Object) Version() string { return o.version }

// Fetched returns the requests made and bytes fetched so far for the
// object of a URL or a store read in place; zero for a local file or a
// copy.
func (o *Object) Fetched() Fetched {
	if o.fetch == nil {
		return Fetched{}
	}
	return Fetched{Requests: o.fetch.Requests(), Bytes: o.fetch.BytesFetched()}
}

// Close releases the object: it closes the file or the store's object
// and removes a temporary copy. It may be called more than once (and
// from another goroutine, such as a signal handler's); each call returns
// the first call's error.
func (o *Object) Close() error {
	o.once.Do(func() { o.closeErr = o.done() })
	return o.closeErr
}

// openStoreObject opens the object of a store at name as opts says (the
// stores it hands in before the linked drivers, its request options).
func openStoreObject(ctx context.Context, name string, opts *OpenOptions) (store.Object, error) {
	st, err := store.For(name, opts.stores())
	if err != nil {
		return nil, err
	}
	return st.Open(ctx, name, opts.storeOptions())
}

// openHTTP opens an http(s) URL for range requests through opts' client
// (or the linked one); its error wraps remote.ErrNoRanges for a server
// that serves none.
func openHTTP(ctx context.Context, name string, opts *OpenOptions) (remote.HTTPFile, error) {
	var hc HTTPClient
	if opts != nil {
		hc = opts.HTTP
	}
	c, err := remote.HTTP(hc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return c.Open(ctx, name)
}

// downloadTemp downloads the URL name, whose server serves no byte
// ranges, into a temporary file (opts.TempDir) of at most opts.MaxDownload
// bytes; the caller removes it (removeTemp).
func downloadTemp(ctx context.Context, name string, opts *OpenOptions) (*os.File, int64, error) {
	var (
		limit int64
		dir   string
		hc    HTTPClient
	)
	if opts != nil {
		limit, dir, hc = opts.MaxDownload, opts.TempDir, opts.HTTP
	}
	if limit <= 0 {
		limit = DefaultMaxDownload
	}
	c, err := remote.HTTP(hc)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	f, err := os.CreateTemp(dir, "trevni-download-*")
	if err != nil {
		return nil, 0, fmt.Errorf("%s: the server does not serve byte ranges, and the download has no temporary file: %w", name, err)
	}
	n, err := c.Download(ctx, name, f, limit)
	if err != nil {
		removeTemp(f)
		return nil, 0, fmt.Errorf("%w; the server does not serve byte ranges, so the file is downloaded whole", err)
	}
	return f, n, nil
}

// removeTemp closes and removes a temporary file.
func removeTemp(f *os.File) error {
	err := f.Close()
	if rerr := os.Remove(f.Name()); err == nil {
		err = rerr
	}
	return err
}
