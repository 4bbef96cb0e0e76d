package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeClock advances by step at every reading.
func fakeClock(step time.Duration) func() time.Time {
	t := time.Unix(0, 0)
	return func() time.Time {
		t = t.Add(step)
		return t
	}
}

// runTTY runs the tool in-process as if standard error were a terminal,
// with a clock that makes every run long.
func runTTY(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	a := newApp(strings.NewReader(""), &out, &errOut)
	a.tty = true
	a.now = fakeClock(300 * time.Millisecond)
	code = a.run(context.Background(), args)
	return code, out.String(), errOut.String()
}

func TestProgressShown(t *testing.T) {
	file := filepath.Join(interopDir, "medium", "medium.deflate.crc32.trv")
	for _, cmd := range []string{"dump", "validate"} {
		code, stdout, stderr := runTTY(cmd, file)
		if code != 0 {
			t.Fatalf("%s: status %d: %s", cmd, code, stderr)
		}
		if !strings.Contains(stderr, "\rtrevni: "+cmd+": ") || !strings.Contains(stderr, "/s") {
			t.Errorf("%s: no progress in %q", cmd, stderr)
		}
		if !strings.HasSuffix(stderr, "\r\x1b[K") {
			t.Errorf("%s: progress line not erased: %q", cmd, stderr[max(0, len(stderr)-80):])
		}
		if strings.Contains(stdout, "\r") {
			t.Errorf("%s: progress on stdout", cmd)
		}
		if cmd == "dump" && !strings.Contains(stderr, "of 30,000 rows") {
			t.Errorf("dump: no row count in %q", stderr[:min(len(stderr), 200)])
		}
		// --quiet silences it, and so does a stderr that is not a terminal.
		if _, _, stderr := runTTY(cmd, "--quiet", file); stderr != "" {
			t.Errorf("%s --quiet: stderr %q", cmd, stderr)
		}
		if r := runIn(t, nil, cmd, file); r.stderr != "" {
			t.Errorf("%s without a terminal: stderr %q", cmd, r.stderr)
		}
	}
}

// TestProgressBeforeErrors checks that the progress line is erased before
// a problem is reported, so that each message is a line of its own.
func TestProgressBeforeErrors(t *testing.T) {
	data := readFile(t, filepath.Join(interopDir, "medium", "medium.deflate.crc32.trv"))
	data[len(data)-100] ^= 0xff
	file := filepath.Join(t.TempDir(), "bad.trv")
	writeFileT(t, file, data)
	for _, cmd := range []string{"dump", "validate"} {
		code, _, stderr := runTTY(cmd, file)
		if code != exitError {
			t.Fatalf("%s: status %d", cmd, code)
		}
		for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
			if i := strings.LastIndex(l, "\x1b[K"); i >= 0 {
				l = l[i+3:]
			}
			if l == "" {
				continue // the erased progress line at the end
			}
			if !strings.HasPrefix(l, "trevni: "+cmd+": ") || strings.Contains(l, "\r") {
				t.Errorf("%s: garbled line %q", cmd, l)
			}
		}
	}
}

func TestFormatting(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := formatCount(n); got != want {
			t.Errorf("formatCount(%d) = %q, want %q", n, got, want)
		}
	}
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 5 << 20: "5.0 MiB", 3 << 30: "3.0 GiB"} {
		if got := formatBytes(n); got != want {
			t.Errorf("formatBytes(%d) = %q, want %q", n, got, want)
		}
	}
	p := &progress{label: "trevni: x: ", rows: 500, totalRows: 1000, bytes: 2 << 20, totalBytes: 8 << 20}
	if got, want := p.line(2*time.Second), "trevni: x: 500 of 1,000 rows (50%), 2.0 MiB of 8.0 MiB (25%), 1.0 MiB/s"; got != want {
		t.Errorf("line = %q, want %q", got, want)
	}
}
