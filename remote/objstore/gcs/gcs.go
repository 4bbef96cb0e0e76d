// Package gcs is a gocloud.dev/blob driver for Google Cloud Storage that
// speaks the store's JSON API with net/http alone, and takes its
// credentials from golang.org/x/oauth2/google: a lean stand-in for
// gocloud.dev/blob/gcsblob, which links Google's storage client and with
// it gRPC, OpenTelemetry and their protocol buffers (about 30 MB of
// binary and 20 MB of memory at start, for a program that reads objects
// with ranged GETs).
//
// It registers the "gs" scheme with blob.DefaultURLMux: gs://bucket opens a
// bucket with Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS,
// the file `gcloud auth application-default login` writes, or the metadata
// server of a Google Cloud machine), or without credentials where there
// are none (a public bucket; a refusal then says why there were none), or,
// when STORAGE_EMULATOR_HOST is set, the emulator at that address without
// credentials. A URL may say
// anonymous=true (no credentials, for a public bucket), endpoint=URL (the
// JSON API's root, for a private endpoint or an emulator),
// universe_domain=DOMAIN and stall=DURATION (see Options.Stall).
//
// What it does: an object's attributes (its generation through As with
// *ObjectAttrs); ranged reads (made conditional on a generation by
// BeforeRead through As with **Conditions; a changed object then fails
// with gcerrors.FailedPrecondition); listings in key order, page by page;
// uploads that create the object only when the writer is closed (one
// multipart request for an object of up to a chunk, a resumable upload in
// chunks for a larger one; WriterOptions.IfNotExist makes the creation
// conditional on there being no object); copies (the rewrite API) and
// deletes. Uploads are retried: each step of one (its start, each chunk,
// the one request of a small object) is tried up to 8 times more when it
// fails for a reason that may pass (408, 429, 5xx, a connection refused,
// reset or dropped, a timeout), with exponential backoff and jitter,
// going on from what the store says it holds, and never making an object
// twice (see "How uploads are retried" in write.go). Other requests make
// no retries: a failed request fails, with an error whose gcerrors code
// follows its HTTP status, and the caller decides (package objstore
// retries reads).
package gcs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/trevni-go/trevni/internal/stallhttp"
)

// Scheme is the URL scheme the package registers with blob.DefaultURLMux.
const Scheme = "gs"

func init() {
	blob.DefaultURLMux().RegisterBucket(Scheme, new(URLOpener))
}

// DefaultEndpoint is the root of the JSON API.
const DefaultEndpoint = "https://storage.googleapis.com"

// DefaultChunkSize is the size of the chunks of a resumable upload, and
// the most an upload of one request (a multipart upload) carries.
const DefaultChunkSize = 8 << 20

// chunkUnit is what the size of every chunk of a resumable upload but the
// last must be a multiple of.
const chunkUnit = 256 << 10

// scope is the OAuth scope of the credentials: reading and writing
// objects.
const scope = "https://www.googleapis.com/auth/devstorage.read_write"

// userAgent names the driver in every request.
const userAgent = "trevni-go/objstore-gcs"

// Options configures a bucket. The zero value (or nil) is the defaults.
type Options struct {
	// Endpoint is the root URL of the JSON API (scheme and host, and a
	// path prefix if any); "" means DefaultEndpoint. The API's own path,
	// /storage/v1, may end it, as the client libraries write endpoints
	// (https://storage.googleapis.com/storage/v1/): it is the same root.
	Endpoint string
	// Client makes the requests, with the credentials its transport
	// adds; nil means one without credentials (a public bucket, an
	// emulator). It should not follow redirects.
	Client *http.Client
	// NoCredentials, when the client has no credentials for want of
	// any, says why: the errors of refused requests repeat it.
	NoCredentials string
	// ChunkSize is the size of the chunks of a resumable upload, rounded
	// up to a multiple of 256 KiB; 0 means DefaultChunkSize. A
	// WriterOptions.BufferSize overrides it for one writer.
	ChunkSize int
	// Stall, when more than 0, bounds the time each request may go
	// without progress: without a byte of its body taken by the
	// connection, without the answer's header, or without a byte of the
	// answer's body. A request that stalls longer fails with an error
	// wrapping stallhttp.ErrStalled (objstore.ErrStalled), a timeout:
	// the steps of uploads are retried. The token requests of the
	// credentials are not bounded by it.
	Stall time.Duration
}

