package assemble

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
