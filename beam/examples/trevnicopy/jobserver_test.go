package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/beam/trevniio"
)

// goBuild builds pkg into out, in this module (GOWORK=off, as .ci/run
// builds beam).
func goBuild(t *testing.T, pkg, out string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
}

// records returns the records of the files names that satisfy where, as
// hex of their Avro binary encoding, sorted.
func records(t *testing.T, where string, names ...string) []string {
	t.Helper()
	var out []string
	for _, name := range names {
		ds, err := trevni.Open(context.Background(), name, nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ds.NewReader(context.Background(), &trevni.ReadOptions{Where: where})
		if err != nil {
			t.Fatal(err)
		}
		for {
			b, err := r.ReadBinary(nil)
			if err != nil {
				break
			}
			out = append(out, hex.EncodeToString(b))
		}
		r.Close()
		ds.Close()
	}
	slices.Sort(out)
	return out
}

// TestPrismJobServer runs the example pipeline as a user runs it on a
// portable runner: prism, Beam's runner, started as a job server of its
// own (a separate process on 127.0.0.1, built from the Beam module this
// module requires), and trevnicopy as another process submitting the job
// to it with --runner universal --environment_type LOOPBACK (its workers
// run in the launching process). The shards hold the input's records; run
// again without leave to replace them, it is refused before any job is
// submitted.
func TestPrismJobServer(t *testing.T) {
	dir := t.TempDir()
	prism := filepath.Join(dir, "prism")
	copier := filepath.Join(dir, "trevnicopy")
	goBuild(t, "github.com/apache/beam/sdks/v2/go/cmd/prism", prism)
	goBuild(t, ".", copier)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var serverLog strings.Builder
	srv := exec.Command(prism, fmt.Sprintf("--job_port=%d", port), "--serve_http=false", "--log_level=warn")
	srv.Stdout, srv.Stderr = &serverLog, &serverLog
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Process.Kill()
		srv.Wait()
	})
	endpoint := fmt.Sprintf("localhost:%d", port)
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("prism does not listen on %d: %v\n%s", port, err, serverLog.String())
		}
	}

	input := "../../../testdata/interop/email/email.deflate.crc32.trv"
	out := filepath.Join(dir, "out", "part")
	run := func() (string, error) {
		cmd := exec.Command(copier, "--runner", "universal", "--endpoint", endpoint, "--environment_type", "LOOPBACK",
			"--input", input, "--output", out, "--shards", "2", "--where", "id > 0")
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	msg, err := run()
	if err != nil {
		t.Fatalf("trevnicopy on the job server: %v\n%s\nprism:\n%s", err, msg, serverLog.String())
	}
	shards := []string{trevniio.ShardName(out, 0, 2), trevniio.ShardName(out, 1, 2)}
	got := records(t, "", shards...)
	want := records(t, "id > 0", input)
	if len(want) < 100 || !slices.Equal(got, want) {
		t.Fatalf("the shards hold %d records, the input %d with id > 0", len(got), len(want))
	}
	if !strings.Contains(msg, fmt.Sprintf("wrote %d records", len(want))) {
		t.Errorf("trevnicopy said:\n%s", msg)
	}

	msg, err = run()
	if err == nil || !strings.Contains(msg, "set WriteOptions.Replace") || strings.Contains(msg, "Submitted job") {
		t.Fatalf("a second run over the shards: %v\n%s", err, msg)
	}
}
