package gcs

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"gocloud.dev/blob/driver"
)

// NewTypedWriter implements driver.Bucket. The writer keeps up to a chunk
// of bytes: an object of up to a chunk is uploaded in one request when the
// writer is closed; a larger one starts a resumable upload, sends it a
// chunk at a time, and completes it when the writer is closed. The object
// exists only once the upload is complete: a writer whose context ends
// first (or whose upload fails) leaves none, and cancels its resumable
// upload on the store.
func (b *bucket) NewTypedWriter(ctx context.Context, key, contentType string, opts *driver.WriterOptions) (driver.Writer, error) {
	meta := map[string]any{"name": key, "contentType": contentType}
	for k, v := range map[string]string{
		"cacheControl":       opts.CacheControl,
		"contentDisposition": opts.ContentDisposition,
		"contentEncoding":    opts.ContentEncoding,
		"contentLanguage":    opts.ContentLanguage,
	} {
		if v != "" {
			meta[k] = v
		}
	}
	if len(opts.Metadata) > 0 {
		meta["metadata"] = opts.Metadata
	}
	if len(opts.ContentMD5) > 0 {
		meta["md5Hash"] = base64.StdEncoding.EncodeToString(opts.ContentMD5)
	}
	mj, err := json.Marshal(meta)
	if err != nil {
		return nil, fmt.Errorf("gcs: upload %s/%s: %w", b.name, key, err)
	}
	w := &writer{ctx: ctx, b: b, key: key, contentType: contentType, meta: mj, ifNotExist: opts.IfNotExist}
	if opts.BeforeWrite != nil {
		if err := opts.BeforeWrite(func(any) bool { return false }); err != nil {
			return nil, err
		}
	}
	chunk := b.chunk
	if opts.BufferSize > 0 {
		chunk = chunkSize(opts.BufferSize)
	}
	w.buf = make([]byte, 0, chunk)
	return w, nil
}

// writer is the driver.Writer of one upload.
type writer struct {
	ctx         context.Context
	b           *bucket
	key         string
	contentType string
	meta        []byte // the object's JSON metadata
	ifNotExist  bool

	buf     []byte // the bytes from sent on, at most a chunk
	sent    int64  // the bytes the store holds (of a resumable upload)
	session string // the resumable upload's URL, once started
	err     error  // the first failure: the upload is dead
}

func (w *writer) op() string { return "upload " + w.b.name + "/" + w.key }

// Write keeps p, sending a chunk whenever more than a chunk is kept.
func (w *writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n := 0
	for len(p) > 0 {
		if len(w.buf) == cap(w.buf) {
			// A full chunk, and more to come: not the last one.
			if err := w.flush(); err != nil {
				w.err = err
				return n, err
			}
		}
		k := copy(w.buf[len(w.buf):cap(w.buf)], p)
		w.buf = w.buf[:len(w.buf)+k]
		p = p[k:]
		n += k
	}
	return n, nil
}

// Close completes the upload, creating the object; if the writer's
// context has ended, or a chunk failed, it cancels the upload instead and
// returns why.
func (w *writer) Close() error {
	if w.err == nil {
		w.err = w.ctx.Err()
	}
	if w.err != nil {
		w.cancel()
		return w.err
	}
	var err error
	if w.session == "" {
		err = w.single()
	} else {
		err = w.finish()
	}
	if err != nil {
		w.cancel()
		// A context that ended is the reason, whatever the request said.
		if cerr := w.ctx.Err(); cerr != nil {
			return cerr
		}
	}
	return err
}

// uploadQuery returns the query of a request that starts an upload.
func (w *writer) uploadQuery(kind string) url.Values {
	q := url.Values{"uploadType": {kind}, "name": {w.key}}
	if w.ifNotExist {
		q.Set("ifGenerationMatch", "0")
	}
	return q
}

// single uploads the kept bytes, the whole object, in one multipart
// request.
func (w *writer) single() error {
	boundary := newBoundary()
	head := "--" + boundary + "\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n" + string(w.meta) +
		"\r\n--" + boundary + "\r\nContent-Type: " + w.contentType + "\r\n\r\n"
	tail := "\r\n--" + boundary + "--\r\n"
	body := io.MultiReader(strings.NewReader(head), bytes.NewReader(w.buf), strings.NewReader(tail))
	size := int64(len(head) + len(w.buf) + len(tail))
	resp, err := w.b.do(w.ctx, w.op(), http.MethodPost, w.b.uploadURL(w.uploadQuery("multipart")), body, size,
		http.Header{"Content-Type": {`multipart/related; boundary="` + boundary + `"`}}, http.StatusOK, http.StatusCreated)
	if err != nil {
		return err
	}
	return w.created(resp, int64(len(w.buf)))
}

// newBoundary returns a multipart boundary that no body holds by chance.
func newBoundary() string {
	var b [16]byte
	rand.Read(b[:])
	return "trevni-" + hex.EncodeToString(b[:])
}

