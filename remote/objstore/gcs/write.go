package gcs

import (
	"bytes"
	"context"
	"crypto/md5"
	crand "crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"
	"golang.org/x/oauth2"
)

// NewTypedWriter implements driver.Bucket. The writer keeps up to a chunk
// of bytes: an object of up to a chunk is uploaded in one request when the
// writer is closed; a larger one starts a resumable upload, sends it a
// chunk at a time, and completes it when the writer is closed. The object
// exists only once the upload is complete: a writer whose context ends
// first (or whose upload fails) leaves none, and cancels its resumable
// upload on the store. A request of the upload that fails for a reason
// that may pass is retried (see "How uploads are retried").
func (b *bucket) NewTypedWriter(ctx context.Context, key, contentType string, opts *driver.WriterOptions) (driver.Writer, error) {
	if key == "" {
		return nil, fmt.Errorf("gcs: upload %s: %w", b.name, errNoKey)
	}
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

// errNoKey is the error of an upload to the empty key, which names no
// object (its URL would be the bucket's list of objects).
var errNoKey = errors.New("an object's name may not be empty")

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

// How uploads are retried.
//
// A step of an upload (the request that starts a resumable upload, each
// chunk, the last chunk that completes it, the one request of a small
// object) is tried again when it fails for a reason that may pass (see
// transient): up to bucket.retries times after its first try (8 by
// default), waiting bucket.backoff (250 ms) before the first retry,
// doubled before each next one up to bucket.maxWait (16 s), each wait
// drawn between half and all of that so that writers that failed together
// do not come back together, and never past the end of the writer's
// context. What a retry sends depends on what the failed try may have
// done:
//
//   - A start creates a session, never an object: one whose answer was
//     lost leaves a session that holds nothing, which the store drops
//     after a week. It is sent again as it was.
//   - A chunk whose outcome is unknown is followed by a status query (a
//     PUT with no body and Content-Range "bytes */*", or "bytes */TOTAL"
//     for the last chunk), whose answer says what the store holds: 308
//     and "Range: bytes=0-N" for N+1 bytes, 308 and no Range for none,
//     200 or 201 and the object for an upload the chunk completed. The
//     chunk is then sent again from the first byte the store lacks: the
//     writer keeps the chunk until the store says it holds it. A session
//     is completed once at most, so no object is made twice; a session
//     the store no longer knows (404, 410) fails the upload, which must
//     then start over.
//   - A one-request upload: see single.

// Defaults of the retries of uploads (see above).
const (
	defaultRetries = 8
	defaultBackoff = 250 * time.Millisecond
	defaultMaxWait = 16 * time.Second
)

// attempts counts the failed tries of one step of an upload, and waits
// between them.
type attempts struct {
	w      *writer
	what   string // the step, for errors: "bytes 0-262143"
	failed int
}

// again returns nil when the step may be tried again after err, the
// failure of its latest try, once a wait is over: err may pass, the tries
// are not spent and the writer's context has not ended. Otherwise it
// returns the error to fail with, which says how many tries were made.
func (a *attempts) again(err error) error {
	a.failed++
	switch {
	case a.w.ctx.Err() != nil:
		// The end of the context is the reason, whatever the request
		// said.
		return fmt.Errorf("gcs: %s: %s: %w (attempt %d failed: %v)", a.w.op(), a.what, a.w.ctx.Err(), a.failed, err)
	case !a.w.transient(err):
		if a.failed > 1 {
			return fmt.Errorf("%w (attempt %d)", err, a.failed)
		}
		return err
	case a.failed > a.w.b.retries:
		return fmt.Errorf("%w (gave up after %d attempts)", err, a.failed)
	}
	if cerr := a.w.pause(a.failed); cerr != nil {
		return fmt.Errorf("gcs: %s: %s: %w while waiting to try again (attempt %d failed: %v)", a.w.op(), a.what, cerr, a.failed, err)
	}
	return nil
}

// pause waits before the retry that follows the failed-th failed try, or
// until the writer's context ends, returning its error then.
func (w *writer) pause(failed int) error {
	d := w.b.backoff
	for i := 1; i < failed && d < w.b.maxWait; i++ {
		d *= 2
	}
	d = min(d, w.b.maxWait)
	d = d/2 + rand.N(d/2+1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-w.ctx.Done():
		return w.ctx.Err()
	case <-t.C:
		return nil
	}
}

// transient reports whether a request that failed with err may succeed
// if made again: an answer of 408 Request Timeout, 429 Too Many Requests
// or 5xx; a connection refused, reset, or closed before or in the middle
// of the answer; a timeout; a token endpoint that answered so. Not when
// the writer's context has ended, nor for a refusal (4xx), a host that
// does not exist, a certificate that does not verify, or an answer that
// makes no sense.
func (w *writer) transient(err error) bool {
	if w.ctx.Err() != nil {
		return false
	}
	if errors.Is(err, errKeptNone) {
		return true
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Status == http.StatusRequestTimeout || e.Status == http.StatusTooManyRequests || e.Status >= 500
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		return re.Response == nil || re.Response.StatusCode == http.StatusTooManyRequests || re.Response.StatusCode >= 500
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return dns.IsTimeout || dns.IsTemporary
	}
	var cert *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	if errors.As(err, &cert) || errors.As(err, &unknownCA) || errors.As(err, &host) || errors.As(err, &invalid) {
		return false
	}
	var ne net.Error
	var op *net.OpError
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE) ||
		errors.As(err, &ne) && ne.Timeout() || errors.As(err, &op) {
		return true
	}
	// net/http's own errors of a connection lost, which it does not
	// export (HTTP/1.1 and HTTP/2, which GCS speaks over TLS).
	msg := err.Error()
	for _, lost := range []string{"server closed idle connection", "http2: server sent GOAWAY", "http2: client connection lost", "stream error: stream ID"} {
		if strings.Contains(msg, lost) {
			return true
		}
	}
	return false
}

