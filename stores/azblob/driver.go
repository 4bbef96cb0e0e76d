package azblob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	azblobblob "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"
)

// The driver.
//
// bucket is this package's gocloud.dev blob driver over one container of
// the Azure SDK (container.Client), in place of gocloud.dev's azureblob,
// whose package links Google's client libraries (for a user agent) into
// every program that reads Azure. It keeps azureblob's names of objects
// (see escapeKey) and of metadata, so that either reads what the other
// wrote, and passes gocloud.dev's conformance suite (drivertest; see
// TestConformance). Its types for As:
//   - Bucket: *container.Client
//   - Error: *azcore.ResponseError
//   - ListObject: *container.BlobItem, or *container.BlobPrefix for a
//     "directory"
//   - ListOptions.BeforeList: **container.ListBlobsHierarchyOptions
//   - Reader: *blob.DownloadStreamResponse (the Azure SDK's blob package)
//   - ReaderOptions.BeforeRead: **blob.DownloadStreamOptions
//   - Attributes: *blob.GetPropertiesResponse
//   - WriterOptions.BeforeWrite: **blockblob.UploadStreamOptions
//   - CopyOptions.BeforeCopy: **blob.StartCopyFromURLOptions
//   - DeleteOptions.BeforeDelete: **blob.DeleteOptions
//
// SignedURL is not implemented (gcerrors.Unimplemented): the project
// signs no URLs.
type bucket struct {
	client *container.Client
}

// Upload defaults, as azureblob's: blocks of 8 MiB, 5 in flight.
const (
	uploadBlockSize = 8 << 20
	uploadBuffers   = 5
	listPageSize    = 1000
)

// OpenBucket returns the gocloud.dev bucket of the container c reaches,
// through this package's driver (see "The driver"), with c's
// credentials and transport.
func OpenBucket(c *container.Client) *blob.Bucket {
	return blob.NewBucket(&bucket{client: c})
}

func (b *bucket) ErrorCode(err error) gcerrors.ErrorCode {
	var re *azcore.ResponseError
	switch {
	case errors.Is(err, errNoSigning):
		return gcerrors.Unimplemented
	case errors.Is(err, context.Canceled):
		return gcerrors.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return gcerrors.DeadlineExceeded
	case !errors.As(err, &re):
		return gcerrors.Unknown
	}
	switch bloberror.Code(re.ErrorCode) {
	case bloberror.BlobNotFound, bloberror.ContainerNotFound:
		return gcerrors.NotFound
	case bloberror.BlobAlreadyExists, bloberror.ConditionNotMet,
		bloberror.TargetConditionNotMet, bloberror.SourceConditionNotMet:
		// A write with If-None-Match: * over an object is answered
		// BlobAlreadyExists (409) or ConditionNotMet (412).
		return gcerrors.FailedPrecondition
	case bloberror.AuthenticationFailed, bloberror.AuthorizationFailure,
		bloberror.AuthorizationPermissionMismatch, bloberror.InsufficientAccountPermissions:
		return gcerrors.PermissionDenied
	case bloberror.InvalidInput, bloberror.InvalidQueryParameterValue,
		bloberror.InvalidHeaderValue, bloberror.InvalidURI:
		return gcerrors.InvalidArgument
	}
	switch re.StatusCode {
	case http.StatusNotFound:
		return gcerrors.NotFound
	case http.StatusPreconditionFailed:
		return gcerrors.FailedPrecondition
	case http.StatusForbidden, http.StatusUnauthorized:
		return gcerrors.PermissionDenied
	case http.StatusTooManyRequests:
		return gcerrors.ResourceExhausted
	case http.StatusNotImplemented:
		return gcerrors.Unimplemented
	}
	return gcerrors.Unknown
}

func (b *bucket) As(i any) bool {
	p, ok := i.(**container.Client)
	if ok {
		*p = b.client
	}
	return ok
}

func (b *bucket) ErrorAs(err error, i any) bool {
	p, ok := i.(**azcore.ResponseError)
	return ok && errors.As(err, p)
}

