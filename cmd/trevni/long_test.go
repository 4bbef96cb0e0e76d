package main

import "os"

// longRounds returns long when the environment variable TREVNI_LONG_TESTS
// is 1 and short otherwise. A plain go test runs part of the rounds of the
// long randomized tests (the first ones, or every few); .ci/run sets
// TREVNI_LONG_TESTS=1 and runs all of them, so the default form is part of
// what CI checks.
func longRounds(short, long int) int {
	if os.Getenv("TREVNI_LONG_TESTS") == "1" {
		return long
	}
	return short
}

// longTests reports whether the long form runs (TREVNI_LONG_TESTS=1).
func longTests() bool { return longRounds(0, 1) == 1 }