// gone reports whether err is the store's answer for a resumable upload
// it no longer knows (404 Not Found, 410 Gone).
func gone(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e.Status == http.StatusNotFound || e.Status == http.StatusGone)
}

// goneError is the error of a resumable upload whose session the store
// no longer knows.
func (w *writer) goneError(what string, err error) error {
	return fmt.Errorf("gcs: %s: %s: the store no longer knows the upload's session (it expired or was cancelled) after holding %d bytes; the upload must start over: %w", w.op(), what, w.sent, err)
}

// uploadQuery returns the query of a request that starts an upload, with
// the condition gen (ifGenerationMatch) when not nil.
func (w *writer) uploadQuery(kind string, gen *int64) url.Values {
	q := url.Values{"uploadType": {kind}, "name": {w.key}}
	if gen != nil {
		q.Set("ifGenerationMatch", strconv.FormatInt(*gen, 10))
	}
	return q
}

// condition returns the condition of a create that the writer's options
// ask for: 0 (there must be no object) or none.
func (w *writer) condition() *int64 {
	if w.ifNotExist {
		return new(int64)
	}
	return nil
}

// single uploads the kept bytes, the whole object, in one multipart
// request, retried (see "How uploads are retried").
//
// A try whose outcome is unknown (its answer lost, or a 5xx that may have
// come after the store made the object) may have created the object, so
// every try after it is conditional, and the store never makes the
// object twice: with ifGenerationMatch=0 for a writer that may not
// replace an object (its own condition, on every try), and otherwise
// with ifGenerationMatch set to the generation of the object that a look
// just before the retry finds there (0 if none); if that object already
// holds the bytes sent, the look ends the upload, with success. A
// conditional retry refused with 412 Precondition Failed looks at the
// object too: one that holds exactly the bytes sent (the same size, MD5
// and CRC32C) is taken for the one the lost try made, and the upload
// succeeds; any other is a real conflict, and the upload fails with the
// 412. The look cannot tell the object a lost try made from an identical
// one that another writer made meanwhile; either way the store holds what
// was written, and this writer replaced nothing it was told not to, so
// success is the right answer. (A writer that may replace the object and
// whose lost try did make it, replaced by another writer's different
// object before the look, replaces that one in turn: as it would had its
// try come a moment later.) A 412 on the first try, or on one after
// tries known to have failed, is a conflict.
func (w *writer) single() error {
	what := fmt.Sprintf("%d bytes in one request", len(w.buf))
	a := &attempts{w: w, what: what}
	gen := w.condition()
	unknown := false // whether a failed try may have made the object
	for {
		if unknown && gen == nil {
			o, err := w.look(a)
			if err != nil {
				return err
			}
			if w.holdsSent(o) {
				return nil
			}
			gen = new(int64)
			if o != nil {
				*gen = o.Generation
			}
		}
		err := w.singleTry(what, gen)
		if err == nil {
			return nil
		}
		if unknown && code(statusOf(err)) == gcerrors.FailedPrecondition {
			o, lerr := w.look(a)
			if lerr != nil {
				return lerr
			}
			if w.holdsSent(o) {
				return nil
			}
			return fmt.Errorf("%w (attempt %d, after one whose outcome is unknown: the object there is not the one sent)", err, a.failed+1)
		}
		if err := a.again(err); err != nil {
			return err
		}
		unknown = unknown || maybeDone(err)
	}
}

