// Package httpread reads http:// and https:// URLs for the front door, over
// net/http: a File is an io.ReaderAt over byte range requests, pinned to
// the version of the resource it opened (its ETag, else its
// Last-Modified, and its size), and Download reads a resource whole from a server
// that serves no ranges. A program links it by importing it, as the object
// stores' drivers: package trevni reads http(s) URLs through the client
// this package registers in its init (remote.RegisterHTTP, our own
// registry), or through one a program hands it (trevni.OpenOptions.HTTP, made
// by New). A program that reads only local files or object stores thus
// links no net/http (about 3 MB of binary and 3 MiB resident at start).
//
//	import _ "github.com/trevni-go/trevni/remote/httpread"
//
// A typical read at this level:
//
//	h, err := httpread.Open(ctx, url, nil)
//	c := remote.NewCoalescer(h, h.Size(), nil)
//	rd, err := format.NewReader(c, h.Size(), &format.ReaderOptions{Prefetch: c.Prefetch})
package httpread

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/trevni-go/trevni/remote"
	"github.com/trevni-go/trevni/remote/store"
)

// The errors of this package wrap those of package remote, which the
// front door and its callers test for without linking this one.
var (
	ErrRemote   = remote.ErrRemote
	ErrTimeout  = remote.ErrTimeout
	ErrNoRanges = remote.ErrNoRanges
	ErrTooLarge = remote.ErrTooLarge
	// ErrChanged is wrapped by the error of a read of a resource that was
	// replaced or deleted since it was opened (store.ErrChanged, which
	// the front door re-exports as trevni.ErrChanged); the error wraps
	// ErrRemote as well.
	ErrChanged = store.ErrChanged
)

// errChanged is ErrChanged as this package's errors wrap it: an error
// about what a server answered, so a kind of ErrRemote too.
var errChanged error = changedKind{}

type changedKind struct{}

func (changedKind) Error() string { return ErrChanged.Error() }

func (changedKind) Is(target error) bool { return target == ErrChanged || target == ErrRemote }

// DefaultTimeout is the default of each of Options' timeouts.
const DefaultTimeout = remote.DefaultHTTPTimeout

// Options configure Open, Download and New. The zero value (or nil) is
// the default: http.DefaultClient, and each timeout DefaultTimeout. A
// negative timeout is none.
type Options struct {
	// Client makes the requests; nil means http.DefaultClient.
	Client *http.Client
	// ConnectTimeout bounds the time from a request's start until it has
	// a connection (DNS lookup, TCP and TLS handshakes included).
	ConnectTimeout time.Duration
	// HeaderTimeout bounds the time from the connection until the
	// response's header has arrived.
	HeaderTimeout time.Duration
	// IdleTimeout bounds the time the body of a response may go without a
	// byte arriving.
	IdleTimeout time.Duration
}

// timeouts returns the three timeouts with defaults applied; 0 is none.
func (o *Options) timeouts() (connect, header, idle time.Duration) {
	get := func(d time.Duration) time.Duration {
		switch {
		case d == 0:
			return DefaultTimeout
		case d < 0:
			return 0
		}
		return d
	}
	if o == nil {
		o = &Options{}
	}
	return get(o.ConnectTimeout), get(o.HeaderTimeout), get(o.IdleTimeout)
}

// New returns a client of the front door (trevni.OpenOptions.HTTP) that reads
// http(s) URLs with opts (nil: the defaults).
func New(opts *Options) remote.HTTPClient {
	var o Options
	if opts != nil {
		o = *opts
	}
	return client{&o}
}

// client is New's remote.HTTPClient.
type client struct{ o *Options }

func (c client) Open(ctx context.Context, url string) (remote.HTTPFile, error) {
	h, err := Open(ctx, url, c.o)
	if err != nil {
		return nil, err
	}
	return h, nil
}

func (c client) Download(ctx context.Context, url string, w io.Writer, limit int64) (int64, error) {
	return Download(ctx, url, w, limit, c.o)
}

// The front door's default client of http(s) URLs: this package's, with
// the default options, once it is linked.
func init() { remote.RegisterHTTP(New(nil)) }