func (b *bucket) Attributes(ctx context.Context, key string) (*driver.Attributes, error) {
	resp, err := b.client.NewBlobClient(escapeKey(key, false)).GetProperties(ctx, nil)
	if err != nil {
		return nil, err
	}
	a := &driver.Attributes{
		CacheControl:       deref(resp.CacheControl),
		ContentDisposition: deref(resp.ContentDisposition),
		ContentEncoding:    deref(resp.ContentEncoding),
		ContentLanguage:    deref(resp.ContentLanguage),
		ContentType:        deref(resp.ContentType),
		Metadata:           fromMetadata(resp.Metadata),
		Size:               deref(resp.ContentLength),
		MD5:                resp.ContentMD5,
		AsFunc: func(i any) bool {
			p, ok := i.(**azblobblob.GetPropertiesResponse)
			if ok {
				*p = &resp
			}
			return ok
		},
	}
	if resp.CreationTime != nil {
		a.CreateTime = *resp.CreationTime
	}
	if resp.LastModified != nil {
		a.ModTime = *resp.LastModified
	}
	if resp.ETag != nil {
		a.ETag = string(*resp.ETag)
	}
	return a, nil
}

func (b *bucket) ListPaged(ctx context.Context, opts *driver.ListOptions) (*driver.ListPage, error) {
	size := int32(listPageSize)
	if opts.PageSize > 0 && opts.PageSize < listPageSize {
		size = int32(opts.PageSize)
	}
	lo := &container.ListBlobsHierarchyOptions{
		Include:    container.ListBlobsInclude{Metadata: true},
		MaxResults: &size,
	}
	if opts.Prefix != "" {
		p := escapeKey(opts.Prefix, true)
		lo.Prefix = &p
	}
	if len(opts.PageToken) > 0 {
		m := string(opts.PageToken)
		lo.Marker = &m
	}
	if opts.BeforeList != nil {
		if err := opts.BeforeList(func(i any) bool {
			p, ok := i.(**container.ListBlobsHierarchyOptions)
			if ok {
				*p = lo
			}
			return ok
		}); err != nil {
			return nil, err
		}
	}
	// The service lists flat for an empty delimiter.
	pager := b.client.NewListBlobsHierarchyPager(escapeKey(opts.Delimiter, true), lo)
	if !pager.More() {
		return &driver.ListPage{}, nil
	}
	resp, err := pager.NextPage(ctx)
	if err != nil {
		return nil, err
	}
	page := &driver.ListPage{}
	seg := resp.Segment
	if seg != nil {
		// Objects and "directories" come in two lists, each in key
		// order; the page merges them.
		items, prefixes := seg.BlobItems, seg.BlobPrefixes
		for len(items) > 0 || len(prefixes) > 0 {
			if len(prefixes) == 0 || len(items) > 0 && deref(items[0].Name) < deref(prefixes[0].Name) {
				page.Objects = append(page.Objects, listObject(items[0]))
				items = items[1:]
				continue
			}
			p := prefixes[0]
			prefixes = prefixes[1:]
			page.Objects = append(page.Objects, &driver.ListObject{
				Key:   unescapeKey(deref(p.Name)),
				IsDir: true,
				AsFunc: func(i any) bool {
					q, ok := i.(**container.BlobPrefix)
					if ok {
						*q = p
					}
					return ok
				},
			})
		}
	}
	if resp.NextMarker != nil && *resp.NextMarker != "" {
		page.NextPageToken = []byte(*resp.NextMarker)
	}
	return page, nil
}

// listObject returns the listed object of item.
func listObject(item *container.BlobItem) *driver.ListObject {
	o := &driver.ListObject{
		Key: unescapeKey(deref(item.Name)),
		AsFunc: func(i any) bool {
			p, ok := i.(**container.BlobItem)
			if ok {
				*p = item
			}
			return ok
		},
	}
	if pr := item.Properties; pr != nil {
		o.Size = deref(pr.ContentLength)
		o.MD5 = pr.ContentMD5
		if pr.LastModified != nil {
			o.ModTime = *pr.LastModified
		}
	}
	return o
}

