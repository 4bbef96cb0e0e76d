package objstore

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"gocloud.dev/blob"
)

// How buckets are shared.
//
// Every operation of this package on a bucket (an Open, a Create, a List,
// an Exists ...) takes the bucket from one cache, keyed by the bucket's
// URL, the stall bound and the environment that configures the stores
// (AWS_*, AZURE_*, GOOGLE_*, STORAGE_EMULATOR_HOST): the parts of a data
// set of many objects share one client, one connection pool and one load
// of the credentials and CA bundle, rather than holding a client and its
// connections each. A bucket no operation holds is closed, and its idle
// connections with it, after bucketLinger, so that the parts of a data
// set opened one after the other find it still open.

// bucketLinger is how long a bucket no operation holds stays open.
const bucketLinger = 30 * time.Second

type bucketKey struct {
	url   string
	stall time.Duration
	env   string
}

type sharedBucket struct {
	b         *blob.Bucket
	closeIdle func() // closes the bucket's idle connections (nil: none of its own)
	refs      int
	timer     *time.Timer // closes the bucket once no one holds it
}

var buckets struct {
	mu sync.Mutex
	m  map[bucketKey]*sharedBucket
}

// storeEnv returns the environment variables that configure the stores,
// sorted, as one string.
func storeEnv() string {
	var vs []string
	for _, kv := range os.Environ() {
		for _, p := range []string{"AWS_", "AZURE_", "GOOGLE_", "STORAGE_EMULATOR_HOST=", "HOME="} {
			if strings.HasPrefix(kv, p) {
				vs = append(vs, kv)
				break
			}
		}
	}
	slices.Sort(vs)
	return strings.Join(vs, "\x00")
}

// acquireBucket returns the shared bucket of bucketURL with its requests
// bounded by opts' Stall, opening it if none is open, and the function
// that releases it (each acquire is released once). A bucket opened by
// opts' OpenBucket is the program's own: it is not shared here, and the
// release closes it.
func acquireBucket(ctx context.Context, bucketURL string, opts *Options) (*blob.Bucket, func(), *Provider, error) {
	p, err := provider(schemeOf(bucketURL))
	if err != nil {
		return nil, nil, nil, err
	}
	if opts != nil && opts.OpenBucket != nil {
		b, err := opts.OpenBucket(ctx, bucketURL)
		if err != nil {
			return nil, nil, nil, err
		}
		var once sync.Once
		return b, func() { once.Do(func() { b.Close() }) }, p, nil
	}
	stall := opts.stall()
	k := bucketKey{url: bucketURL, stall: stall, env: storeEnv()}
	buckets.mu.Lock()
	defer buckets.mu.Unlock()
	s := buckets.m[k]
	if s == nil {
		b, closeIdle, err := openBucket(ctx, p, bucketURL, stall)
		if err != nil {
			return nil, nil, nil, err
		}
		s = &sharedBucket{b: b, closeIdle: closeIdle}
		if buckets.m == nil {
			buckets.m = map[bucketKey]*sharedBucket{}
		}
		buckets.m[k] = s
	}
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	s.refs++
	var once sync.Once
	return s.b, func() { once.Do(func() { releaseBucket(k, s) }) }, p, nil
}

func releaseBucket(k bucketKey, s *sharedBucket) {
	buckets.mu.Lock()
	defer buckets.mu.Unlock()
	s.refs--
	if s.refs > 0 {
		return
	}
	s.timer = time.AfterFunc(bucketLinger, func() {
		buckets.mu.Lock()
		defer buckets.mu.Unlock()
		if s.refs > 0 || buckets.m[k] != s {
			return
		}
		delete(buckets.m, k)
		closeShared(s)
	})
}

func closeShared(s *sharedBucket) {
	s.b.Close()
	if s.closeIdle != nil {
		s.closeIdle()
	}
}

// CloseIdle closes the buckets no operation holds and their idle
// connections now, rather than after they have lingered: for a program
// (or a test) that is done with the stores.
func CloseIdle() {
	buckets.mu.Lock()
	defer buckets.mu.Unlock()
	for k, s := range buckets.m {
		if s.refs > 0 {
			continue
		}
		if s.timer != nil {
			s.timer.Stop()
		}
		delete(buckets.m, k)
		closeShared(s)
	}
}

// openBuckets returns how many buckets the cache holds open (for tests).
func openBuckets() int {
	buckets.mu.Lock()
	defer buckets.mu.Unlock()
	return len(buckets.m)
}