// singleTry makes one try of single, conditional on gen when not nil.
func (w *writer) singleTry(what string, gen *int64) error {
	boundary := newBoundary()
	head := "--" + boundary + "\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n" + string(w.meta) +
		"\r\n--" + boundary + "\r\nContent-Type: " + w.contentType + "\r\n\r\n"
	tail := "\r\n--" + boundary + "--\r\n"
	body := io.MultiReader(strings.NewReader(head), bytes.NewReader(w.buf), strings.NewReader(tail))
	size := int64(len(head) + len(w.buf) + len(tail))
	resp, err := w.b.do(w.ctx, w.op()+": "+what, http.MethodPost, w.b.uploadURL(w.uploadQuery("multipart", gen)), body, size,
		http.Header{"Content-Type": {`multipart/related; boundary="` + boundary + `"`}}, http.StatusOK, http.StatusCreated)
	if err != nil {
		return err
	}
	return w.created(resp, int64(len(w.buf)))
}

// statusOf returns the HTTP status of the store's answer that err is, or
// 0.
func statusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// maybeDone reports whether a request that failed with err, a transient
// failure, may have been carried out, in part or whole: any but one the
// store refused before doing anything (429 Too Many Requests, 408 Request
// Timeout). A 5xx may come from a front end after the store did its
// part.
func maybeDone(err error) bool {
	s := statusOf(err)
	return s != http.StatusTooManyRequests && s != http.StatusRequestTimeout
}

// look returns the attributes of the object the writer uploads, or nil
// if there is none, retrying with a.
func (w *writer) look(a *attempts) (*ObjectAttrs, error) {
	op := w.op() + ": " + a.what + ": a look at the object after a try whose outcome is unknown"
	for {
		resp, err := w.b.do(w.ctx, op, http.MethodGet, w.b.objectURL(w.key, url.Values{"fields": {"generation,size,md5Hash,crc32c"}}), nil, 0, nil, http.StatusOK)
		if err == nil {
			var o ObjectAttrs
			if err = decode(op, resp, &o); err == nil {
				return &o, nil
			}
		}
		if statusOf(err) == http.StatusNotFound {
			return nil, nil
		}
		if err := a.again(err); err != nil {
			return nil, err
		}
	}
}

// holdsSent reports whether o, an object or nil, holds the kept bytes: the
// same size, and the same MD5 and CRC32C where the store gives them (at
// least one).
func (w *writer) holdsSent(o *ObjectAttrs) bool {
	if o == nil || o.Size != int64(len(w.buf)) || o.MD5Hash == "" && o.CRC32C == "" {
		return false
	}
	if o.MD5Hash != "" {
		sum := md5.Sum(w.buf)
		if o.MD5Hash != base64.StdEncoding.EncodeToString(sum[:]) {
			return false
		}
	}
	if o.CRC32C != "" {
		c := binary.BigEndian.AppendUint32(nil, crc32.Checksum(w.buf, crc32.MakeTable(crc32.Castagnoli)))
		if o.CRC32C != base64.StdEncoding.EncodeToString(c) {
			return false
		}
	}
	return true
}

// newBoundary returns a multipart boundary that no body holds by chance.
func newBoundary() string {
	var b [16]byte
	crand.Read(b[:])
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
		return fmt.Errorf("gcs: %s: the store made an object of %d bytes of the %d sent%s", w.op(), o.Size, size, w.remove(&o))
	}
	return nil
}

// discard removes the object that resp, the answer that completed an
// upload too early, describes (see remove), closing its body.
func (w *writer) discard(resp *http.Response) string {
	var o ObjectAttrs
	if err := decode(w.op(), resp, &o); err != nil {
		return fmt.Sprintf("; what it made may be left under the name (%v): check it", err)
	}
	return w.remove(&o)
}

