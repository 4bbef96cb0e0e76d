package frontdoor

import (
	"context"
	"io"

	"github.com/trevni-go/trevni/internal/atomicfile"
	"github.com/trevni-go/trevni/remote"
	"github.com/trevni-go/trevni/remote/store"
)

// The command opens a name as the front door does: these open a store's
// object, or tell a URL, for the inputs the command reads itself (a
// converter's stream, a Parquet file handed to trevniparquet).

// StoreOptions configures the requests made to a store (package
// remote/store's, named here for the command, which sets the front
// door's StoreRetries, StoreBackoff and StoreStall and passes the same to
// the functions here).
type StoreOptions = store.Options

// IsStore reports whether name is the URL of an object of a store a
// driver the program links serves (s3://, gs://, azblob://).
func IsStore(name string) bool { return store.IsURL(name, nil) }

// IsHTTP reports whether name is an http:// or https:// URL.
func IsHTTP(name string) bool { return remote.IsURL(name) }

// OpenStoreStream opens the object of a store at name for reading in
// order, in large ranged reads (store.OpenStream).
func OpenStoreStream(ctx context.Context, name string, so *store.Options) (io.ReadCloser, error) {
	st, err := store.For(name, nil)
	if err != nil {
		return nil, err
	}
	return store.OpenStream(ctx, st, name, so)
}

// OpenStoreObject opens the object of a store at name for reads at random,
// pinned to the version it has now; closeIt closes it.
func OpenStoreObject(ctx context.Context, name string, so *store.Options) (ra io.ReaderAt, size int64, closeIt func() error, err error) {
	st, err := store.For(name, nil)
	if err != nil {
		return nil, 0, nil, err
	}
	o, err := st.Open(ctx, name, so)
	if err != nil {
		return nil, 0, nil, err
	}
	return o, o.Size(), o.Close, nil
}

// ErrAppeared is wrapped by the error of a commit that found a file
// appeared under the output's name while it was written (the command
// says so rather than replacing it).
var ErrAppeared = atomicfile.ErrAppeared