// created checks the object an upload of size bytes created, as resp
// describes it.
func (w *writer) created(resp *http.Response, size int64) error {
	var o ObjectAttrs
	if err := decode(w.op(), resp, &o); err != nil {
		return err
	}
	if o.Size != size {
		return fmt.Errorf("gcs: %s: the store made an object of %d bytes of the %d sent", w.op(), o.Size, size)
	}
	return nil
}

// start starts the resumable upload.
func (w *writer) start() error {
	resp, err := w.b.do(w.ctx, w.op(), http.MethodPost, w.b.uploadURL(w.uploadQuery("resumable")),
		bytes.NewReader(w.meta), int64(len(w.meta)), http.Header{
			"Content-Type":          {"application/json; charset=UTF-8"},
			"X-Upload-Content-Type": {w.contentType},
		}, http.StatusOK, http.StatusCreated)
	if err != nil {
		return err
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if u, err := url.Parse(loc); err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("gcs: %s: the store named no upload URL (Location %q)", w.op(), loc)
	}
	w.session = loc
	return nil
}

// flush sends the kept bytes, a full chunk, as a chunk of the resumable
// upload, starting it first if need be. The store may keep less than it
// was sent: what it did not keep stays, to be sent again.
func (w *writer) flush() error {
	if w.session == "" {
		if err := w.start(); err != nil {
			return err
		}
	}
	cr := fmt.Sprintf("bytes %d-%d/*", w.sent, w.sent+int64(len(w.buf))-1)
	resp, err := w.b.do(w.ctx, w.op(), http.MethodPut, w.session, bytes.NewReader(w.buf), int64(len(w.buf)),
		http.Header{"Content-Range": {cr}}, http.StatusPermanentRedirect)
	if err != nil {
		return err
	}
	resp.Body.Close()
	kept, err := w.kept(resp)
	if err != nil {
		return err
	}
	w.buf = w.buf[:copy(w.buf, w.buf[kept-w.sent:])]
	w.sent = kept
	return nil
}

// kept returns how many bytes the store holds by its answer resp (308
// Permanent Redirect), which must be at least what it held before, and
// at most what it was sent.
func (w *writer) kept(resp *http.Response) (int64, error) {
	r := resp.Header.Get("Range")
	if r == "" {
		if w.sent == 0 {
			return 0, nil
		}
		return 0, fmt.Errorf("gcs: %s: the store lost the %d bytes it held", w.op(), w.sent)
	}
	last, ok := strings.CutPrefix(r, "bytes=0-")
	n, err := strconv.ParseInt(last, 10, 64)
	if !ok || err != nil || n+1 < w.sent || n+1 > w.sent+int64(len(w.buf)) {
		return 0, fmt.Errorf("gcs: %s: the store says it holds %q, after %d bytes held and %d sent", w.op(), r, w.sent, len(w.buf))
	}
	return n + 1, nil
}

// finish sends the kept bytes as the last chunk of the resumable upload,
// completing it.
func (w *writer) finish() error {
	total := w.sent + int64(len(w.buf))
	for {
		cr := fmt.Sprintf("bytes %d-%d/%d", w.sent, total-1, total)
		if len(w.buf) == 0 {
			cr = fmt.Sprintf("bytes */%d", total)
		}
		resp, err := w.b.do(w.ctx, w.op(), http.MethodPut, w.session, bytes.NewReader(w.buf), int64(len(w.buf)),
			http.Header{"Content-Range": {cr}}, http.StatusOK, http.StatusCreated, http.StatusPermanentRedirect)
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusPermanentRedirect {
			w.session = ""
			return w.created(resp, total)
		}
		resp.Body.Close()
		kept, err := w.kept(resp)
		if err != nil {
			return err
		}
		if kept == w.sent {
			return fmt.Errorf("gcs: %s: the store kept none of the last %d bytes", w.op(), len(w.buf))
		}
		w.buf = w.buf[:copy(w.buf, w.buf[kept-w.sent:])]
		w.sent = kept
	}
}

// cancelTimeout bounds the request that cancels a resumable upload.
const cancelTimeout = 30 * time.Second

// cancel cancels the resumable upload, if one was started, with a context
// of its own (the writer's may have ended), so that the store drops what
// it holds of it. No object appears either way: this only frees the
// store sooner.
func (w *writer) cancel() {
	if w.session == "" {
		return
	}
	ctx, stop := context.WithTimeout(context.WithoutCancel(w.ctx), cancelTimeout)
	defer stop()
	// The store answers 499 to a cancelled upload.
	resp, err := w.b.do(ctx, w.op()+" (cancel)", http.MethodDelete, w.session, nil, 0, nil, 499, http.StatusNoContent, http.StatusOK)
	if err == nil {
		resp.Body.Close()
	}
	w.session = ""
}

// decodeBase64 returns the bytes of s, standard base64, or nil.
func decodeBase64(s string) []byte {
	if s == "" {
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil
	}
	return b
}