// remove deletes o, an object a failed upload made (a short one): the
// generation made, and no other, with a context of its own (the
// writer's may have ended), so that a failed upload never leaves an
// object under its name. It returns what to add to the upload's error:
// what was done, or what is left.
func (w *writer) remove(o *ObjectAttrs) string {
	if o.Generation == 0 {
		return fmt.Sprintf("; an object of %d bytes may be left under the name: check it", o.Size)
	}
	ctx, stop := context.WithTimeout(context.WithoutCancel(w.ctx), cancelTimeout)
	defer stop()
	q := url.Values{"ifGenerationMatch": {strconv.FormatInt(o.Generation, 10)}}
	resp, err := w.b.do(ctx, w.op()+" (removal of the object made short)", http.MethodDelete, w.b.objectURL(w.key, q), nil, 0, nil, http.StatusNoContent, http.StatusOK)
	if err != nil {
		return fmt.Sprintf("; the object made (generation %d, %d bytes) is left under the name, as its removal failed: %v", o.Generation, o.Size, err)
	}
	resp.Body.Close()
	return fmt.Sprintf("; the object made (generation %d, %d bytes) was removed", o.Generation, o.Size)
}

// start starts the resumable upload, retried (see "How uploads are
// retried"). A store may check the condition of the create here already:
// a 412 is a conflict, as no try made an object.
func (w *writer) start() error {
	a := &attempts{w: w, what: "the start of a resumable upload"}
	op := w.op() + ": " + a.what
	for {
		resp, err := w.b.do(w.ctx, op, http.MethodPost, w.b.uploadURL(w.uploadQuery("resumable", w.condition())),
			bytes.NewReader(w.meta), int64(len(w.meta)), http.Header{
				"Content-Type":          {"application/json; charset=UTF-8"},
				"X-Upload-Content-Type": {w.contentType},
			}, http.StatusOK, http.StatusCreated)
		if err == nil {
			resp.Body.Close()
			loc := resp.Header.Get("Location")
			if u, err := url.Parse(loc); err != nil || u.Scheme != "http" && u.Scheme != "https" {
				return fmt.Errorf("gcs: %s: the store named no upload URL (Location %q)", op, loc)
			}
			w.session = loc
			return nil
		}
		if err := a.again(err); err != nil {
			return err
		}
	}
}

// flush sends the kept bytes, a full chunk, as a chunk of the resumable
// upload, starting it first if need be, retried (see "How uploads are
// retried"). The store may keep less than it was sent: what it did not
// keep stays, to be sent again. It returns once the store holds some of
// the chunk, or fails.
func (w *writer) flush() error {
	if w.session == "" {
		if err := w.start(); err != nil {
			return err
		}
	}
	a := &attempts{w: w}
	for {
		a.what = fmt.Sprintf("bytes %d-%d", w.sent, w.sent+int64(len(w.buf))-1)
		cr := fmt.Sprintf("bytes %d-%d/*", w.sent, w.sent+int64(len(w.buf))-1)
		resp, err := w.b.do(w.ctx, w.op()+": "+a.what, http.MethodPut, w.session, bytes.NewReader(w.buf), int64(len(w.buf)),
			http.Header{"Content-Range": {cr}}, http.StatusPermanentRedirect)
		if err == nil {
			resp.Body.Close()
			before := w.sent
			if err := w.keep(resp); err != nil {
				return err
			}
			if w.sent > before {
				return nil
			}
			err = fmt.Errorf("gcs: %s: %s: the store kept none of them: %w", w.op(), a.what, errKeptNone)
		}
		if gone(err) {
			return w.goneError(a.what, err)
		}
		if err := a.again(err); err != nil {
			return err
		}
		if !maybeDone(err) {
			continue
		}
		resp, err = w.query(a, -1)
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusPermanentRedirect {
			// Some stores (fake-gcs-server) complete a session with
			// what they hold when asked its status: the object made is
			// short, and is removed.
			return fmt.Errorf("gcs: %s: %s: the store says the upload is complete, before its last chunk was sent%s", w.op(), a.what, w.discard(resp))
		}
		before := w.sent
		if err := w.keep(resp); err != nil {
			return err
		}
		if w.sent > before {
			return nil
		}
		// The store holds none of the chunk: it goes again.
	}
}

