package objstore

import "time"

// OpenBuckets returns how many buckets the cache holds open.
func OpenBuckets() int { return openBuckets() }

// SetAbortWindow sets how long a failed multipart upload's abort is
// tried, for the rest of the test.
func SetAbortWindow(d time.Duration) (restore func()) {
	old := abortWindow
	abortWindow = d
	return func() { abortWindow = old }
}