func (b *bucket) NewRangeReader(ctx context.Context, key string, offset, length int64, opts *driver.ReaderOptions) (driver.Reader, error) {
	do := &azblobblob.DownloadStreamOptions{}
	// A Count of 0 asks for every byte from Offset: a read of none asks
	// for them too and leaves the body unread.
	do.Range = azblobblob.HTTPRange{Offset: offset, Count: max(length, 0)}
	if opts.BeforeRead != nil {
		if err := opts.BeforeRead(func(i any) bool {
			p, ok := i.(**azblobblob.DownloadStreamOptions)
			if ok {
				*p = do
			}
			return ok
		}); err != nil {
			return nil, err
		}
	}
	resp, err := b.client.NewBlobClient(escapeKey(key, false)).DownloadStream(ctx, do)
	if err != nil {
		return nil, err
	}
	r := &reader{resp: &resp, body: resp.Body}
	r.attrs.ContentType = deref(resp.ContentType)
	if resp.LastModified != nil {
		r.attrs.ModTime = *resp.LastModified
	}
	r.attrs.Size = objectSize(deref(resp.ContentLength), deref(resp.ContentRange))
	if length == 0 {
		resp.Body.Close()
		r.body = http.NoBody
	}
	return r, nil
}

// objectSize returns the size of an object from a read's answer: the
// total of its Content-Range (bytes 10-14/27), or its Content-Length for
// an answer of every byte.
func objectSize(length int64, contentRange string) int64 {
	if _, total, ok := strings.Cut(contentRange, "/"); ok {
		if n, err := strconv.ParseInt(total, 10, 64); err == nil {
			return n
		}
	}
	return length
}

// reader is a read of an object.
type reader struct {
	resp  *azblobblob.DownloadStreamResponse
	body  io.ReadCloser
	attrs driver.ReaderAttributes
}

func (r *reader) Read(p []byte) (int, error)           { return r.body.Read(p) }
func (r *reader) Close() error                         { return r.body.Close() }
func (r *reader) Attributes() *driver.ReaderAttributes { return &r.attrs }
func (r *reader) As(i any) bool {
	p, ok := i.(**azblobblob.DownloadStreamResponse)
	if ok {
		*p = r.resp
	}
	return ok
}

func (b *bucket) NewTypedWriter(ctx context.Context, key, contentType string, opts *driver.WriterOptions) (driver.Writer, error) {
	md, err := toMetadata(opts.Metadata)
	if err != nil {
		return nil, err
	}
	uo := &blockblob.UploadStreamOptions{
		BlockSize:   int64(opts.BufferSize),
		Concurrency: opts.MaxConcurrency,
		Metadata:    md,
		HTTPHeaders: &azblobblob.HTTPHeaders{
			BlobContentType:        &contentType,
			BlobCacheControl:       &opts.CacheControl,
			BlobContentDisposition: &opts.ContentDisposition,
			BlobContentEncoding:    &opts.ContentEncoding,
			BlobContentLanguage:    &opts.ContentLanguage,
			BlobContentMD5:         opts.ContentMD5,
		},
	}
	if uo.BlockSize <= 0 {
		uo.BlockSize = uploadBlockSize
	}
	if uo.Concurrency <= 0 {
		uo.Concurrency = uploadBuffers
	}
	if opts.IfNotExist {
		none := azcore.ETagAny
		uo.AccessConditions = &azblobblob.AccessConditions{ModifiedAccessConditions: &azblobblob.ModifiedAccessConditions{IfNoneMatch: &none}}
	}
	if opts.BeforeWrite != nil {
		if err := opts.BeforeWrite(func(i any) bool {
			p, ok := i.(**blockblob.UploadStreamOptions)
			if ok {
				*p = uo
			}
			return ok
		}); err != nil {
			return nil, err
		}
	}
	return &writer{ctx: ctx, client: b.client.NewBlockBlobClient(escapeKey(key, false)), opts: uo}, nil
}

