package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// Progress display timing: nothing is shown for runs shorter than
// progressDelay, and the line is redrawn at most every progressInterval.
const (
	progressDelay    = 500 * time.Millisecond
	progressInterval = 200 * time.Millisecond
)

// progress shows how far a long run has got, as one line on standard error
// redrawn in place: rows (of the total when known), bytes (likewise) and
// the rate. It shows nothing unless standard error is a terminal and
// --quiet is not given; its methods are then cheap no-ops. It is safe for
// concurrent use.
type progress struct {
	w     io.Writer // nil: disabled
	label string
	now   func() time.Time

	mu                sync.Mutex
	rows, totalRows   int64
	bytes, totalBytes int64
	start, last       time.Time
	shown             bool
}

// newProgress returns a progress reporter for the command. totalRows and
// totalBytes are the expected totals, or 0 when unknown.
func (e *env) newProgress(totalRows, totalBytes int64) *progress {
	p := &progress{label: "trevni: " + e.name + ": ", now: e.app.now, totalRows: totalRows, totalBytes: totalBytes}
	if e.app.tty && !e.quiet {
		p.w = e.stderr
		p.start = p.now()
	}
	return p
}

// setRows records the number of rows done so far.
func (p *progress) setRows(n int64) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	p.rows = n
	p.maybeShow()
	p.mu.Unlock()
}

// setBytes records the number of bytes done so far.
func (p *progress) setBytes(n int64) {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	p.bytes = n
	p.maybeShow()
	p.mu.Unlock()
}

// done erases the progress line, if one was shown. Call it before printing
// anything else on standard error, and at the end of the run.
func (p *progress) done() {
	if p == nil || p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

func (p *progress) maybeShow() {
	t := p.now()
	if t.Sub(p.start) < progressDelay || t.Sub(p.last) < progressInterval {
		return
	}
	p.last = t
	p.shown = true
	fmt.Fprintf(p.w, "\r%s\x1b[K", p.line(t.Sub(p.start)))
}

// line formats the progress after elapsed time d.
func (p *progress) line(d time.Duration) string {
	var parts []string
	if p.rows > 0 || p.totalRows > 0 {
		unit := "rows"
		if p.rows == 1 && p.totalRows <= 1 {
			unit = "row"
		}
		parts = append(parts, count(p.rows, p.totalRows, unit, formatCount))
	}
	if p.bytes > 0 || p.totalBytes > 0 {
		parts = append(parts, count(p.bytes, p.totalBytes, "", formatBytes))
	}
	secs := d.Seconds()
	switch {
	case secs <= 0:
	case p.bytes > 0:
		parts = append(parts, formatBytes(int64(float64(p.bytes)/secs))+"/s")
	case p.rows > 0:
		parts = append(parts, formatCount(int64(float64(p.rows)/secs))+" rows/s")
	}
	return p.label + strings.Join(parts, ", ")
}

// count formats n of total, with a percentage when the total is known. n is
// capped at the total: reads ahead can count a few bytes twice.
func count(n, total int64, unit string, f func(int64) string) string {
	if total > 0 {
		n = min(n, total)
	}
	s := f(n)
	if total > 0 {
		s += " of " + f(total)
	}
	if unit != "" {
		s += " " + unit
	}
	if total > 0 {
		s += fmt.Sprintf(" (%d%%)", n*100/total)
	}
	return s
}

// formatCount formats n with thousands separators.
func formatCount(n int64) string {
	s := fmt.Sprint(n)
	start := 0
	if n < 0 {
		start = 1
	}
	for i := len(s) - 3; i > start; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// formatBytes formats n bytes with a binary unit.
func formatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/unit, 0
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTP"[i])
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// follow shows on p the bytes that bytes reports while one long call
// (validate's Verify) reads a file, asking every progressInterval; the
// function it returns stops that and shows the last count; it may be
// called again, doing nothing.
func (p *progress) follow(bytes func() int64) (stop func()) {
	if p == nil || p.w == nil {
		return func() {}
	}
	p.setBytes(bytes())
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(progressInterval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				p.setBytes(bytes())
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(quit)
			wg.Wait()
			p.setBytes(bytes())
		})
	}
}