// OpenBucket returns the bucket named name.
func OpenBucket(name string, opts *Options) (*blob.Bucket, error) {
	b, err := openBucket(name, opts)
	if err != nil {
		return nil, err
	}
	return blob.NewBucket(b), nil
}

func openBucket(name string, opts *Options) (*bucket, error) {
	if name == "" {
		return nil, errors.New("gcs: no bucket name")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Endpoint == "" {
		o.Endpoint = DefaultEndpoint
	}
	root := strings.TrimSuffix(strings.TrimSuffix(o.Endpoint, "/"), "/storage/v1")
	u, err := url.Parse(strings.TrimSuffix(root, "/"))
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("gcs: endpoint %q is not an http(s) URL", o.Endpoint)
	}
	if o.Client == nil {
		o.Client = &http.Client{CheckRedirect: noRedirect}
	}
	if o.Stall > 0 {
		c := *o.Client
		c.Transport = stallhttp.Wrap(c.Transport, o.Stall)
		o.Client = &c
	}
	return &bucket{name: name, root: u.String(), client: o.Client, chunk: chunkSize(o.ChunkSize), noCreds: o.NoCredentials,
		retries: defaultRetries, backoff: defaultBackoff, maxWait: defaultMaxWait}, nil
}

// chunkSize rounds n up to a multiple of chunkUnit; 0 or less is the
// default.
func chunkSize(n int) int {
	if n <= 0 {
		return DefaultChunkSize
	}
	return (n + chunkUnit - 1) / chunkUnit * chunkUnit
}

// noRedirect makes a client hand 3xx answers back, as the upload protocol
// answers 308 for a chunk received.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// URLOpener opens gs://bucket URLs; see the package's comment for the
// query parameters. It finds the credentials once per universe domain,
// and keeps them for the buckets it opens next. The zero value is ready
// for use.
type URLOpener struct {
	mu      sync.Mutex
	clients map[string]credClient // by universe domain
}

// credClient is a client with credentials, or why there is none.
type credClient struct {
	client   *http.Client
	universe string // the credentials' universe domain
	err      error
}

// OpenBucketURL opens the bucket that u names.
func (o *URLOpener) OpenBucketURL(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	q := u.Query()
	for k := range q {
		switch k {
		case "anonymous", "endpoint", "universe_domain", "stall":
		default:
			return nil, fmt.Errorf("open bucket %s: unknown query parameter %q (gs:// takes anonymous, endpoint, universe_domain and stall)", u.Host, k)
		}
	}
	anonymous := false
	if s := q.Get("anonymous"); s != "" {
		var err error
		if anonymous, err = strconv.ParseBool(s); err != nil {
			return nil, fmt.Errorf("open bucket %s: anonymous=%q is not a boolean", u.Host, s)
		}
	}
	opts := &Options{Endpoint: q.Get("endpoint")}
	if s := q.Get("stall"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("open bucket %s: stall=%q is not a duration of 0 or more", u.Host, s)
		}
		opts.Stall = d
	}
	universe := q.Get("universe_domain")
	if emu := os.Getenv("STORAGE_EMULATOR_HOST"); emu != "" && opts.Endpoint == "" {
		// An emulator takes no credentials.
		opts.Endpoint = emu
		if !strings.Contains(emu, "://") {
			opts.Endpoint = "http://" + emu
		}
		anonymous = true
	}
	if !anonymous {
		c := o.credentials(ctx, universe)
		if c.err != nil {
			// Requests go without: a public bucket answers them.
			opts.NoCredentials = c.err.Error()
		} else {
			opts.Client = c.client
			universe = c.universe
		}
	}
	if opts.Endpoint == "" && universe != "" && universe != "googleapis.com" {
		opts.Endpoint = "https://storage." + universe
	}
	b, err := openBucket(u.Host, opts)
	if err != nil {
		return nil, fmt.Errorf("open bucket %s: %w", u.Host, err)
	}
	return blob.NewBucket(b), nil
}

