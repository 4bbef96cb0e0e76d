// Package objstore reads and writes objects of cloud object stores named by
// URL: s3://bucket/key (Amazon S3 and S3-compatible stores), gs://bucket/key
// (Google Cloud Storage) and azblob://container/key (Azure Blob Storage),
// through gocloud.dev/blob and its drivers: gocloud.dev's s3blob for S3,
// and this module's own for Azure (stores/azblob, over the Azure SDK's
// container client) and GCS (package gcs, which speaks GCS's JSON API
// without Google's client libraries).
//
// It names no store's SDK: what differs from one store to another (opening
// a bucket, pinning a read to a version, an error's status) is the
// Provider of its scheme, which the driver package of that store
// registers (stores/s3, stores/gs, stores/azblob), so that a program links
// the SDKs of the stores it imports and no other. A URL of a scheme whose
// driver is not linked fails with an error wrapping store.ErrNoDriver that
// names the package to import.
//
// An Object is an io.ReaderAt over one object: each ReadAt is one ranged
// GET (wrap it in a remote.Coalescer to turn many small reads into few
// large ones). The object's version (its ETag on S3 and Azure, its
// generation on GCS) is pinned when it is opened: every read asks for that
// version only, so an object replaced while it is read fails the read with
// an error wrapping ErrChanged, never mixing the bytes of two versions.
// Reads that fail for a reason that may pass (a 5xx answer, a dropped or
// refused connection, a body shorter than asked) are retried with
// exponential backoff for up to Options.Stall since the first failure (a
// store restarting is waited for), going on from the last byte received.
// Errors tell a store that could not be reached (ErrUnreachable) from a
// conflicting write (ErrExists) and a changed object (ErrChanged).
//
// All the operations on a bucket share one client and its connections
// (see "How buckets are shared"): the objects of a data set of thousands
// of parts are read over a few connections.
//
// Every request of every store (reads, the look at an object, listings,
// uploads and their parts, copies, deletes) gives up once it has made no
// progress for Options.Stall: no answer header, no byte of its body taken
// by the store, no byte of the answer's body. Its error wraps ErrStalled
// and names the request; it is retried where a dropped connection is (see
// "How buckets are opened").
//
// A Writer uploads an object (in parts, for a large one) that appears only
// when Commit succeeds; Abort, or a failed Commit, leaves no object.
//
// Credentials and endpoints come from each ecosystem's standard
// environment: for S3 the AWS SDK's (AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_PROFILE, AWS_REGION, AWS_ENDPOINT_URL or
// AWS_ENDPOINT_URL_S3 for an S3-compatible store, which is then addressed
// in path style), for GCS Application Default Credentials
// (GOOGLE_APPLICATION_CREDENTIALS) and STORAGE_EMULATOR_HOST, for Azure
// AZURE_STORAGE_ACCOUNT and its keys, or AZURE_STORAGE_CONNECTION_STRING
// (UseDevelopmentStorage=true for the emulator), with AZURE_STORAGE_DOMAIN
// and AZURE_STORAGE_PROTOCOL for another address (docs/places.md says how
// to reach each store's emulator). A URL may carry the query parameters
// of its driver's URL opener (s3://bucket/key?region=eu-west-1&endpoint=...,
// gs://bucket/key?anonymous=true).
package objstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/trevni-go/trevni/internal/atomicfile"
	"github.com/trevni-go/trevni/remote/store"
	"github.com/trevni-go/trevni/stores/internal/stallhttp"
)

// ErrChanged is wrapped by the error of a read of an object that was
// replaced or deleted since it was opened; it is store.ErrChanged.
var ErrChanged = store.ErrChanged

// ErrExists is wrapped by the errors of Create and Commit for an object
// that exists and may not be replaced; it is atomicfile.ErrExists, which
// the front door's ErrExists is too.
var ErrExists = atomicfile.ErrExists

// ErrAppeared is wrapped by the error of a Commit that may not replace an
// object and finds one created while it was being written; it wraps
// ErrExists (and is atomicfile.ErrAppeared).
var ErrAppeared = atomicfile.ErrAppeared

// Schemes lists the URL schemes this package opens.
var Schemes = []string{"s3", "gs", "azblob"}

