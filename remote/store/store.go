// Package store is what the front door needs of an object store (s3://,
// gs://, azblob:// and any other scheme a driver takes), and the registry
// of the stores a program links.
//
// The core module links no store: a driver is a package of the module
// github.com/trevni-go/trevni/stores that registers its scheme here when a
// program imports it, as database/sql's drivers do:
//
//	import _ "github.com/trevni-go/trevni/stores/s3"     // s3://
//	import _ "github.com/trevni-go/trevni/stores/gs"     // gs://
//	import _ "github.com/trevni-go/trevni/stores/azblob" // azblob://
//
// or a program hands a Store to the front door itself (trevni.OpenOptions'
// Stores, by scheme), built with its own client, credentials or
// http.Client. A name of a scheme with neither fails with an error
// wrapping ErrNoDriver that says which package to import.
package store

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// Store reads and writes the objects of one kind of store, named by URL.
// Its methods are safe for concurrent use.
type Store interface {
	// Open opens the object name, reading its size and version. Reads
	// are made with ctx. The caller closes it.
	Open(ctx context.Context, name string, opts *Options) (Object, error)
	// List returns the URLs of the objects whose URLs match pattern, a
	// URL whose key is a path.Match pattern, in key order; a "*" does
	// not match "/".
	List(ctx context.Context, pattern string, opts *Options) ([]string, error)
	// Create starts the upload of the object name, which appears only
	// when the Writer's Commit succeeds. Without replace, an existing
	// object is an error wrapping ErrExists.
	Create(ctx context.Context, name string, replace bool, opts *Options) (Writer, error)
	// Exists reports whether the object name exists.
	Exists(ctx context.Context, name string, opts *Options) (bool, error)
	// Remove deletes the object name; a missing one is no error.
	Remove(ctx context.Context, name string, opts *Options) error
	// Move puts the object from under the name to, of the same bucket.
	// Without replace, an object at to is an error wrapping ErrExists.
	Move(ctx context.Context, from, to string, replace bool, opts *Options) error
}

// Object is an io.ReaderAt over one object, pinned to the version it had
// when it was opened: a read of an object replaced since fails with an
// error wrapping ErrChanged. It is safe for concurrent use. An Object that
// also has Requests() int64 and BytesFetched() int64 methods reports
// them to the front door's fetch report.
type Object interface {
	io.ReaderAt
	// Size returns the object's length in bytes.
	Size() int64
	// Version returns the version that was opened (an ETag, a
	// generation).
	Version() string
	// Close releases the object.
	Close() error
}

// Writer uploads an object that appears only when Commit succeeds; Abort,
// or a failed Commit, leaves no object.
type Writer interface {
	io.Writer
	// Commit completes the upload, putting the object in place.
	Commit() error
	// Abort ends the upload, leaving no object.
	Abort() error
	// TempDir returns the directory of the upload's temporary files, ""
	// for none.
	TempDir() string
}

// Options configures the requests made to a store. The zero value (or
// nil) is the defaults.
type Options struct {
	// Retries bounds the tries of a read, and of Open's look at the
	// object, after its first, that fail for a reason that may pass; 0
	// means DefaultRetries, negative none. The tries also stop once they
	// have failed for Stall (DefaultStall when Stall is negative) since
	// the first failure, or when the context ends: a store that restarts
	// within that time is waited for, and the read goes on from its last
	// byte.
	Retries int
	// Backoff is the wait before the first retry, doubled before each
	// next one up to 4 s; 0 means DefaultBackoff.
	Backoff time.Duration
	// Stall bounds the time every request (reads, uploads and their
	// parts, listings, copies, deletes, the look at an object) may go
	// without progress. A request that stalls longer fails, and is
	// retried where failures that may pass are. 0 means DefaultStall,
	// negative no bound.
	Stall time.Duration
}

// Defaults of Options.
const (
	DefaultRetries = 20
	DefaultBackoff = 100 * time.Millisecond
	DefaultStall   = 30 * time.Second
)

// ErrChanged is wrapped by the error of a read of an object that was
// replaced or deleted since it was opened.
var ErrChanged = errors.New("the object changed while it was read")

// ErrNoDriver is wrapped by the error for a URL whose scheme no linked
// driver and no Store handed in takes.
var ErrNoDriver = errors.New("no store driver is linked for the scheme")

