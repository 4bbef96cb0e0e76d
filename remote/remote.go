// Package remote reads Trevni files that are not on a local disk, with no
// network code of its own: a ReaderAt wrapper (Coalescer) that turns the
// many small reads of a column read into a few large ones, for any
// ReaderAt whose reads are costly (HTTP, S3, GCS); header reads in growing
// windows (HeaderReader); and what the front door needs of a reader of
// http(s) URLs (HTTPClient, HTTPFile), with the one a program links by
// importing package remote/httpread, which registers it here.
//
// A typical remote read:
//
//	h, err := httpread.Open(ctx, url, nil)
//	c := remote.NewCoalescer(h, h.Size(), nil)
//	rd, err := format.NewReader(c, h.Size(), &format.ReaderOptions{Prefetch: c.Prefetch})
package remote

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"
)

// ErrRemote is wrapped by every error about what a server answered.
var ErrRemote = errors.New("remote read failed")

// ErrTimeout is wrapped, with ErrRemote, by the error of a request that a
// timeout of the HTTP client ended.
var ErrTimeout = errors.New("timed out")

// ErrNoRanges is wrapped, with ErrRemote, by the error of opening, or of a
// read, from a server that does not serve byte ranges: it answered a range
// request with the whole resource (200), or its HEAD answer said
// "Accept-Ranges: none". HTTPClient.Download reads such a resource whole.
var ErrNoRanges = errors.New("the server does not serve byte ranges")

// ErrTooLarge is wrapped by the error of HTTPClient.Download for a
// resource longer than its limit.
var ErrTooLarge = errors.New("the file is larger than the download limit")

// HTTPImport is the package a program imports to read http(s) URLs.
const HTTPImport = "github.com/trevni-go/trevni/remote/httpread"

// ErrNoHTTP is wrapped by the error of reading an http(s) URL in a program
// that links no HTTP client (see HTTPImport).
var ErrNoHTTP = errors.New(`no reader of http(s) URLs is linked into this program: add import _ "` + HTTPImport + `"`)

// DefaultHTTPTimeout is the default of each of an HTTP client's timeouts:
// to connect, to the response's header, between two bytes of a body.
const DefaultHTTPTimeout = 30 * time.Second

// HTTPFile is an http(s) resource opened for reads at random, pinned to
// the version it was opened at.
type HTTPFile interface {
	io.ReaderAt
	// Size returns the resource's length in bytes.
	Size() int64
	// Version returns the resource's version (its ETag; "" for none).
	Version() string
	// Requests returns how many requests were made so far.
	Requests() int64
	// BytesFetched returns how many body bytes the reads returned.
	BytesFetched() int64
}

// HTTPClient reads http(s) URLs for the front door. remote/httpread.New
// makes one over net/http.
type HTTPClient interface {
	// Open opens the resource at url for reads at random; its error wraps
	// ErrNoRanges when the server serves no byte ranges.
	Open(ctx context.Context, url string) (HTTPFile, error)
	// Download writes the resource at url to w whole, refusing one longer
	// than limit bytes with an error wrapping ErrTooLarge.
	Download(ctx context.Context, url string, w io.Writer, limit int64) (int64, error)
}

var defaultHTTP HTTPClient

// RegisterHTTP makes c the client of http(s) URLs when a caller hands
// none; package remote/httpread calls it in its init.
func RegisterHTTP(c HTTPClient) { defaultHTTP = c }

// HTTP returns c, or when c is nil the registered client, or an error
// wrapping ErrNoHTTP when there is none.
func HTTP(c HTTPClient) (HTTPClient, error) {
	if c != nil {
		return c, nil
	}
	if defaultHTTP == nil {
		return nil, ErrNoHTTP
	}
	return defaultHTTP, nil
}

// IsURL reports whether name is an http:// or https:// URL.
func IsURL(name string) bool {
	return strings.HasPrefix(name, "http://") || strings.HasPrefix(name, "https://")
}