// errKeptNone is wrapped by the error of a chunk the store answered
// without keeping any of it: tried again.
var errKeptNone = errors.New("no progress")

// query asks the store what it holds of the resumable upload, after a
// try of a chunk whose outcome is unknown, retrying with a (its failures
// count with the chunk's): total is the object's size when the chunk was
// the last, or -1. The answer is 308 (resp's Range says what the store
// holds; its body is closed) or, for the last chunk, 200 or 201 (the
// upload is complete; resp's body is the object).
func (w *writer) query(a *attempts, total int64) (*http.Response, error) {
	cr := "bytes */*"
	if total >= 0 {
		cr = fmt.Sprintf("bytes */%d", total)
	}
	op := fmt.Sprintf("%s: %s: a status query after %d bytes held", w.op(), a.what, w.sent)
	for {
		resp, err := w.b.do(w.ctx, op, http.MethodPut, w.session, nil, 0,
			http.Header{"Content-Range": {cr}}, http.StatusPermanentRedirect, http.StatusOK, http.StatusCreated)
		if err == nil {
			if resp.StatusCode == http.StatusPermanentRedirect {
				resp.Body.Close()
			}
			return resp, nil
		}
		if gone(err) {
			return nil, w.goneError(a.what, err)
		}
		if err := a.again(err); err != nil {
			return nil, err
		}
	}
}

// keep drops the kept bytes that the store holds by its answer resp (308
// Permanent Redirect), which must be at least what it held before, and
// at most what it was sent.
func (w *writer) keep(resp *http.Response) error {
	r := resp.Header.Get("Range")
	if r == "" {
		if w.sent == 0 {
			return nil
		}
		return fmt.Errorf("gcs: %s: the store lost the %d bytes it held", w.op(), w.sent)
	}
	last, ok := strings.CutPrefix(r, "bytes=0-")
	n, err := strconv.ParseInt(last, 10, 64)
	if !ok || err != nil || n+1 < w.sent || n+1 > w.sent+int64(len(w.buf)) {
		return fmt.Errorf("gcs: %s: the store says it holds %q, after %d bytes held and %d sent", w.op(), r, w.sent, len(w.buf))
	}
	w.buf = w.buf[:copy(w.buf, w.buf[n+1-w.sent:])]
	w.sent = n + 1
	return nil
}

// finish sends the kept bytes as the last chunk of the resumable upload,
// completing it, retried (see "How uploads are retried").
func (w *writer) finish() error {
	total := w.sent + int64(len(w.buf))
	a := &attempts{w: w}
	for {
		a.what = fmt.Sprintf("the last bytes %d-%d of %d", w.sent, total-1, total)
		cr := fmt.Sprintf("bytes %d-%d/%d", w.sent, total-1, total)
		if len(w.buf) == 0 {
			a.what = fmt.Sprintf("the completion of %d bytes", total)
			cr = fmt.Sprintf("bytes */%d", total)
		}
		resp, err := w.b.do(w.ctx, w.op()+": "+a.what, http.MethodPut, w.session, bytes.NewReader(w.buf), int64(len(w.buf)),
			http.Header{"Content-Range": {cr}}, http.StatusOK, http.StatusCreated, http.StatusPermanentRedirect)
		if err == nil {
			if resp.StatusCode != http.StatusPermanentRedirect {
				if err = w.created(resp, total); err == nil {
					w.session = ""
					return nil
				}
				// The object's description was cut short: the status
				// query gives it again.
			} else {
				resp.Body.Close()
				before := w.sent
				if err := w.keep(resp); err != nil {
					return err
				}
				if w.sent > before {
					continue
				}
				err = fmt.Errorf("gcs: %s: %s: the store kept none of them: %w", w.op(), a.what, errKeptNone)
			}
		}
		if gone(err) {
			return w.goneError(a.what, err)
		}
		if err := a.again(err); err != nil {
			return err
		}
		if !maybeDone(err) {
			continue
		}
		resp, err = w.query(a, total)
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusPermanentRedirect {
			if err := w.created(resp, total); err != nil {
				return err
			}
			w.session = ""
			return nil
		}
		if err := w.keep(resp); err != nil {
			return err
		}
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
