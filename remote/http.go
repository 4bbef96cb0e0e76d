// Package remote reads Trevni files that are not on a local disk: an
// io.ReaderAt over HTTP range requests (HTTP), and a ReaderAt wrapper
// (Coalescer) that turns the many small reads of a column read into a few
// large ones, for any ReaderAt whose reads are costly (HTTP, S3, GCS).
//
// A typical remote read:
//
//	h, err := remote.OpenHTTP(ctx, nil, url)
//	c := remote.NewCoalescer(h, h.Size(), nil)
//	rd, err := format.NewReader(c, h.Size(), &format.ReaderOptions{Prefetch: c.Prefetch})
package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
)

// ErrRemote is wrapped by every error about what a server answered.
var ErrRemote = errors.New("remote read failed")

// HTTP is an io.ReaderAt over an http:// or https:// URL: each ReadAt is one
// GET with a Range header. It is safe for concurrent use.
type HTTP struct {
	ctx     context.Context
	client  *http.Client
	url     string
	size    int64
	etag    string
	reqs    atomic.Int64
	fetched atomic.Int64
}

// OpenHTTP finds the size of the resource at url, by a HEAD request, or by
// a one-byte range request when HEAD gives no length, and checks that the
// server serves byte ranges. client nil means http.DefaultClient. Requests
// are made with ctx, so cancelling it fails reads in progress.
func OpenHTTP(ctx context.Context, client *http.Client, url string) (*HTTP, error) {
	if client == nil {
		client = http.DefaultClient
	}
	h := &HTTP{ctx: ctx, client: client, url: url, size: -1}
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, url, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	h.reqs.Add(1)
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK && resp.ContentLength >= 0 && resp.Header.Get("Accept-Ranges") == "bytes" {
		h.size = resp.ContentLength
		h.etag = resp.Header.Get("ETag")
		return h, nil
	}
	if resp.StatusCode >= 400 && resp.StatusCode != http.StatusMethodNotAllowed {
		return nil, fmt.Errorf("%s: %w: HEAD answered %s", url, ErrRemote, resp.Status)
	}
	// No usable HEAD: ask for the first byte and read the size from the
	// Content-Range.
	resp, err = h.get(0, 0)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	_, size, err := contentRange(resp.Header.Get("Content-Range"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	h.size = size
	h.etag = resp.Header.Get("ETag")
	return h, nil
}

// Size returns the resource's length in bytes.
func (h *HTTP) Size() int64 { return h.size }

// Requests returns how many HTTP requests were made so far, the size
// lookup included.
func (h *HTTP) Requests() int64 { return h.reqs.Load() }

// BytesFetched returns how many body bytes the range requests returned.
func (h *HTTP) BytesFetched() int64 { return h.fetched.Load() }

// get makes a range request for bytes first..last and checks that the
// server answered with that range.
func (h *HTTP) get(first, last int64) (*http.Response, error) {
	req, err := http.NewRequestWithContext(h.ctx, http.MethodGet, h.url, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", h.url, err)
	}
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", first, last))
	if h.etag != "" {
		// Fail rather than mix the bytes of two versions of the file.
		req.Header.Set("If-Match", h.etag)
	}
	h.reqs.Add(1)
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: bytes %d-%d: %w", h.url, first, last, err)
	}
	if resp.StatusCode != http.StatusPartialContent {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return nil, fmt.Errorf("%s: %w: the server does not serve byte ranges (answered 200 to a range request)", h.url, ErrRemote)
		}
		return nil, fmt.Errorf("%s: bytes %d-%d: %w: %s", h.url, first, last, ErrRemote, resp.Status)
	}
	start, _, err := contentRange(resp.Header.Get("Content-Range"))
	if err != nil || start != first {
		resp.Body.Close()
		if err == nil {
			err = fmt.Errorf("%w: asked for bytes from %d, got from %d", ErrRemote, first, start)
		}
		return nil, fmt.Errorf("%s: %w", h.url, err)
	}
	return resp, nil
}

// ReadAt reads len(p) bytes at off with one range request. A short answer
// is an error wrapping ErrRemote, a read past the end io.EOF.
func (h *HTTP) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("%s: negative offset %d", h.url, off)
	}
	if off >= h.size {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	want := min(int64(len(p)), h.size-off)
	resp, err := h.get(off, off+want-1)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := io.ReadFull(resp.Body, p[:want])
	h.fetched.Add(int64(n))
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		// Wrapped as ErrRemote, not io.ErrUnexpectedEOF, which readers
		// take for a truncated file.
		return n, fmt.Errorf("%s: bytes %d-%d: %w: body ended after %d bytes: %v", h.url, off, off+want-1, ErrRemote, n, err)
	}
	if want < int64(len(p)) {
		return n, io.EOF
	}
	return n, nil
}

// contentRange parses "bytes FIRST-LAST/SIZE".
func contentRange(v string) (first, size int64, err error) {
	bad := fmt.Errorf("%w: bad Content-Range %q", ErrRemote, v)
	rest, ok := strings.CutPrefix(v, "bytes ")
	if !ok {
		return 0, 0, bad
	}
	rng, total, ok := strings.Cut(rest, "/")
	if !ok {
		return 0, 0, bad
	}
	f, _, ok := strings.Cut(rng, "-")
	if !ok {
		return 0, 0, bad
	}
	if first, err = strconv.ParseInt(f, 10, 64); err != nil || first < 0 {
		return 0, 0, bad
	}
	if size, err = strconv.ParseInt(total, 10, 64); err != nil || size < 0 {
		return 0, 0, bad
	}
	return first, size, nil
}

// IsURL reports whether name is an http:// or https:// URL.
func IsURL(name string) bool {
	return strings.HasPrefix(name, "http://") || strings.HasPrefix(name, "https://")
}