// IsURL reports whether name is the URL of an object of a store this
// package opens (s3://, gs://, azblob://).
func IsURL(name string) bool {
	for _, s := range Schemes {
		if strings.HasPrefix(name, s+"://") {
			return true
		}
	}
	return false
}

// Location is a parsed object URL.
type Location struct {
	// Bucket is the URL that opens the bucket: scheme, bucket and query.
	Bucket string
	// Key is the object's key (no leading slash).
	Key string
}

// Parse splits an object URL into the bucket's URL and the key.
func Parse(name string) (Location, error) {
	if !IsURL(name) {
		return Location{}, fmt.Errorf("%s: not an object store URL (%s)", name, strings.Join(Schemes, "://, ")+"://")
	}
	scheme, rest, _ := strings.Cut(name, "://")
	host, key, _ := strings.Cut(rest, "/")
	var query string
	if i := strings.IndexByte(host, '?'); i >= 0 {
		host, query = host[:i], host[i+1:]
	} else if i := strings.LastIndexByte(key, '?'); i >= 0 && isQuery(key[i+1:]) {
		key, query = key[:i], key[i+1:]
	}
	if host == "" {
		return Location{}, fmt.Errorf("%s: the URL names no bucket", name)
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return Location{}, fmt.Errorf("%s: %w", name, err)
	}
	if scheme == "s3" && q.Get("use_path_style") == "" && q.Get("s3ForcePathStyle") == "" &&
		(q.Get("endpoint") != "" || os.Getenv("AWS_ENDPOINT_URL_S3") != "" || os.Getenv("AWS_ENDPOINT_URL") != "") {
		// S3-compatible stores at an endpoint of their own are
		// addressed by path, not by a host name per bucket.
		q.Set("use_path_style", "true")
	}
	b := url.URL{Scheme: scheme, Host: host, RawQuery: q.Encode()}
	return Location{Bucket: b.String(), Key: key}, nil
}

// isQuery reports whether s, what follows the last "?" of a URL, is a
// query (name=value pairs) rather than the rest of a key holding a "?"
// (a glob's).
func isQuery(s string) bool {
	if s == "" {
		return false
	}
	for _, kv := range strings.Split(s, "&") {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.ContainsAny(k, "/*[") {
			return false
		}
	}
	return true
}

// Options configures the requests made to a store. The zero value (or
// nil) is the defaults.
type Options struct {
	// Retries bounds the tries of a read, and of Open's look at the
	// object, after its first, that fail for a reason that may pass (on
	// S3 the AWS SDK retries the look itself); 0 means DefaultRetries,
	// negative none. The tries also stop once they have failed for
	// Stall (DefaultStall when Stall is negative) since the first
	// failure, or when the context ends: a store that restarts within
	// that time is waited for, and the read goes on from its last byte.
	Retries int
	// Backoff is the wait before the first retry, doubled before each
	// next one up to 4 s; 0 means DefaultBackoff.
	Backoff time.Duration
	// Stall bounds the time every request (reads, uploads and their
	// parts, listings, copies, deletes, the look at an object) may go
	// without progress: without a connection and an answer's header,
	// without a byte of its body taken by the store, without a byte of
	// the answer's body. A request that stalls longer fails with an
	// error wrapping ErrStalled, and is retried where failures that may
	// pass are (reads and Open by this package, the other requests by
	// the store's SDK or driver; see "How buckets are opened"). 0 means
	// DefaultStall, negative no bound.
	Stall time.Duration
	// OpenBucket, when not nil, opens the buckets (bucketURL is a
	// Location's Bucket) in place of the URL openers of "How buckets
	// are opened": a program's own client, credentials or http.Client
	// (see Store). Stall is then the bucket's client's to bound.
	OpenBucket func(ctx context.Context, bucketURL string) (*blob.Bucket, error)
}

// Defaults of Options.
const (
	DefaultRetries = store.DefaultRetries
	DefaultBackoff = store.DefaultBackoff
	DefaultStall   = store.DefaultStall
)

// ErrStalled is wrapped by the error of a request that made no progress
// for longer than Options.Stall (see Options.Stall); it is
// stallhttp.ErrStalled.
var ErrStalled = stallhttp.ErrStalled

