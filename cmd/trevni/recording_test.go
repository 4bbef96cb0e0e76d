package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestProfileAndTrace runs the built tool with TREVNI_CPUPROFILE and
// TREVNI_TRACE set: the run does its job and leaves a CPU profile (gzipped
// protobuf, as pprof writes it) and an execution trace (which begins with
// Go's trace header), and a path that cannot be created is a usage error
// naming the variable.
func TestProfileAndTrace(t *testing.T) {
	dir := t.TempDir()
	prof, tr := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "run.trace")
	in := filepath.Join(interopDir, "medium", "medium.null.none.trv")
	cmd := exec.Command(trevniBin, "count", in)
	cmd.Env = append(os.Environ(), "TREVNI_CPUPROFILE="+prof, "TREVNI_TRACE="+tr)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("count: %v", err)
	}
	plain := runBin(t, nil, "count", in)
	if string(out) != plain.stdout {
		t.Errorf("count printed %q with recording on, %q without", out, plain.stdout)
	}
	if b, err := os.ReadFile(prof); err != nil || !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		t.Errorf("CPU profile: %d bytes, %v; want a gzipped profile", len(b), err)
	}
	if b, err := os.ReadFile(tr); err != nil || !bytes.HasPrefix(b, []byte("go 1.")) {
		t.Errorf("trace: %d bytes, %v; want Go's trace header", len(b), err)
	}
	for _, env := range []string{"TREVNI_CPUPROFILE", "TREVNI_TRACE"} {
		cmd := exec.Command(trevniBin, "count", in)
		cmd.Env = append(os.Environ(), env+"="+filepath.Join(dir, "missing", "x"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != exitUsage || !strings.Contains(stderr.String(), env) {
			t.Errorf("%s to a missing directory: %v, stderr %q; want status %d naming it", env, err, stderr.String(), exitUsage)
		}
	}
}