// File is an io.ReaderAt over an http:// or https:// URL: each ReadAt is one
// GET with a Range header, pinned to the version of the resource Open
// found: with If-Match its ETag (a strong one), else with
// If-Unmodified-Since its Last-Modified, and every answer is held to that
// ETag, Last-Modified and size where the server gives them. A read of a
// resource replaced or deleted since (the server refuses the condition,
// answers another version, or 404, 410 or 416) fails with an error wrapping
// ErrChanged, never mixing the bytes of two versions; only a resource
// replaced by one of the same size on a server that gives neither ETag
// nor Last-Modified (or within the second of its Last-Modified) goes
// unseen. It is safe for concurrent use.
type File struct {
	ctx     context.Context
	client  *http.Client
	connect time.Duration // timeouts, 0 for none
	header  time.Duration
	idle    time.Duration
	url     string
	size    int64
	etag    string
	lastMod string // Last-Modified as the server gave it, "" for none
	reqs    atomic.Int64
	fetched atomic.Int64
}

// Open finds the size of the resource at url, by a HEAD request, or by
// a one-byte range request when HEAD gives no length, and checks that the
// server serves byte ranges: its error wraps ErrNoRanges when it does not
// (Download then reads the resource whole). opts nil means the defaults (see
// Options). Requests are made with ctx, so cancelling it fails reads
// in progress; a server that stalls fails them with ErrTimeout.
func Open(ctx context.Context, url string, opts *Options) (*File, error) {
	client := http.DefaultClient
	if opts != nil && opts.Client != nil {
		client = opts.Client
	}
	h := &File{ctx: ctx, client: client, url: url, size: -1}
	h.connect, h.header, h.idle = opts.timeouts()
	resp, err := h.do(http.MethodHead, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK && resp.ContentLength >= 0 && resp.Header.Get("Accept-Ranges") == "bytes" {
		h.size = resp.ContentLength
		h.etag, h.lastMod = resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
		return h, nil
	}
	if resp.StatusCode >= 400 && resp.StatusCode != http.StatusMethodNotAllowed {
		return nil, fmt.Errorf("%s: %w: HEAD answered %s", url, ErrRemote, resp.Status)
	}
	if resp.StatusCode == http.StatusOK && resp.Header.Get("Accept-Ranges") == "none" {
		return nil, fmt.Errorf("%s: %w: %w (its HEAD answer says Accept-Ranges: none)", url, ErrRemote, ErrNoRanges)
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
	h.etag, h.lastMod = resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	return h, nil
}

// Reopen returns another File over the resource h reads, of the size and
// version h found (no request is made: reads are pinned to h's ETag, when
// the server gave one), with counts of its own from zero, whose requests
// are made with ctx.
func (h *File) Reopen(ctx context.Context) remote.HTTPFile {
	return &File{ctx: ctx, client: h.client, connect: h.connect, header: h.header, idle: h.idle, url: h.url, size: h.size, etag: h.etag, lastMod: h.lastMod}
}

// Size returns the resource's length in bytes.
func (h *File) Size() int64 { return h.size }

// Version returns the resource's ETag as the server gave it when it was
// opened ("" when it gave none); reads are pinned to it (If-Match).
func (h *File) Version() string { return h.etag }

// Requests returns how many HTTP requests were made so far, the size
// lookup included.
func (h *File) Requests() int64 { return h.reqs.Load() }

// BytesFetched returns how many body bytes the range requests returned.
func (h *File) BytesFetched() int64 { return h.fetched.Load() }

// get makes a range request for bytes first..last and checks that the
// server answered with that range, of the version h opened.
func (h *File) get(first, last int64) (*http.Response, error) {
	resp, err := h.do(http.MethodGet, func(req *http.Request) {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", first, last))
		// Fail rather than mix the bytes of two versions of the file. A
		// weak ETag never matches If-Match (RFC 9110, 13.1.1): it is
		// held to by the answers' ETags only.
		switch {
		case h.etag != "" && !strings.HasPrefix(h.etag, "W/"):
			req.Header.Set("If-Match", h.etag)
		case h.lastMod != "":
			req.Header.Set("If-Unmodified-Since", h.lastMod)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("%s: bytes %d-%d: %w", h.url, first, last, err)
	}
	if err := h.sameVersion(resp); err != nil {
		resp.Body.Close()
		return nil, fmt.Errorf("%s: bytes %d-%d: %w", h.url, first, last, err)
	}
	if resp.StatusCode != http.StatusPartialContent {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return nil, fmt.Errorf("%s: %w: %w (it answered 200 to a range request)", h.url, ErrRemote, ErrNoRanges)
		}
		return nil, fmt.Errorf("%s: bytes %d-%d: %w: %s", h.url, first, last, ErrRemote, resp.Status)
	}
	start, total, err := contentRange(resp.Header.Get("Content-Range"))
	if err == nil && start != first {
		err = fmt.Errorf("%w: asked for bytes from %d, got from %d", ErrRemote, first, start)
	}
	if err == nil && h.size >= 0 && total != h.size {
		// The total of every answer is held to the size found first, so
		// that a resource replaced by one of another size is never read
		// as a mix of the two, even from a server that gives no ETag and
		// no Last-Modified.
		err = fmt.Errorf("%w: the resource is %d bytes now, %d when it was opened", errChanged, total, h.size)
	}
	if err != nil {
		resp.Body.Close()
		return nil, fmt.Errorf("%s: bytes %d-%d: %w", h.url, first, last, err)
	}
	return resp, nil
}

// sameVersion returns an error wrapping ErrChanged when resp, the answer
// to a range request, says that the resource is no longer the version h
// opened: the server refused the request's condition (412), the resource
// is gone (404, 410) or shorter (416), or the answer, of its range or of the whole
// resource, gives another ETag or Last-Modified, or a whole resource of
// another size.
func (h *File) sameVersion(resp *http.Response) error {
	if h.size < 0 {
		return nil // Open's request, that finds the version
	}
	switch resp.StatusCode {
	case http.StatusPreconditionFailed:
		was := "ETag " + h.etag
		if h.etag == "" || strings.HasPrefix(h.etag, "W/") {
			was = "Last-Modified " + h.lastMod
		}
		return fmt.Errorf("%w: it is no longer the version opened (%s): %s", errChanged, was, resp.Status)
	case http.StatusNotFound, http.StatusGone:
		return fmt.Errorf("%w: it is gone: %s", errChanged, resp.Status)
	case http.StatusRequestedRangeNotSatisfiable:
		// Only ranges inside the size found at opening are asked for.
		return fmt.Errorf("%w: it is shorter than the %d bytes it had: %s", errChanged, h.size, resp.Status)
	case http.StatusOK, http.StatusPartialContent:
	default:
		return nil
	}
	if v := resp.Header.Get("ETag"); v != "" && h.etag != "" && strings.TrimPrefix(v, "W/") != strings.TrimPrefix(h.etag, "W/") {
		return fmt.Errorf("%w: its ETag was %s and is now %s", errChanged, h.etag, v)
	}
	if v := resp.Header.Get("Last-Modified"); v != "" && h.lastMod != "" && v != h.lastMod {
		return fmt.Errorf("%w: it was last modified %s and now %s", errChanged, h.lastMod, v)
	}
	if resp.StatusCode == http.StatusOK && resp.ContentLength >= 0 && h.size >= 0 && resp.ContentLength != h.size {
		return fmt.Errorf("%w: the resource is %d bytes now, %d when it was opened", errChanged, resp.ContentLength, h.size)
	}
	return nil
}

// do makes one request, under the connect and header timeouts; the
// response's body is read under the idle timeout, and closing it ends the
// request.
func (h *File) do(method string, set func(*http.Request)) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(h.ctx)
	w := &watchdog{cancel: cancel}
	if h.connect > 0 {
		w.arm(h.connect, "no connection")
	}
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) {
			w.arm(h.header, "no response header")
		},
	})
	req, err := http.NewRequestWithContext(ctx, method, h.url, nil)
	if err != nil {
		cancel(nil)
		return nil, err
	}
	if set != nil {
		set(req)
	}
	h.reqs.Add(1)
	resp, err := h.client.Do(req)
	if err != nil {
		err = w.cause(ctx, err)
		cancel(nil)
		return nil, err
	}
	w.arm(h.idle, "no byte of the body")
	resp.Body = &watchedBody{body: resp.Body, w: w, ctx: ctx, idle: h.idle}
	return resp, nil
}