func (o *Options) retries() (int, time.Duration) {
	n, d := DefaultRetries, DefaultBackoff
	if o != nil {
		if o.Retries != 0 {
			n = max(o.Retries, 0)
		}
		if o.Backoff > 0 {
			d = o.Backoff
		}
	}
	return n, d
}

func (o *Options) stall() time.Duration {
	switch {
	case o == nil || o.Stall == 0:
		return DefaultStall
	case o.Stall < 0:
		return 0
	}
	return o.Stall
}

// Object is an io.ReaderAt over one object, pinned to the version it had
// when it was opened. It is safe for concurrent use.
type Object struct {
	ctx     context.Context
	name    string
	bucket  *blob.Bucket
	release func() // releases bucket
	key     string
	size    int64
	p       *Provider
	version Version // pinned
	retries int
	backoff time.Duration
	window  time.Duration // retries stop this long after the first failure
	reqs    atomic.Int64
	fetched atomic.Int64
}

// Open opens the object name, reading its size and version with one
// request. Reads are made with ctx. The caller must Close it.
func Open(ctx context.Context, name string, opts *Options) (*Object, error) {
	b, release, loc, p, err := openObject(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	o := &Object{ctx: ctx, name: name, bucket: b, release: release, key: loc.Key, p: p}
	o.retries, o.backoff = opts.retries()
	o.window = opts.stall()
	if o.window <= 0 {
		o.window = DefaultStall
	}
	var attrs *blob.Attributes
	look := func() error {
		o.reqs.Add(1)
		var err error
		attrs, err = b.Attributes(o.sdkContext(ctx), loc.Key)
		return err
	}
	if p.LookRetried {
		// The SDK retries the look itself (the AWS SDK 3 tries), and
		// takes no word against it for one request: one policy, not one
		// inside the other.
		err = look()
	} else {
		err = o.retry(look)
	}
	if err != nil {
		release()
		return nil, fmt.Errorf("%s: %w", name, plain(err))
	}
	o.size = attrs.Size
	if p.Answered != nil {
		o.version = p.Answered(attrs.As)
	}
	if o.version.ETag == "" {
		o.version.ETag = attrs.ETag
	}
	return o, nil
}

// Size returns the object's length in bytes.
func (o *Object) Size() int64 { return o.size }

// Version returns the version of the object that was opened, which its
// reads are pinned to: its ETag (S3, Azure) or generation (GCS).
func (o *Object) Version() string {
	if o.version.Generation != 0 {
		return strconv.FormatInt(o.version.Generation, 10)
	}
	return o.version.ETag
}

// Requests returns how many requests were made so far, the one of Open
// and retries included.
func (o *Object) Requests() int64 { return o.reqs.Load() }

// BytesFetched returns how many body bytes the reads received.
func (o *Object) BytesFetched() int64 { return o.fetched.Load() }

// Close releases the object's bucket (see "How buckets are shared").
func (o *Object) Close() error {
	o.release()
	return nil
}

// ReadAt reads len(p) bytes at off with one ranged GET, or more when a
// read fails in the middle and is retried from where it stopped. A read
// past the end returns io.EOF with the bytes before it.
func (o *Object) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("%s: negative offset %d", o.name, off)
	}
	if off >= o.size {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	want := int(min(int64(len(p)), o.size-off))
	got := 0
	err := o.retry(func() error {
		n, err := o.readOnce(p[got:want], off+int64(got))
		got += n
		return err
	})
	if err != nil {
		return got, fmt.Errorf("%s: bytes %d-%d: %w", o.name, off, off+int64(want)-1, describe(err))
	}
	if want < len(p) {
		return got, io.EOF
	}
	return got, nil
}

// errShort is the error of a body that ended before the bytes asked for.
var errShort = errors.New("the body ended early")

