package objstore

import (
	"context"

	"gocloud.dev/blob"

	"github.com/trevni-go/trevni/remote/store"
)

// Store is the store.Store of this package's schemes (s3://, gs://,
// azblob://): the drivers stores/s3, stores/gs and stores/azblob register
// it, and a program hands one to the front door (trevni.OpenOptions' Stores)
// to open its buckets itself. The zero value opens buckets from their
// URLs and the environment (see "How buckets are opened").
type Store struct {
	// OpenBucket, when not nil, opens the buckets, as Options'
	// OpenBucket: the gocloud.dev bucket of a program's own client
	// (s3blob.OpenBucket, azblob.OpenBucket, gcs.OpenBucket).
	OpenBucket func(ctx context.Context, bucketURL string) (*blob.Bucket, error)
}

var _ store.Store = Store{}

// options returns the Options of o's requests, with s's opener.
func (s Store) options(o *store.Options) *Options {
	if o == nil && s.OpenBucket == nil {
		return nil
	}
	opts := &Options{OpenBucket: s.OpenBucket}
	if o != nil {
		opts.Retries, opts.Backoff, opts.Stall = o.Retries, o.Backoff, o.Stall
	}
	return opts
}

// Open opens the object name (see Open).
func (s Store) Open(ctx context.Context, name string, opts *store.Options) (store.Object, error) {
	o, err := Open(ctx, name, s.options(opts))
	if err != nil {
		return nil, err
	}
	return o, nil
}

// List lists the objects pattern matches (see List).
func (s Store) List(ctx context.Context, pattern string, opts *store.Options) ([]string, error) {
	return List(ctx, pattern, s.options(opts))
}

// Create starts the upload of the object name (see Create).
func (s Store) Create(ctx context.Context, name string, replace bool, opts *store.Options) (store.Writer, error) {
	w, err := Create(ctx, name, replace, s.options(opts))
	if err != nil {
		return nil, err
	}
	return w, nil
}

// Exists reports whether the object name exists (see Exists).
func (s Store) Exists(ctx context.Context, name string, opts *store.Options) (bool, error) {
	return Exists(ctx, name, s.options(opts))
}

// Remove deletes the object name (see Remove).
func (s Store) Remove(ctx context.Context, name string, opts *store.Options) error {
	return Remove(ctx, name, s.options(opts))
}

// Move puts the object from under the name to (see Move).
func (s Store) Move(ctx context.Context, from, to string, replace bool, opts *store.Options) error {
	return Move(ctx, from, to, replace, s.options(opts))
}