// watchdog cancels a request whose current phase lasts too long, saying
// which phase it was.
type watchdog struct {
	cancel context.CancelCauseFunc
	mu     sync.Mutex
	timer  *time.Timer
}

// arm starts the timeout d (none if 0) for the phase what describes,
// replacing the one before.
func (w *watchdog) arm(d time.Duration, what string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	if d > 0 {
		w.timer = time.AfterFunc(d, func() {
			w.cancel(fmt.Errorf("%w: %w: %s for %v", ErrRemote, ErrTimeout, what, d))
		})
	}
}

// rearm restarts the current timeout, as a byte arrived.
func (w *watchdog) rearm(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Reset(d)
	}
}

// stop ends the watch and the request.
func (w *watchdog) stop() {
	w.mu.Lock()
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
	w.cancel(nil)
}

// cause returns the timeout that ended the request, if one did, else err.
func (w *watchdog) cause(ctx context.Context, err error) error {
	if c := context.Cause(ctx); c != nil && errors.Is(c, ErrTimeout) {
		return c
	}
	return err
}

// watchedBody is a response body read under the idle timeout.
type watchedBody struct {
	body io.ReadCloser
	w    *watchdog
	ctx  context.Context
	idle time.Duration
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if n > 0 {
		b.w.rearm(b.idle)
	}
	if err != nil && err != io.EOF {
		err = b.w.cause(b.ctx, err)
	}
	return n, err
}