// readOnce makes one ranged GET of len(p) bytes at off and returns how
// many it received. A stall fails it through the bucket's transport (see
// "How buckets are opened").
func (o *Object) readOnce(p []byte, off int64) (int, error) {
	o.reqs.Add(1)
	ctx, cancel := context.WithCancel(o.sdkContext(o.ctx))
	defer cancel()
	r, err := o.bucket.NewRangeReader(ctx, o.key, off, int64(len(p)), &blob.ReaderOptions{BeforeRead: o.pin})
	if err != nil {
		if httpStatus(err) == http.StatusRequestedRangeNotSatisfiable {
			// The range is within the size opened: the object is
			// shorter now (a store that ignores the pin).
			return 0, fmt.Errorf("%w: it had %d bytes and now has fewer: %w", ErrChanged, o.size, err)
		}
		return 0, err
	}
	defer r.Close()
	if err := o.check(r); err != nil {
		return 0, err
	}
	n := 0
	for n < len(p) {
		k, err := r.Read(p[n:])
		n += k
		if err != nil {
			o.fetched.Add(int64(n))
			if n == len(p) && errors.Is(err, io.EOF) {
				return n, nil
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				err = fmt.Errorf("%w after %d of %d bytes", errShort, n, len(p))
			}
			return n, err
		}
	}
	o.fetched.Add(int64(n))
	return n, nil
}

// sdkContext returns ctx telling the SDK to make no retries (the
// Provider's NoRetries), for the requests the Object retries itself (one
// policy, not one inside the other, and every request counted).
func (o *Object) sdkContext(ctx context.Context) context.Context {
	if o.p.NoRetries == nil {
		return ctx
	}
	return o.p.NoRetries(ctx)
}

// pin makes a read ask for the version opened only, and leaves retrying
// to the Object (one policy, and every request counted).
func (o *Object) pin(as func(any) bool) error {
	if o.p.BeforeRead == nil {
		return nil
	}
	return o.p.BeforeRead(as, o.version)
}

// check compares the version a read answered with the one opened, for
// servers that ignore the condition pin sets.
func (o *Object) check(r *blob.Reader) error {
	if r.Size() != o.size {
		return fmt.Errorf("%w: it had %d bytes and now has %d", ErrChanged, o.size, r.Size())
	}
	if o.p.Answered == nil {
		return nil
	}
	v := o.p.Answered(r.As)
	if o.version.ETag != "" && v.ETag != "" && v.ETag != o.version.ETag {
		return fmt.Errorf("%w: its ETag was %s and is now %s", ErrChanged, o.version.ETag, v.ETag)
	}
	if o.version.Generation != 0 && v.Generation != 0 && v.Generation != o.version.Generation {
		return fmt.Errorf("%w: its generation was %d and is now %d", ErrChanged, o.version.Generation, v.Generation)
	}
	return nil
}

// retry runs try until it succeeds, fails for good, has been retried
// o.retries times, or has failed for o.window since its first failure,
// waiting o.backoff between tries, doubled each time up to maxBackoff.
// A store that restarts within the window (tens of seconds by default)
// is waited for.
func (o *Object) retry(try func() error) error {
	wait := o.backoff
	var first time.Time
	for i := 0; ; i++ {
		err := try()
		if err == nil {
			return nil
		}
		if i == 0 {
			first = time.Now()
		}
		if i >= o.retries || !transient(err) || time.Since(first)+wait > o.window || !sleep(o.ctx, wait) {
			if i > 0 {
				err = fmt.Errorf("%w (after %d tries over %v)", err, i+1, time.Since(first).Round(time.Millisecond))
			}
			if unreachable(err) && !errors.Is(err, ErrUnreachable) {
				err = fmt.Errorf("%w: %w", ErrUnreachable, err)
			}
			return err
		}
		wait = min(2*wait, maxBackoff)
	}
}

// maxBackoff bounds the wait between two tries of a read.
const maxBackoff = 4 * time.Second

// ErrUnreachable is wrapped by the errors of requests that got no answer
// from the store, after their retries: the connection refused, reset or
// dropped (closed before the answer), the host not found, no progress for Options.Stall (ErrStalled),
// or an answer of 502, 503 or 504 (a gateway's, or a store's that is
// starting). It tells a store that is down from a conflicting write
// (ErrExists) and a changed object (ErrChanged).
var ErrUnreachable = errors.New("the store could not be reached")

