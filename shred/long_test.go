package shred

import "os"

// LongRounds returns long when the environment variable TREVNI_LONG_TESTS
// is 1 and short otherwise. A plain go test runs part of the rounds of the
// long randomized tests (the first ones); .ci/run sets TREVNI_LONG_TESTS=1
// and runs all of them, so the default form is part of what CI checks. It
// is exported, in the test build only, for the package's external tests.
func LongRounds(short, long int) int {
	if os.Getenv("TREVNI_LONG_TESTS") == "1" {
		return long
	}
	return short
}

// The heaviest tests of the package (a second of CPU or more) call
// t.Parallel, so that they run two at a time on two cores, after the
// others; the tests that measure memory or count allocations do not, so
// that no other test runs beside them.