func (b *watchedBody) Close() error {
	err := b.body.Close()
	b.w.stop()
	return err
}

// ReadAt reads len(p) bytes at off with one range request. A short answer
// is an error wrapping ErrRemote, a read past the end io.EOF.
func (h *File) ReadAt(p []byte, off int64) (int, error) {
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
		if errors.Is(err, ErrTimeout) {
			return n, fmt.Errorf("%s: bytes %d-%d: after %d bytes: %w", h.url, off, off+want-1, n, err)
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

// Download writes the resource at url to w with one GET, for a server
// that does not serve byte ranges (see ErrNoRanges), and returns the number
// of bytes written. A resource longer than limit bytes is refused with an
// error wrapping ErrTooLarge: before its body is read when the response
// declares its length, else once limit bytes have been written (w then
// holds them). The request runs under ctx and the timeouts of opts (nil
// for the defaults), the idle timeout between any two bytes of the body.
func Download(ctx context.Context, url string, w io.Writer, limit int64, opts *Options) (int64, error) {
	client := http.DefaultClient
	if opts != nil && opts.Client != nil {
		client = opts.Client
	}
	h := &File{ctx: ctx, client: client, url: url, size: -1}
	h.connect, h.header, h.idle = opts.timeouts()
	resp, err := h.do(http.MethodGet, nil)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s: %w: GET answered %s", url, ErrRemote, resp.Status)
	}
	if resp.ContentLength > limit {
		return 0, fmt.Errorf("%s: %w of %d bytes (it has %d)", url, ErrTooLarge, limit, resp.ContentLength)
	}
	n, err := io.Copy(w, io.LimitReader(resp.Body, limit))
	if err != nil {
		return n, fmt.Errorf("%s: download: after %d bytes: %w", url, n, err)
	}
	if n == limit {
		// One byte more tells a resource of exactly limit bytes from a
		// longer one.
		var one [1]byte
		k, err := io.ReadFull(resp.Body, one[:])
		if k > 0 {
			return n, fmt.Errorf("%s: %w of %d bytes", url, ErrTooLarge, limit)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return n, fmt.Errorf("%s: download: after %d bytes: %w", url, n, err)
		}
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return n, fmt.Errorf("%s: %w: the body ended after %d of its %d bytes", url, ErrRemote, n, resp.ContentLength)
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