// unreachable reports whether err says that the store did not answer.
func unreachable(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	var ue *url.Error // the HTTP client's: no answer came
	switch {
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false // this process's want of descriptors, or its end
	case errors.Is(err, ErrStalled), errors.As(err, &op), errors.As(err, &dns), errors.As(err, &ue),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, io.ErrUnexpectedEOF):
		return true
	}
	switch httpStatus(err) {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// transient reports whether a failed read may succeed if tried again.
func transient(err error) bool {
	if errors.Is(err, ErrStalled) {
		return true
	}
	if errors.Is(err, ErrChanged) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	switch gcerrors.Code(err) {
	case gcerrors.NotFound, gcerrors.FailedPrecondition, gcerrors.PermissionDenied,
		gcerrors.InvalidArgument, gcerrors.Unimplemented, gcerrors.Canceled:
		return false
	}
	return true
}

// ErrNotFound is wrapped by the error of Open for an object (or a bucket)
// that does not exist; it is fs.ErrNotExist.
var ErrNotFound = fs.ErrNotExist

// ErrDenied is wrapped by the errors of requests the store refused for
// want of credentials or permissions; it is fs.ErrPermission.
var ErrDenied = fs.ErrPermission

// plain says in a few words what a store's answer means, for the errors
// of a missing object and of refused credentials, which the SDKs describe
// at length; the store's own words follow, for others.
func plain(err error) error {
	switch gcerrors.Code(err) {
	case gcerrors.NotFound:
		return fmt.Errorf("%w: no such object or bucket", ErrNotFound)
	case gcerrors.PermissionDenied:
		return fmt.Errorf("%w: access denied (check the store's credentials: AWS_*, GOOGLE_APPLICATION_CREDENTIALS, AZURE_*): %w", ErrDenied, err)
	}
	if unreachable(err) && !errors.Is(err, ErrUnreachable) {
		return fmt.Errorf("%w: %w", ErrUnreachable, describe(err))
	}
	return describe(err)
}

// describe turns the errors a pinned read gets for a replaced or deleted
// object into ErrChanged, and leaves others as they are.
func describe(err error) error {
	if errors.Is(err, ErrChanged) {
		return err
	}
	if gcerrors.Code(err) == gcerrors.FailedPrecondition {
		return fmt.Errorf("%w: %w", ErrChanged, err)
	}
	return err
}

// List returns the URLs of the objects whose URLs match pattern, a URL
// whose key is a path.Match pattern (s3://bucket/logs/*.trv), in key
// order. A "*" does not match "/": the objects of a prefix are listed
// one level deep. ctx bounds the listing; opts' Stall each of its
// requests (nil: the defaults).
func List(ctx context.Context, pattern string, opts *Options) ([]string, error) {
	loc, err := Parse(pattern)
	if err != nil {
		return nil, err
	}
	if _, err := path.Match(loc.Key, ""); err != nil {
		return nil, fmt.Errorf("%s: %w", pattern, err)
	}
	prefix := loc.Key
	if i := strings.IndexAny(prefix, "*?[\\"); i >= 0 {
		prefix = prefix[:i]
	}
	b, release, _, err := acquireBucket(ctx, loc.Bucket, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pattern, err)
	}
	defer release()
	head, tail := objectURL(pattern, loc)
	var out []string
	it := b.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: listing: %w", pattern, plain(err))
		}
		if obj.IsDir {
			continue
		}
		if ok, _ := path.Match(loc.Key, obj.Key); ok {
			out = append(out, head+obj.Key+tail)
		}
	}
	return out, nil // listings come in key order
}

// Writer uploads an object that appears only when Commit succeeds.
type Writer struct {
	ctx        context.Context
	name       string
	bucketName string
	bucket     *blob.Bucket
	p          *Provider
	release    func() // releases bucket
	key        string
	replace    bool
	cancel     context.CancelFunc
	w          upload
	n          int64
	done       bool
}

