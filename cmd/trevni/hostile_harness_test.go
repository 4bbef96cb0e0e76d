package main

// The harness of the hostile-input tests (hostile_schemas_test.go,
// hostile_blocks_test.go, hostile_limits_test.go): tiny hostile inputs
// must not exhaust memory, time or stack. Each class of input is built in
// code and given to the built tool in a subprocess (runLimited), which
// must end within seconds with a clean one-line error (or success), in
// bounded memory, leaving no file behind (checkHostile).

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// hostileRSS is the most resident memory a run on a hostile input may use.
const hostileRSS = 300 << 20

// limitedRun is what one bounded run of the tool did.
type limitedRun struct {
	result
	rss     int64 // peak resident set size in bytes
	elapsed time.Duration
}

// runLimited runs the built tool in dir, killing it after timeout, and
// reports its peak memory.
func runLimited(t *testing.T, dir string, timeout time.Duration, stdin []byte, args ...string) limitedRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, trevniBin, args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Start()
	var hwm atomic.Int64
	stop := make(chan struct{})
	polled := make(chan struct{})
	if err == nil {
		go pollHWM(cmd.Process.Pid, &hwm, stop, polled)
		err = cmd.Wait()
		close(stop)
		<-polled
	}
	r := limitedRun{elapsed: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("%q did not end within %v", args, timeout)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	// The child's own peak: the high-water mark of its memory as polled
	// from /proc while it ran. The rusage of a child counts the parent's
	// resident memory at the fork (the test process is large by then), so
	// it is used only where /proc cannot be read.
	r.rss = hwm.Load()
	if r.rss == 0 {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.rss = ru.Maxrss * 1024 // kilobytes on Linux
		}
	}
	r.stdout, r.stderr = out.String(), errOut.String()
	return r
}

// checkHostile checks a run on a hostile input: a clean one-line error
// containing want, bounded memory, and no file left in dir beyond keep.
func checkHostile(t *testing.T, r limitedRun, command, want, dir string, keep ...string) {
	t.Helper()
	checkOneLineError(t, r.result, command)
	if !strings.Contains(r.stderr, want) {
		t.Errorf("%s: error %q does not say %q", command, strings.TrimSpace(r.stderr), want)
	}
	if r.rss > hostileRSS {
		t.Errorf("%s: peak memory %d MiB", command, r.rss>>20)
	}
	checkNoLeftovers(t, dir, keep...)
}

// checkNoLeftovers fails if dir holds any file other than keep.
func checkNoLeftovers(t *testing.T, dir string, keep ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		found := false
		for _, k := range keep {
			found = found || e.Name() == k
		}
		if !found {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// rawColumn is one column of a hand-built Trevni file.
type rawColumn struct {
	meta   [][2]string // column metadata, in order
	blocks []rawBlock
}

// rawBlock is one block: what its descriptor claims and its stored bytes.
type rawBlock struct {
	rows, uncompressed int32
	data               []byte // payload and checksum, as stored
}

// buildTrevni writes a Trevni file byte by byte, claiming whatever it is
// told to: the shape of a hostile file.
func buildTrevni(rows int64, fileMeta [][2]string, cols []rawColumn) []byte {
	varint := func(b []byte, v int64) []byte { return binary.AppendVarint(b, v) }
	meta := func(b []byte, m [][2]string) []byte {
		b = varint(b, int64(len(m)))
		for _, kv := range m {
			b = varint(b, int64(len(kv[0])))
			b = append(b, kv[0]...)
			b = varint(b, int64(len(kv[1])))
			b = append(b, kv[1]...)
		}
		return b
	}
	h := []byte("Trv\x02")
	h = binary.LittleEndian.AppendUint64(h, uint64(rows))
	h = binary.LittleEndian.AppendUint32(h, uint32(len(cols)))
	h = meta(h, fileMeta)
	var bodies [][]byte
	for _, c := range cols {
		h = meta(h, c.meta)
		var body []byte
		body = binary.LittleEndian.AppendUint32(body, uint32(len(c.blocks)))
		for _, b := range c.blocks {
			body = binary.LittleEndian.AppendUint32(body, uint32(b.rows))
			body = binary.LittleEndian.AppendUint32(body, uint32(b.uncompressed))
			body = binary.LittleEndian.AppendUint32(body, uint32(len(b.data)))
		}
		for _, b := range c.blocks {
			body = append(body, b.data...)
		}
		bodies = append(bodies, body)
	}
	start := int64(len(h) + 8*len(cols))
	for _, body := range bodies {
		h = binary.LittleEndian.AppendUint64(h, uint64(start))
		start += int64(len(body))
	}
	for _, body := range bodies {
		h = append(h, body...)
	}
	return h
}

// pollHWM reads the VmHWM (peak resident memory) of process pid from
// /proc every millisecond into hwm until stop is closed, then closes done.
// VmHWM only grows, so the last reading before the process ends is its
// peak up to then.
func pollHWM(pid int, hwm *atomic.Int64, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	path := fmt.Sprintf("/proc/%d/status", pid)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile(path); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
					var kb int64
					if _, err := fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(v), " kB"), &kb); err == nil && kb*1024 > hwm.Load() {
						hwm.Store(kb * 1024)
					}
				}
			}
		}
		select {
		case <-stop:
			return
		case <-tick.C:
		}
	}
}

// writeFiles writes name-content pairs into dir and returns the names.
func writeFiles(t *testing.T, dir string, files map[string][]byte) []string {
	t.Helper()
	var names []string
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return names
}