// writer uploads an object: its bytes flow through a pipe to the SDK's
// UploadStream (blocks staged, then committed), started by the first
// Write or by Close. The object appears when Close succeeds; a context
// ended before then leaves none.
type writer struct {
	ctx    context.Context
	client *blockblob.Client
	opts   *blockblob.UploadStreamOptions
	pw     *io.PipeWriter
	done   chan error
}

// start starts the upload of what the pipe carries.
func (w *writer) start() {
	pr, pw := io.Pipe()
	w.pw, w.done = pw, make(chan error, 1)
	go func() {
		_, err := w.client.UploadStream(w.ctx, pr, w.opts)
		pr.CloseWithError(cmpErr(err, io.ErrClosedPipe)) // a Write after the upload's end fails
		w.done <- err
	}()
}

func cmpErr(err, or error) error {
	if err != nil {
		return err
	}
	return or
}

func (w *writer) Write(p []byte) (int, error) {
	if w.pw == nil {
		w.start()
	}
	return w.pw.Write(p)
}

// Upload uploads all of r (driver.Uploader).
func (w *writer) Upload(r io.Reader) error {
	_, err := w.client.UploadStream(w.ctx, r, w.opts)
	w.done = make(chan error, 1)
	w.done <- err
	return err
}

func (w *writer) Close() error {
	if w.done == nil {
		w.start()
	}
	if w.pw != nil {
		if err := w.ctx.Err(); err != nil {
			// The stream fails rather than ends: the SDK commits
			// nothing.
			w.pw.CloseWithError(err)
		} else {
			w.pw.Close()
		}
	}
	err := <-w.done
	if err == nil {
		err = w.ctx.Err()
	}
	return err
}

func (b *bucket) Copy(ctx context.Context, dstKey, srcKey string, opts *driver.CopyOptions) error {
	src := b.client.NewBlobClient(escapeKey(srcKey, false))
	dst := b.client.NewBlobClient(escapeKey(dstKey, false))
	co := &azblobblob.StartCopyFromURLOptions{}
	if opts.BeforeCopy != nil {
		if err := opts.BeforeCopy(func(i any) bool {
			p, ok := i.(**azblobblob.StartCopyFromURLOptions)
			if ok {
				*p = co
			}
			return ok
		}); err != nil {
			return err
		}
	}
	resp, err := dst.StartCopyFromURL(ctx, src.URL(), co)
	if err != nil {
		return err
	}
	status := deref(resp.CopyStatus)
	wait := 50 * time.Millisecond
	for status == azblobblob.CopyStatusTypePending {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
		p, err := dst.GetProperties(ctx, nil)
		if err != nil {
			return err
		}
		status = deref(p.CopyStatus)
	}
	if status != azblobblob.CopyStatusTypeSuccess {
		return fmt.Errorf("copy of %s to %s ended %s", srcKey, dstKey, status)
	}
	return nil
}

func (b *bucket) Delete(ctx context.Context, key string, opts *driver.DeleteOptions) error {
	do := &azblobblob.DeleteOptions{}
	if opts.BeforeDelete != nil {
		if err := opts.BeforeDelete(func(i any) bool {
			p, ok := i.(**azblobblob.DeleteOptions)
			if ok {
				*p = do
			}
			return ok
		}); err != nil {
			return err
		}
	}
	_, err := b.client.NewBlobClient(escapeKey(key, false)).Delete(ctx, do)
	return err
}

// errNoSigning is the error of SignedURL.
var errNoSigning = errors.New("azblob: signed URLs are not implemented")

func (b *bucket) SignedURL(ctx context.Context, key string, opts *driver.SignedURLOptions) (string, error) {
	return "", errNoSigning
}

func (b *bucket) Close() error { return nil }

// deref returns *p, or the zero value for nil.
func deref[T any](p *T) T {
	if p == nil {
		var z T
		return z
	}
	return *p
}