// Create starts the upload of the object name. Without replace, an
// existing object is an error wrapping ErrExists, and the upload is made
// conditional on there being none when it completes (S3's If-None-Match,
// GCS's ifGenerationMatch=0), where the store supports it. ctx
// bounds the upload: its end aborts it. opts' Stall bounds each of its
// requests (nil: the defaults; its Retries and Backoff are for reads).
func Create(ctx context.Context, name string, replace bool, opts *Options) (*Writer, error) {
	b, release, loc, p, err := openObject(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	w := &Writer{ctx: ctx, name: name, bucketName: bucketHost(loc.Bucket), bucket: b, p: p, release: release, key: loc.Key, replace: replace}
	if !replace {
		if err := w.free(ctx); err != nil {
			release()
			if errors.Is(err, ErrExists) {
				return nil, err
			}
			return nil, fmt.Errorf("%s: cannot create: %w", name, err)
		}
	}
	wctx, cancel := context.WithCancel(ctx)
	wopts := &blob.WriterOptions{
		ContentType: "application/octet-stream",
		IfNotExist:  !replace,
	}
	w.cancel = cancel
	if p.StreamUploads {
		w.w = newPipeUpload(wctx, b, loc.Key, wopts)
		return w, nil
	}
	bw, err := b.NewWriter(wctx, loc.Key, wopts)
	if err != nil {
		cancel()
		release()
		return nil, fmt.Errorf("%s: cannot create: %w", name, err)
	}
	w.w = blobUpload{bw}
	return w, nil
}

// upload is the bytes of a Writer on their way to the store.
type upload interface {
	io.Writer
	// Close completes the upload.
	Close() error
	// abort ends the upload, its context cancelled, leaving no object.
	abort() error
}

// blobUpload is an upload through a blob.Writer: its context's end
// aborts it.
type blobUpload struct{ *blob.Writer }

func (u blobUpload) abort() error { return u.Close() }

// pipeUpload is an upload through blob.Bucket.Upload, fed by a pipe, for
// a Provider's StreamUploads: gocloud.dev's Azure driver's Writer
// (v0.47) dereferences a nil pipe in Close after an upload that failed
// while it was written, which Upload, given the whole stream at once,
// does not reach.
type pipeUpload struct {
	pw   *io.PipeWriter
	done chan error
}

// errAborted ends the stream of an aborted upload, so that the driver
// fails it rather than completing it with the bytes so far.
var errAborted = errors.New("the upload was aborted")

// errUploadEnded is the error of a Write after an upload completed.
var errUploadEnded = errors.New("the upload ended")

func newPipeUpload(ctx context.Context, b *blob.Bucket, key string, opts *blob.WriterOptions) *pipeUpload {
	pr, pw := io.Pipe()
	u := &pipeUpload{pw: pw, done: make(chan error, 1)}
	go func() {
		err := b.Upload(ctx, key, pr, opts)
		ended := err
		if ended == nil {
			ended = errUploadEnded
		}
		pr.CloseWithError(ended) // a Write after the upload's end fails
		u.done <- err
	}()
	return u
}

func (u *pipeUpload) Write(p []byte) (int, error) { return u.pw.Write(p) }

func (u *pipeUpload) Close() error {
	u.pw.Close()
	err := <-u.done
	u.done <- err // for a later abort
	return err
}

func (u *pipeUpload) abort() error {
	u.pw.CloseWithError(errAborted)
	err := <-u.done
	u.done <- err
	return err
}

// free returns an error wrapping ErrExists when the object exists.
func (w *Writer) free(ctx context.Context) error {
	ok, err := w.bucket.Exists(ctx, w.key)
	if err != nil {
		return fmt.Errorf("cannot tell whether %s exists: %w", w.name, plain(err))
	}
	if ok {
		return fmt.Errorf("%s: %w", w.name, ErrExists)
	}
	return nil
}

// Name returns the object's URL.
func (w *Writer) Name() string { return w.name }

// TempDir returns "": an upload has no directory beside it.
func (w *Writer) TempDir() string { return "" }

// Write adds p to the upload.
func (w *Writer) Write(p []byte) (int, error) {
	if w.done {
		return 0, fmt.Errorf("%s: cannot write: already committed or aborted", w.name)
	}
	n, err := w.w.Write(p)
	w.n += int64(n)
	if err != nil {
		if !w.replace && gcerrors.Code(err) == gcerrors.FailedPrecondition {
			// A store that checks its condition as the upload starts
			// (GCS's resumable uploads may).
			return n, fmt.Errorf("%s: %w while it was being written: %w", w.name, ErrAppeared, err)
		}
		return n, fmt.Errorf("%s: cannot write: after %d bytes: %w", w.name, w.n, err)
	}
	return n, nil
}

// Commit completes the upload, putting the object in place. Without
// replace, an object that appeared meanwhile is an error wrapping
// ErrAppeared (and ErrExists) and is left untouched: checked just before
// the upload completes, and by the store itself where it supports
// conditional writes (S3, GCS), which closes the gap between the two. A
// store that cannot be reached fails it with an error wrapping
// ErrUnreachable, never ErrExists; the upload is abandoned (see abandon).
func (w *Writer) Commit() error {
	if w.done {
		return fmt.Errorf("%s: cannot write: already committed or aborted", w.name)
	}
	w.done = true
	defer w.release()
	if !w.replace {
		if err := w.free(w.ctx); err != nil {
			left := w.abandon()
			if errors.Is(err, ErrExists) {
				return fmt.Errorf("%s: %w while it was being written: left untouched%s", w.name, ErrAppeared, left)
			}
			return fmt.Errorf("%s: cannot write: the look for an object created meanwhile failed, the upload was not completed: %w%s", w.name, err, left)
		}
	}
	err := w.w.Close()
	w.cancel()
	if err != nil {
		left := w.abortUpload(err)
		if gcerrors.Code(err) == gcerrors.FailedPrecondition {
			return fmt.Errorf("%s: %w while it was being written: left untouched%s", w.name, ErrAppeared, left)
		}
		return fmt.Errorf("%s: cannot write: %w%s", w.name, plain(err), left)
	}
	return nil
}

// Abort ends the upload, leaving no object (a multipart upload is aborted
// on the store, or named in the error when the store cannot be reached
// for abortWindow).
func (w *Writer) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	defer w.release()
	if left := w.abandon(); left != "" {
		return fmt.Errorf("%s: the upload was abandoned%s", w.name, left)
	}
	return nil
}

