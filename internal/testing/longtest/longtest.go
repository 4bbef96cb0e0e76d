// Package longtest gives the long randomized tests of every module of the
// repository their rounds: a plain go test runs the first rounds (the same
// seeds, fewer of them, or a subset of the same cases), and .ci/run, which
// sets TREVNI_LONG_TESTS=1, runs all of them, so the default form is part
// of what CI checks.
package longtest

import "os"

// On reports whether the long form runs: the environment variable
// TREVNI_LONG_TESTS is 1.
func On() bool { return os.Getenv("TREVNI_LONG_TESTS") == "1" }

// Rounds returns long in the long form and short otherwise.
func Rounds(short, long int) int {
	if On() {
		return long
	}
	return short
}