// credentials returns a client that adds Application Default Credentials
// to its requests, finding them on the first call for universe.
func (o *URLOpener) credentials(ctx context.Context, universe string) credClient {
	o.mu.Lock()
	defer o.mu.Unlock()
	if c, ok := o.clients[universe]; ok {
		return c
	}
	// The credentials outlive ctx: their tokens are refreshed by later
	// requests.
	creds, err := google.FindDefaultCredentialsWithParams(context.WithoutCancel(ctx), google.CredentialsParams{
		Scopes:         []string{scope},
		UniverseDomain: universe,
	})
	var c credClient
	if err != nil {
		c.err = fmt.Errorf("no Google credentials (set GOOGLE_APPLICATION_CREDENTIALS to a key file, or run `gcloud auth application-default login`): %w", err)
	} else {
		c.client = &http.Client{
			Transport:     &oauth2.Transport{Source: creds.TokenSource, Base: http.DefaultTransport},
			CheckRedirect: noRedirect,
		}
		if c.universe, err = creds.GetUniverseDomain(); err != nil {
			c = credClient{err: fmt.Errorf("the universe domain of the Google credentials: %w", err)}
		}
	}
	if o.clients == nil {
		o.clients = map[string]credClient{}
	}
	o.clients[universe] = c
	return c
}

// bucket is the driver.Bucket of one bucket.
type bucket struct {
	name    string
	root    string // the endpoint, no trailing slash
	client  *http.Client
	chunk   int
	noCreds string // why the client has no credentials, if it has none for want of any

	// The retries of uploads (see "How uploads are retried" in
	// write.go): how many after a step's first try, the wait before the
	// first, and the longest wait.
	retries          int
	backoff, maxWait time.Duration
}

// ObjectAttrs is an object's metadata as the JSON API describes it (the
// fields the driver reads). Attributes' As and a Reader's As fill one; a
// Reader's knows the generation, metageneration, size and content type
// only.
type ObjectAttrs struct {
	Name               string            `json:"name"`
	Bucket             string            `json:"bucket"`
	Generation         int64             `json:"generation,string"`
	Metageneration     int64             `json:"metageneration,string"`
	Size               int64             `json:"size,string"`
	ContentType        string            `json:"contentType"`
	ContentEncoding    string            `json:"contentEncoding"`
	ContentDisposition string            `json:"contentDisposition"`
	ContentLanguage    string            `json:"contentLanguage"`
	CacheControl       string            `json:"cacheControl"`
	MD5Hash            string            `json:"md5Hash"` // base64
	CRC32C             string            `json:"crc32c"`  // base64, big-endian
	ETag               string            `json:"etag"`
	Updated            time.Time         `json:"updated"`
	TimeCreated        time.Time         `json:"timeCreated"`
	Metadata           map[string]string `json:"metadata"`
}

// Conditions make a read or a copy conditional: the As of BeforeRead and
// of BeforeCopy gives a **Conditions for the request about to be made. A
// condition not met fails the request with 412 Precondition Failed
// (gcerrors.FailedPrecondition).
type Conditions struct {
	// GenerationMatch, when not 0, makes a read fail unless the object's
	// generation is GenerationMatch.
	GenerationMatch int64
	// DoesNotExist makes a copy fail if there is an object at its
	// destination (ifGenerationMatch=0), atomically.
	DoesNotExist bool
}

// Error is the error of a request the store answered with a failure.
type Error struct {
	// Op says what was asked: "GET" and the object, for instance.
	Op string
	// Status is the HTTP status of the answer.
	Status int
	// Reason and Message are those of the JSON error the store sent, if
	// any: the first error's reason ("notFound", "conditionNotMet", ...)
	// and the message.
	Reason, Message string
}

