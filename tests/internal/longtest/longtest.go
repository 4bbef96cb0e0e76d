// Package longtest gives the tests of this module the rounds of their long
// randomized tests, as the core's packages' LongRounds do.
package longtest

import "os"

// Rounds returns long when the environment variable TREVNI_LONG_TESTS is 1
// and short otherwise: a plain go test runs the first rounds, .ci/run all.
func Rounds(short, long int) int {
	if os.Getenv("TREVNI_LONG_TESTS") == "1" {
		return long
	}
	return short
}