// abandon ends the upload with its context, so that no object appears,
// and returns what abortUpload returns.
func (w *Writer) abandon() string {
	w.cancel()
	return w.abortUpload(w.w.abort())
}

// abortUpload aborts on the store the multipart upload that err, the
// error of a failed upload, names (through the Provider's AbortUpload):
// S3's uploader leaves the parts of an upload whose context ended in
// place (no object, but stored parts), as it makes the abort request with
// that context. The abort is made with a context of its own, and tried
// again, backing off, until the store answers or abortWindow has passed
// (a store restarting). It returns "" when there was no such upload or it
// was aborted, and otherwise the words, for the end of an error, that
// name the upload left and the command that aborts it.
func (w *Writer) abortUpload(err error) string {
	var up interface{ UploadID() string }
	if err == nil || w.p.AbortUpload == nil || !errors.As(err, &up) || up.UploadID() == "" {
		return ""
	}
	id := up.UploadID()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(w.ctx), abortWindow)
	defer cancel()
	wait := 100 * time.Millisecond
	for {
		command, aerr := w.p.AbortUpload(ctx, w.bucket, w.bucketName, w.key, id)
		if aerr == nil {
			return ""
		}
		if !sleep(ctx, wait) {
			return fmt.Sprintf("; its multipart upload %s is left on the store, its parts stored (%v); abort it with: %s",
				id, aerr, command)
		}
		wait = min(2*wait, maxBackoff)
	}
}

// abortWindow bounds the time abortUpload tries to abort a failed
// multipart upload.
var abortWindow = 30 * time.Second

// sleep waits d, or less when ctx ends first, and reports whether ctx
// is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return ctx.Err() == nil
	}
}

// objectURL returns what goes before and after a key in the URLs of the
// objects of the bucket of loc, as name (one of them) writes them: the
// scheme and bucket, and the query name gives.
func objectURL(name string, loc Location) (head, tail string) {
	scheme, rest, _ := strings.Cut(name, "://")
	host, _, _ := strings.Cut(rest, "/")
	host, _, _ = strings.Cut(host, "?")
	head = scheme + "://" + host + "/"
	if i := strings.LastIndexByte(name, '?'); i >= 0 && isQuery(name[i+1:]) {
		tail = name[i:]
	}
	return head, tail
}

// StreamChunk is how many bytes each request of a stream opened by
// OpenStream fetches.
const StreamChunk = 4 << 20