func (e *Error) Error() string {
	s := fmt.Sprintf("gcs: %s: %d %s", e.Op, e.Status, http.StatusText(e.Status))
	if e.Reason != "" {
		s += " (" + e.Reason + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// maxErrorBody bounds what is read of the body of a failed request.
const maxErrorBody = 64 << 10

// failure returns the Error of resp, a failed answer to op, reading (a
// bounded part of) its body and closing it.
func failure(op string, resp *http.Response) error {
	defer resp.Body.Close()
	e := &Error{Op: op, Status: resp.StatusCode}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	var doc struct {
		Error struct {
			Message string `json:"message"`
			Errors  []struct {
				Reason string `json:"reason"`
			} `json:"errors"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &doc) == nil && (doc.Error.Message != "" || len(doc.Error.Errors) > 0) {
		e.Message = doc.Error.Message
		if len(doc.Error.Errors) > 0 {
			e.Reason = doc.Error.Errors[0].Reason
		}
	} else {
		e.Message = strings.TrimSpace(string(body))
		if len(e.Message) > 200 {
			e.Message = e.Message[:200] + "..."
		}
	}
	return e
}

// code maps an HTTP status to a gcerrors code.
func code(status int) gcerrors.ErrorCode {
	switch status {
	case http.StatusBadRequest, http.StatusRequestedRangeNotSatisfiable, http.StatusLengthRequired:
		return gcerrors.InvalidArgument
	case http.StatusUnauthorized, http.StatusForbidden:
		return gcerrors.PermissionDenied
	case http.StatusNotFound, http.StatusGone:
		return gcerrors.NotFound
	case http.StatusConflict:
		return gcerrors.AlreadyExists
	case http.StatusPreconditionFailed, http.StatusNotModified:
		return gcerrors.FailedPrecondition
	case http.StatusTooManyRequests:
		return gcerrors.ResourceExhausted
	case http.StatusRequestTimeout, http.StatusGatewayTimeout:
		return gcerrors.DeadlineExceeded
	case http.StatusNotImplemented:
		return gcerrors.Unimplemented
	}
	if status >= 500 {
		return gcerrors.Internal
	}
	return gcerrors.Unknown
}

// ErrorCode implements driver.Bucket.
func (b *bucket) ErrorCode(err error) gcerrors.ErrorCode {
	var e *Error
	var re *oauth2.RetrieveError
	switch {
	case errors.As(err, &e):
		return code(e.Status)
	case errors.As(err, &re) && re.Response != nil && re.Response.StatusCode < 500:
		// The credentials were refused by the token endpoint.
		return gcerrors.PermissionDenied
	case errors.Is(err, context.Canceled):
		return gcerrors.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return gcerrors.DeadlineExceeded
	case errors.Is(err, errIgnoredRange):
		return gcerrors.Unimplemented
	case errors.Is(err, errNoKey):
		return gcerrors.InvalidArgument
	}
	return gcerrors.Unknown
}

// As implements driver.Bucket: **http.Client gives the client.
func (b *bucket) As(i any) bool {
	if p, ok := i.(**http.Client); ok {
		*p = b.client
		return true
	}
	return false
}

// ErrorAs implements driver.Bucket: **Error gives the store's answer.
func (b *bucket) ErrorAs(err error, i any) bool {
	if p, ok := i.(**Error); ok {
		return errors.As(err, p)
	}
	return false
}

// escape percent-encodes s for a path segment or a query value: every
// byte but the unreserved ones, so that "/" in a key stays in its
// segment.
func escape(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			sb.WriteByte(c)
			continue
		}
		fmt.Fprintf(&sb, "%%%02X", c)
	}
	return sb.String()
}

// objectURL returns the JSON API's URL of the object key, with query q.
func (b *bucket) objectURL(key string, q url.Values) string {
	s := b.root + "/storage/v1/b/" + escape(b.name) + "/o/" + escape(key)
	if len(q) > 0 {
		s += "?" + q.Encode()
	}
	return s
}

// uploadURL returns the URL that starts an upload, with query q.
func (b *bucket) uploadURL(q url.Values) string {
	return b.root + "/upload/storage/v1/b/" + escape(b.name) + "/o?" + q.Encode()
}

// do makes a request with the driver's user agent, and returns the answer
// when its status is one of ok, or an *Error otherwise.
func (b *bucket) do(ctx context.Context, op, method, u string, body io.Reader, size int64, header http.Header, ok ...int) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, fmt.Errorf("gcs: %s: %w", op, err)
	}
	if body != nil {
		req.ContentLength = size
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("User-Agent", userAgent)
	resp, err := b.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("gcs: %s: %w", op, err)
	}
	for _, s := range ok {
		if resp.StatusCode == s {
			return resp, nil
		}
	}
	err = failure(op, resp)
	if e := err.(*Error); b.noCreds != "" && code(e.Status) == gcerrors.PermissionDenied {
		e.Message += " (the request had no credentials: " + b.noCreds + ")"
	}
	return nil, err
}

// decode reads the JSON body of resp into v (bounded by maxJSON) and
// closes it.
func decode(op string, resp *http.Response, v any) error {
	defer resp.Body.Close()
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxJSON)).Decode(v); err != nil {
		return fmt.Errorf("gcs: %s: the answer: %w", op, err)
	}
	return nil
}

// maxJSON bounds the JSON answers read (a listing page of 1,000 objects
// with every field is about 1.5 MB).
const maxJSON = 64 << 20

// Attributes implements driver.Bucket.
func (b *bucket) Attributes(ctx context.Context, key string) (*driver.Attributes, error) {
	if key == "" {
		return nil, fmt.Errorf("gcs: GET %s: %w", b.name, errNoKey)
	}
	op := "GET " + b.name + "/" + key
	resp, err := b.do(ctx, op, http.MethodGet, b.objectURL(key, nil), nil, 0, nil, http.StatusOK)
	if err != nil {
		return nil, err
	}
	var o ObjectAttrs
	if err := decode(op, resp, &o); err != nil {
		return nil, err
	}
	return attributes(&o), nil
}

// quoteETag returns the entity tag e as HTTP writes it, in double quotes,
// as gocloud.dev's Attributes.ETag wants it: GCS's JSON API gives it bare
// ("CKih16GjycICEAE="). An empty one stays empty.
func quoteETag(e string) string {
	if e == "" || strings.HasPrefix(e, `"`) || strings.HasPrefix(e, `W/"`) {
		return e
	}
	return `"` + e + `"`
}

// attributes returns the driver's Attributes of o.
func attributes(o *ObjectAttrs) *driver.Attributes {
	a := &driver.Attributes{
		CacheControl:       o.CacheControl,
		ContentDisposition: o.ContentDisposition,
		ContentEncoding:    o.ContentEncoding,
		ContentLanguage:    o.ContentLanguage,
		ContentType:        o.ContentType,
		Metadata:           o.Metadata,
		CreateTime:         o.TimeCreated,
		ModTime:            o.Updated,
		Size:               o.Size,
		MD5:                decodeBase64(o.MD5Hash),
		ETag:               quoteETag(o.ETag),
		AsFunc: func(i any) bool {
			if p, ok := i.(*ObjectAttrs); ok {
				*p = *o
				return true
			}
			return false
		},
	}
	if a.ContentType == "" {
		a.ContentType = "application/octet-stream"
	}
	return a
}

// ListPaged implements driver.Bucket.
func (b *bucket) ListPaged(ctx context.Context, opts *driver.ListOptions) (*driver.ListPage, error) {
	q := url.Values{}
	if opts.Prefix != "" {
		q.Set("prefix", opts.Prefix)
	}
	if opts.Delimiter != "" {
		q.Set("delimiter", opts.Delimiter)
	}
	if opts.PageSize > 0 {
		q.Set("maxResults", strconv.Itoa(opts.PageSize))
	}
	if len(opts.PageToken) > 0 {
		q.Set("pageToken", string(opts.PageToken))
	}
	q.Set("fields", "nextPageToken,prefixes,items(name,size,updated,md5Hash,generation,etag)")
	if opts.BeforeList != nil {
		if err := opts.BeforeList(func(i any) bool {
			if p, ok := i.(*url.Values); ok {
				*p = q
				return true
			}
			return false
		}); err != nil {
			return nil, err
		}
	}
	if rest, ok := strings.CutPrefix(string(opts.PageToken), restToken); ok {
		// The rest of a page the store made longer than asked.
		var r pageRest
		if err := json.Unmarshal([]byte(rest), &r); err != nil {
			return nil, fmt.Errorf("gcs: list %s/%s: a page token of no listing: %w", b.name, opts.Prefix, err)
		}
		return r.page(opts.PageSize), nil
	}
	op := "list " + b.name + "/" + opts.Prefix
	resp, err := b.do(ctx, op, http.MethodGet, b.root+"/storage/v1/b/"+escape(b.name)+"/o?"+q.Encode(), nil, 0, nil, http.StatusOK)
	if err != nil {
		return nil, err
	}
	var page struct {
		NextPageToken string         `json:"nextPageToken"`
		Prefixes      []string       `json:"prefixes"`
		Items         []*ObjectAttrs `json:"items"`
	}
	if err := decode(op, resp, &page); err != nil {
		return nil, err
	}
	out := &driver.ListPage{Objects: make([]*driver.ListObject, 0, len(page.Items)+len(page.Prefixes))}
	if page.NextPageToken != "" {
		out.NextPageToken = []byte(page.NextPageToken)
	}
	// Objects and "directories" come in two lists, each in key order:
	// merged, in key order.
	items, dirs := page.Items, page.Prefixes
	for len(items) > 0 || len(dirs) > 0 {
		if len(dirs) == 0 || len(items) > 0 && items[0].Name < dirs[0] {
			o := items[0]
			items = items[1:]
			out.Objects = append(out.Objects, &driver.ListObject{
				Key: o.Name, ModTime: o.Updated, Size: o.Size, MD5: decodeBase64(o.MD5Hash),
				AsFunc: func(i any) bool {
					if p, ok := i.(*ObjectAttrs); ok {
						*p = *o
						return true
					}
					return false
				},
			})
			continue
		}
		out.Objects = append(out.Objects, &driver.ListObject{Key: dirs[0], IsDir: true})
		dirs = dirs[1:]
	}
	if opts.PageSize > 0 && len(out.Objects) > opts.PageSize {
		// GCS counts the "directories" of a delimiter in maxResults;
		// fake-gcs-server does not, and makes longer pages: the rest
		// goes in the page token, to be handed out by the next calls.
		r := pageRest{Next: page.NextPageToken}
		for _, o := range out.Objects[opts.PageSize:] {
			r.Entries = append(r.Entries, restEntry{Key: o.Key, Dir: o.IsDir, Size: o.Size, ModTime: o.ModTime, MD5: o.MD5})
		}
		out.Objects = out.Objects[:opts.PageSize]
		tok, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		out.NextPageToken = append([]byte(restToken), tok...)
	}
	return out, nil
}

// restToken begins the page tokens that hold the rest of a page longer
// than asked (see ListPaged).
const restToken = "trevni-rest:"

// pageRest is the rest of a page longer than asked, and the store's
// token of the page after it.
type pageRest struct {
	Entries []restEntry `json:"e"`
	Next    string      `json:"n,omitempty"`
}

type restEntry struct {
	Key     string    `json:"k"`
	Dir     bool      `json:"d,omitempty"`
	Size    int64     `json:"s,omitempty"`
	ModTime time.Time `json:"t"`
	MD5     []byte    `json:"m,omitempty"`
}

// page returns the next page of r, of up to n entries (all when n <= 0).
func (r pageRest) page(n int) *driver.ListPage {
	if n <= 0 || n > len(r.Entries) {
		n = len(r.Entries)
	}
	out := &driver.ListPage{}
	for _, e := range r.Entries[:n] {
		out.Objects = append(out.Objects, &driver.ListObject{Key: e.Key, IsDir: e.Dir, Size: e.Size, ModTime: e.ModTime, MD5: e.MD5})
	}
	if rest := r.Entries[n:]; len(rest) > 0 {
		tok, _ := json.Marshal(pageRest{Entries: rest, Next: r.Next})
		out.NextPageToken = append([]byte(restToken), tok...)
	} else if r.Next != "" {
		out.NextPageToken = []byte(r.Next)
	}
	return out
}

// errIgnoredRange is the error of a ranged read answered with the whole
// object (a store serving a gzip-encoded object decompressed does).
var errIgnoredRange = errors.New("the store answered a ranged read with the whole object")

// NewRangeReader implements driver.Bucket.
func (b *bucket) NewRangeReader(ctx context.Context, key string, offset, length int64, opts *driver.ReaderOptions) (driver.Reader, error) {
	if key == "" {
		return nil, fmt.Errorf("gcs: GET %s: %w", b.name, errNoKey)
	}
	var cond Conditions
	if opts.BeforeRead != nil {
		if err := opts.BeforeRead(func(i any) bool {
			if p, ok := i.(**Conditions); ok {
				*p = &cond
				return true
			}
			return false
		}); err != nil {
			return nil, err
		}
	}
	q := url.Values{"alt": {"media"}}
	if cond.GenerationMatch != 0 {
		q.Set("ifGenerationMatch", strconv.FormatInt(cond.GenerationMatch, 10))
	}
	op := "GET " + b.name + "/" + key
	if length == 0 {
		// No range names no byte: the object's attributes say what
		// there is to say.
		a, err := b.Attributes(ctx, key)
		if err != nil {
			return nil, err
		}
		var o ObjectAttrs
		a.AsFunc(&o)
		if cond.GenerationMatch != 0 && o.Generation != cond.GenerationMatch {
			return nil, &Error{Op: op, Status: http.StatusPreconditionFailed, Reason: "conditionNotMet"}
		}
		return &reader{body: http.NoBody, attrs: o}, nil
	}
	h := http.Header{
		// The stored bytes, never a decompressed copy (which would
		// ignore the range).
		"Accept-Encoding": {"gzip"},
	}
	switch {
	case length > 0:
		h.Set("Range", fmt.Sprintf("bytes=%d-%d", offset, offset+length-1))
	case offset > 0:
		h.Set("Range", fmt.Sprintf("bytes=%d-", offset))
	}
	op += fmt.Sprintf(" bytes %d+%d", offset, length)
	resp, err := b.do(ctx, op, http.MethodGet, b.objectURL(key, q), nil, 0, h, http.StatusOK, http.StatusPartialContent)
	if err != nil {
		return nil, err
	}
	r := &reader{body: resp.Body}
	r.attrs.Name, r.attrs.Bucket = key, b.name
	r.attrs.ContentType = resp.Header.Get("Content-Type")
	r.attrs.ContentEncoding = resp.Header.Get("Content-Encoding")
	r.attrs.Generation, _ = strconv.ParseInt(resp.Header.Get("X-Goog-Generation"), 10, 64)
	r.attrs.Metageneration, _ = strconv.ParseInt(resp.Header.Get("X-Goog-Metageneration"), 10, 64)
	r.attrs.Updated, _ = http.ParseTime(resp.Header.Get("Last-Modified"))
	if resp.StatusCode == http.StatusPartialContent {
		total, ok := rangeTotal(resp.Header.Get("Content-Range"))
		if !ok {
			resp.Body.Close()
			return nil, fmt.Errorf("gcs: %s: the answer's Content-Range %q names no size", op, resp.Header.Get("Content-Range"))
		}
		r.attrs.Size = total
	} else {
		if offset > 0 {
			resp.Body.Close()
			return nil, fmt.Errorf("gcs: %s: %w", op, errIgnoredRange)
		}
		r.attrs.Size = resp.ContentLength
		if s := resp.Header.Get("X-Goog-Stored-Content-Length"); s != "" {
			r.attrs.Size, _ = strconv.ParseInt(s, 10, 64)
		}
		if length > 0 && r.attrs.Size > length {
			// The whole object, of which only the start was asked for.
			r.body = readCloser{io.LimitReader(resp.Body, length), resp.Body}
		}
	}
	return r, nil
}

// rangeTotal returns the size of the whole in a Content-Range answer
// ("bytes 0-99/1234").
func rangeTotal(cr string) (int64, bool) {
	_, total, ok := strings.Cut(cr, "/")
	if !ok || !strings.HasPrefix(cr, "bytes ") {
		return 0, false
	}
	n, err := strconv.ParseInt(total, 10, 64)
	return n, err == nil && n >= 0
}

type readCloser struct {
	io.Reader
	io.Closer
}

// reader is the driver.Reader of one GET.
type reader struct {
	body  io.ReadCloser
	attrs ObjectAttrs
}

func (r *reader) Read(p []byte) (int, error) { return r.body.Read(p) }

func (r *reader) Close() error { return r.body.Close() }

func (r *reader) Attributes() *driver.ReaderAttributes {
	return &driver.ReaderAttributes{ContentType: r.attrs.ContentType, ModTime: r.attrs.Updated, Size: r.attrs.Size}
}

// As gives the object's attributes the answer carried (*ObjectAttrs).
func (r *reader) As(i any) bool {
	if p, ok := i.(*ObjectAttrs); ok {
		*p = r.attrs
		return true
	}
	return false
}

// Copy implements driver.Bucket with the rewrite API, which copies an
// object of any size in one or more requests.
func (b *bucket) Copy(ctx context.Context, dstKey, srcKey string, opts *driver.CopyOptions) error {
	var cond Conditions
	if opts.BeforeCopy != nil {
		if err := opts.BeforeCopy(func(i any) bool {
			if p, ok := i.(**Conditions); ok {
				*p = &cond
				return true
			}
			return false
		}); err != nil {
			return err
		}
	}
	op := "copy " + b.name + "/" + srcKey + " to " + dstKey
	base := b.objectURL(srcKey, nil) + "/rewriteTo/b/" + escape(b.name) + "/o/" + escape(dstKey)
	token := ""
	for range maxRewrites {
		q := url.Values{}
		if cond.DoesNotExist {
			q.Set("ifGenerationMatch", "0")
		}
		if token != "" {
			q.Set("rewriteToken", token)
		}
		u := base
		if len(q) > 0 {
			u += "?" + q.Encode()
		}
		resp, err := b.do(ctx, op, http.MethodPost, u, strings.NewReader("{}"), 2,
			http.Header{"Content-Type": {"application/json"}}, http.StatusOK)
		if err != nil {
			return err
		}
		var r struct {
			Done         bool   `json:"done"`
			RewriteToken string `json:"rewriteToken"`
		}
		if err := decode(op, resp, &r); err != nil {
			return err
		}
		if r.Done {
			return nil
		}
		if r.RewriteToken == "" {
			return fmt.Errorf("gcs: %s: the store said neither done nor how to go on", op)
		}
		token = r.RewriteToken
	}
	return fmt.Errorf("gcs: %s: not done after %d requests", op, maxRewrites)
}

// maxRewrites bounds the requests of one copy (each copies at least 1 MiB
// when the store splits it).
const maxRewrites = 1 << 20

// Delete implements driver.Bucket.
func (b *bucket) Delete(ctx context.Context, key string, opts *driver.DeleteOptions) error {
	if key == "" {
		return fmt.Errorf("gcs: DELETE %s: %w", b.name, errNoKey)
	}
	if opts.BeforeDelete != nil {
		if err := opts.BeforeDelete(func(any) bool { return false }); err != nil {
			return err
		}
	}
	resp, err := b.do(ctx, "DELETE "+b.name+"/"+key, http.MethodDelete, b.objectURL(key, nil), nil, 0, nil, http.StatusNoContent, http.StatusOK)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// SignedURL implements driver.Bucket: there are none.
func (b *bucket) SignedURL(context.Context, string, *driver.SignedURLOptions) (string, error) {
	return "", &Error{Op: "signed URL", Status: http.StatusNotImplemented, Message: "this driver makes no signed URLs"}
}

// Close implements driver.Bucket.
func (b *bucket) Close() error { return nil }