// drivers are the packages of the module github.com/trevni-go/trevni/stores
// that take the schemes this package knows by name, for the error of a
// URL whose driver is not linked.
var drivers = map[string]string{
	"s3":     "github.com/trevni-go/trevni/stores/s3",
	"gs":     "github.com/trevni-go/trevni/stores/gs",
	"azblob": "github.com/trevni-go/trevni/stores/azblob",
}

var (
	mu         sync.RWMutex
	registered = map[string]Store{}
)

// Register makes s the store of the URLs of scheme (without "://") for
// the whole program. A driver package calls it in its init. It panics
// when scheme is empty, s is nil, or the scheme is registered twice.
func Register(scheme string, s Store) {
	mu.Lock()
	defer mu.Unlock()
	if scheme == "" || strings.Contains(scheme, ":") {
		panic(fmt.Sprintf("store: Register: bad scheme %q", scheme))
	}
	if s == nil {
		panic("store: Register: nil Store for " + scheme)
	}
	if _, dup := registered[scheme]; dup {
		panic("store: Register called twice for " + scheme)
	}
	registered[scheme] = s
}

// Schemes returns the schemes registered, sorted.
func Schemes() []string {
	mu.RLock()
	defer mu.RUnlock()
	return slices.Sorted(maps.Keys(registered))
}

// Scheme returns the scheme of a URL name ("s3" of "s3://bucket/key"),
// "" when name is not a URL.
func Scheme(name string) string {
	s, _, ok := strings.Cut(name, "://")
	if !ok || s == "" {
		return ""
	}
	for i, c := range s {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return ""
		}
	}
	return s
}

// IsURL reports whether name is the URL of an object store: of a scheme
// this package knows (s3, gs, azblob), registered, or in explicit.
func IsURL(name string, explicit map[string]Store) bool {
	s := Scheme(name)
	if s == "" {
		return false
	}
	if _, ok := drivers[s]; ok {
		return true
	}
	if _, ok := explicit[s]; ok {
		return true
	}
	mu.RLock()
	defer mu.RUnlock()
	_, ok := registered[s]
	return ok
}

// For returns the store of the URL name: explicit's for its scheme, else
// the one registered. With neither, the error wraps ErrNoDriver and says
// which package to import.
func For(name string, explicit map[string]Store) (Store, error) {
	s := Scheme(name)
	if st, ok := explicit[s]; ok && st != nil {
		return st, nil
	}
	mu.RLock()
	st, ok := registered[s]
	mu.RUnlock()
	if ok {
		return st, nil
	}
	if pkg, known := drivers[s]; known {
		return nil, fmt.Errorf("%s: %w %s://: import _ %q (the command trevni links it), or pass a Store for %q in the options", name, ErrNoDriver, s, pkg, s)
	}
	return nil, fmt.Errorf("%s: %w %s://", name, ErrNoDriver, s)
}

// StreamChunk is how many bytes each read of a stream opened by
// OpenStream asks for.
const StreamChunk = 4 << 20

// OpenStream opens the object name of s for reading in order, in reads of
// StreamChunk bytes. Closing it closes the object.
func OpenStream(ctx context.Context, s Store, name string, opts *Options) (io.ReadCloser, error) {
	o, err := s.Open(ctx, name, opts)
	if err != nil {
		return nil, err
	}
	return &stream{Reader: bufio.NewReaderSize(io.NewSectionReader(o, 0, o.Size()), StreamChunk), o: o}, nil
}

type stream struct {
	*bufio.Reader
	o Object
}

func (s *stream) Close() error { return s.o.Close() }

// Key returns the key of the object URL name (what follows the bucket,
// without a query), "" when name names no bucket.
func Key(name string) string {
	if Scheme(name) == "" {
		return ""
	}
	_, rest, _ := strings.Cut(name, "://")
	host, key, _ := strings.Cut(rest, "/")
	if i := strings.IndexByte(host, '?'); i >= 0 {
		host = host[:i]
	} else if i := strings.LastIndexByte(key, '?'); i >= 0 && isQuery(key[i+1:]) {
		key = key[:i]
	}
	if host == "" {
		return ""
	}
	return key
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