// OpenStream opens the object name for reading in order, in pinned and
// retried ranged GETs of StreamChunk bytes (see Object). Closing it closes
// the object.
func OpenStream(ctx context.Context, name string, opts *Options) (io.ReadCloser, error) {
	o, err := Open(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	return &stream{Reader: bufio.NewReaderSize(io.NewSectionReader(o, 0, o.size), StreamChunk), o: o}, nil
}

type stream struct {
	*bufio.Reader
	o *Object
}

func (s *stream) Close() error { return s.o.Close() }

// bucketHost returns the bucket's name in a bucket URL.
func bucketHost(bucketURL string) string {
	u, err := url.Parse(bucketURL)
	if err != nil {
		return ""
	}
	return u.Host
}

// Exists reports whether the object name exists. opts' Stall bounds
// the request (nil: the defaults).
func Exists(ctx context.Context, name string, opts *Options) (bool, error) {
	b, release, loc, _, err := openObject(ctx, name, opts)
	if err != nil {
		return false, err
	}
	defer release()
	ok, err := b.Exists(ctx, loc.Key)
	if err != nil {
		return false, fmt.Errorf("%s: %w", name, plain(err))
	}
	return ok, nil
}

// Remove deletes the object name; a missing one is no error. opts'
// Stall bounds the request (nil: the defaults).
func Remove(ctx context.Context, name string, opts *Options) error {
	b, release, loc, _, err := openObject(ctx, name, opts)
	if err != nil {
		return err
	}
	defer release()
	if err := b.Delete(ctx, loc.Key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("%s: %w", name, plain(err))
	}
	return nil
}

// Move puts the object from under the name to, which must be of the same
// bucket, with a copy made by the store and the removal of from. Without
// replace, an object at to is an error wrapping ErrExists and is left
// untouched: checked just before the copy, which is not atomic with it,
// and on GCS by the copy itself, conditional on there being none (the
// gocloud.dev drivers of S3 and Azure expose no conditional copy). opts'
// Stall bounds each of its requests (nil: the defaults).
func Move(ctx context.Context, from, to string, replace bool, opts *Options) error {
	lf, err := Parse(from)
	if err != nil {
		return err
	}
	lt, err := Parse(to)
	if err != nil {
		return err
	}
	if lf.Bucket != lt.Bucket {
		return fmt.Errorf("%s: cannot move to %s: not the same bucket", from, to)
	}
	b, release, p, err := acquireBucket(ctx, lf.Bucket, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	defer release()
	if !replace {
		ok, err := b.Exists(ctx, lt.Key)
		if err != nil {
			return fmt.Errorf("%s: %w", to, plain(err))
		}
		if ok {
			return fmt.Errorf("%s: %w", to, ErrExists)
		}
	}
	copts := &blob.CopyOptions{BeforeCopy: func(as func(any) bool) error {
		if p.BeforeCopy == nil {
			return nil
		}
		return p.BeforeCopy(as, replace)
	}}
	if err := b.Copy(ctx, lt.Key, lf.Key, copts); err != nil {
		if !replace && gcerrors.Code(err) == gcerrors.FailedPrecondition {
			return fmt.Errorf("%s: %w (it appeared while %s was being moved)", to, ErrExists, from)
		}
		return fmt.Errorf("%s: copying from %s: %w", to, from, plain(err))
	}
	if err := b.Delete(ctx, lf.Key); err != nil {
		return fmt.Errorf("%s: %w", from, plain(err))
	}
	return nil
}

// openObject opens the bucket of the object name, its requests bounded by
// opts' Stall, and returns it with the function that releases it (see
// "How buckets are shared"), the object's location and the provider of
// its store.
func openObject(ctx context.Context, name string, opts *Options) (*blob.Bucket, func(), Location, *Provider, error) {
	loc, err := Parse(name)
	if err != nil {
		return nil, nil, Location{}, nil, err
	}
	if loc.Key == "" || strings.HasSuffix(loc.Key, "/") {
		return nil, nil, Location{}, nil, fmt.Errorf("%s: the URL names no object", name)
	}
	b, release, p, err := acquireBucket(ctx, loc.Bucket, opts)
	if err != nil {
		return nil, nil, Location{}, nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, release, loc, p, nil
}
