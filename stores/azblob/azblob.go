// Package azblob is the driver of azblob:// URLs (Azure Blob Storage) for
// the front door: a program that imports it, even for its side effect
// only,
//
//	import _ "github.com/trevni-go/trevni/stores/azblob"
//
// reads and writes azblob://container/key with the account, keys or
// default credentials of Azure's environment (see package objstore). Its
// init registers the scheme on the project's own registry, package
// remote/store, and nowhere else. A service with clients of its own
// hands New's store to the front door instead (trevni.OpenOptions' Stores, by
// scheme).
package azblob

import (
	"context"
	"fmt"
	"net/url"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"gocloud.dev/blob"

	"github.com/trevni-go/trevni/remote/store"
	"github.com/trevni-go/trevni/stores/objstore"
)

// Scheme is the URL scheme the package registers.
const Scheme = "azblob"

func init() {
	objstore.RegisterProvider(provider)
	store.Register(Scheme, objstore.Store{})
}

// New returns the store of azblob:// URLs whose containers are reached
// through the clients client returns, one per container name, with their
// credentials and transport.
func New(client func(containerName string) (*container.Client, error)) store.Store {
	return objstore.Store{OpenBucket: func(ctx context.Context, bucketURL string) (*blob.Bucket, error) {
		u, err := url.Parse(bucketURL)
		if err != nil {
			return nil, err
		}
		if u.Scheme != Scheme {
			return nil, fmt.Errorf("%s: not an azblob:// container", bucketURL)
		}
		c, err := client(u.Host)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", bucketURL, err)
		}
		return OpenBucket(c), nil
	}}
}
