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
	return peak, err
}
