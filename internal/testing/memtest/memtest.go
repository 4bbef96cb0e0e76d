// Package memtest measures the peak heap of a piece of code, for tests
// that show memory bounded by configuration rather than by input size.
package memtest

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// PeakHeap runs f and returns the most heap its objects took while it ran,
// sampled every millisecond, with f's error. It runs f with a low garbage
// collection target, so that garbage awaiting a collection (which grows
// with the work done when the machine is busy) does not pass for memory
// held.
func PeakHeap(f func() error) (uint64, error) {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	err := f()
	close(stop)
	<-done
	// And what f left when it returned, which the last tick may not have
	// seen.
	metrics.Read(sample)
	peak = max(peak, sample[0].Value.Uint64())
	return peak, err
}

// Least keeps, for each read a test measures (by a name of the test's
// choosing), the least peak heap of the times it was measured. Garbage
// the collector has not yet reached only ever adds to a sample, and on a
// loaded machine it can add megabytes to one read (the same read of the
// same data peaked anywhere from 4.9 to 9.5 MiB), so a bound is judged on
// the least of several measurements: see Retry.
type Least map[string]uint64

// PeakHeap runs f under PeakHeap and returns the least peak measured for
// name so far, this one included, with f's error.
func (l Least) PeakHeap(name string, f func() error) (uint64, error) {
	p, err := PeakHeap(f)
	if prev, ok := l[name]; ok {
		p = min(p, prev)
	}
	l[name] = p
	return p, err
}

// Retry calls attempt up to n times, until it returns true. An attempt
// measures the test's reads through a Least and reports whether its bounds
// hold on the least peaks so far; the test then judges the last attempt's
// peaks. So a bound that holds costs one measurement of each read, and one
// that fails is failed on the least peaks of n measurements.
func Retry(n int, attempt func() bool) {
	for range n {
		if attempt() {
			return
		}
	}
}
