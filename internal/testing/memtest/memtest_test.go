package memtest

import (
	"errors"
	"runtime"
	"testing"
)

var sink [][]byte

// TestPeakHeap checks that a peak holds what f allocated and kept, and
// that f's error is returned.
func TestPeakHeap(t *testing.T) {
	base, err := PeakHeap(func() error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	peak, err := PeakHeap(func() error {
		for range 64 {
			sink = append(sink, make([]byte, 1<<20))
		}
		return errors.New("f's error")
	})
	if err == nil || err.Error() != "f's error" {
		t.Errorf("PeakHeap returned %v, want f's error", err)
	}
	if peak < base+60<<20 {
		t.Errorf("peak %d KiB while 64 MiB were held, %d KiB before", peak>>10, base>>10)
	}
	sink = nil
	runtime.GC()
}

// TestLeastRetry checks that Least keeps each name's least peak and that
// Retry stops at the first attempt that holds, after at most n.
func TestLeastRetry(t *testing.T) {
	l := Least{}
	hold := func(mib int) func() error {
		return func() error {
			sink = append(sink, make([]byte, mib<<20))
			return nil
		}
	}
	var peaks []uint64
	tries := 0
	Retry(3, func() bool {
		tries++
		mib := 48 >> (tries - 1) // 48, then 24, then 12 MiB
		p, _ := l.PeakHeap("read", hold(mib))
		sink = nil
		runtime.GC()
		peaks = append(peaks, p)
		return false
	})
	if tries != 3 || len(l) != 1 {
		t.Fatalf("%d attempts, %d names; want 3 and 1", tries, len(l))
	}
	if !(peaks[1] <= peaks[0] && peaks[2] <= peaks[1]) || l["read"] != peaks[2] {
		t.Errorf("least peaks %v (kept %d): not the least so far", peaks, l["read"])
	}
	if peaks[0]-peaks[2] < 30<<20 {
		t.Errorf("least peak %d KiB after holding 48 MiB then 12: want about 36 MiB less than %d KiB", peaks[2]>>10, peaks[0]>>10)
	}
	tries = 0
	Retry(3, func() bool { tries++; return true })
	if tries != 1 {
		t.Errorf("Retry made %d attempts of one that held", tries)
	}
}
