package longtest

import "testing"

func TestRounds(t *testing.T) {
	t.Setenv("TREVNI_LONG_TESTS", "")
	if On() || Rounds(3, 12) != 3 {
		t.Errorf("without TREVNI_LONG_TESTS: On() = %v, Rounds(3, 12) = %d; want false, 3", On(), Rounds(3, 12))
	}
	// Only "1" turns the long form on, as .ci/run sets it.
	t.Setenv("TREVNI_LONG_TESTS", "true")
	if On() {
		t.Error(`TREVNI_LONG_TESTS=true turned the long form on; only "1" does`)
	}
	t.Setenv("TREVNI_LONG_TESTS", "1")
	if !On() || Rounds(3, 12) != 12 {
		t.Errorf("with TREVNI_LONG_TESTS=1: On() = %v, Rounds(3, 12) = %d; want true, 12", On(), Rounds(3, 12))
	}
}
