package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/stores/objstore"
	"github.com/trevni-go/trevni/stores/storetest/procserver"
)

// An S3 server no one here wrote, as a process on the loopback address:
// Versity's S3 gateway, versitygw, over a directory (its posix backend),
// built from the Go module proxy by .ci/run:
//
//	GOBIN=$PWD/.ci/versitygw go install github.com/versity/versitygw/cmd/versitygw@v1.8.0
//
// (or set TREVNI_VERSITYGW to its program). The in-process gofakes3 of
// storetest/s3server stays for the tests that inject faults.

// versitygwVersion is the version .ci/run installs.
const versitygwVersion = procserver.VersitygwVersion

// repoRoot returns the repository's root: the directory above this
// module's holding .ci.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := procserver.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// s3Process is a versitygw serving a directory, which can be stopped and
// started again on the same port and directory: a store restarting.
type s3Process = procserver.S3

// The root user's keys the gateway is started with.
const (
	s3Access = procserver.S3Access
	s3Secret = procserver.S3Secret
)

// startS3Process starts versitygw at a free port over a directory of its
// own, with the bucket bkt, ending it when the test ends.
func startS3Process(t *testing.T) *s3Process {
	t.Helper()
	return procserver.StartS3(t, "bkt")
}

// laptopEnv gives the process the environment of a user's laptop pointed
// at the server: the keys, a region and the endpoint (AWS_ENDPOINT_URL),
// a home of no AWS files, AWS_CA_BUNDLE as given, nothing else of AWS's.
func laptopEnv(t *testing.T, p *s3Process, bundle string) {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "AWS_") {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("AWS_ACCESS_KEY_ID", s3Access)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3Secret)
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_ENDPOINT_URL", p.Endpoint())
	if bundle != "" {
		t.Setenv("AWS_CA_BUNDLE", bundle)
	}
}

// TestS3ServerProcess: the stores' battery against a real S3 server as a
// process (versitygw), with the environment of a user's laptop, with and
// without AWS_CA_BUNDLE: the objects' round trip (a conflicting write
// refused, a replaced object's read refused as changed), a multipart
// upload of 24 MiB read back byte for byte and refused over an existing
// object, and the front door writing Trevni files from Avro, reading
// them back by glob and by prefix as the local file reads, refusing to
// replace without Replace.
func TestS3ServerProcess(t *testing.T) {
	p := startS3Process(t)
	for i, bundle := range []string{"", "/etc/ssl/certs/ca-certificates.crt"} {
		t.Run("AWS_CA_BUNDLE="+bundle, func(t *testing.T) {
			if bundle != "" {
				if _, err := os.Stat(bundle); err != nil {
					t.Skipf("no CA bundle at %s", bundle)
				}
			}
			laptopEnv(t, p, bundle)
			t.Cleanup(objstore.CloseIdle)
			dir := fmt.Sprintf("run-%d", i)
			u := func(key string) string { return "s3://bkt/" + dir + "/" + key }
			t.Run("round trip", func(t *testing.T) { roundTrip(t, u) })
			t.Run("multipart", func(t *testing.T) { multipart(t, u("big.bin")) })
			t.Run("front door", func(t *testing.T) { frontDoorBattery(t, u) })
		})
	}
}

// multipart uploads 24 MiB to name in several parts, reads it back, and
// checks that a second create without replace is refused.
func multipart(t *testing.T, name string) {
	ctx := context.Background()
	body := data(24 << 20)
	w, err := objstore.Create(ctx, name, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	for b := body; len(b) > 0; b = b[min(len(b), 1<<20):] {
		if _, err := w.Write(b[:min(len(b), 1<<20)]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	o, err := objstore.Open(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	got, err := io.ReadAll(io.NewSectionReader(o, 0, o.Size()))
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("read back %d of %d bytes: %v", len(got), len(body), err)
	}
	if _, err := objstore.Create(ctx, name, false, nil); !errors.Is(err, objstore.ErrExists) {
		t.Fatalf("a create over an object: %v, want ErrExists", err)
	}
}

// frontDoorBattery writes Java's medium vector from Avro to the store
// through the front door, twice, reads the parts back by glob and by
// prefix, and compares their records with the local file's.
func frontDoorBattery(t *testing.T, u func(string) string) {
	ctx := context.Background()
	src := "../../testdata/interop/medium/input.avro"
	opts := &trevni.WriteOptions{Codec: trevni.Snappy}
	for _, part := range []string{"parts/a.trv", "parts/b.trv"} {
		if _, err := trevni.ConvertAvro(ctx, u(part), src, opts); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := trevni.ConvertAvro(ctx, u("parts/a.trv"), src, opts); !errors.Is(err, trevni.ErrExists) {
		t.Fatalf("ConvertAvro over an existing object: %v, want ErrExists", err)
	}
	if _, err := trevni.ConvertAvro(ctx, u("parts/a.trv"), src, &trevni.WriteOptions{Codec: trevni.Snappy, Replace: true}); err != nil {
		t.Fatalf("ConvertAvro with Replace: %v", err)
	}
	local, err := trevni.Open(ctx, "../../testdata/interop/medium/medium.snappy.crc32.trv", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	want := readAll(t, local, nil)
	for _, name := range []string{u("parts/*.trv"), u("parts/")} {
		ds, err := trevni.Open(ctx, name, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var names []string
		for _, p := range ds.Parts() {
			names = append(names, p.Name())
		}
		if !slices.Equal(names, []string{u("parts/a.trv"), u("parts/b.trv")}) {
			t.Errorf("%s: parts %q", name, names)
		}
		if got := readAll(t, ds, nil); !sameRecords(got, append(slices.Clone(want), want...)) {
			t.Errorf("%s: %d records, want %d", name, len(got), 2*len(want))
		}
		ds.Close()
	}
}

// TestS3ServerProcessRestart: a read of an object of the real S3 server,
// stopped (its process ended) in the middle of the read and started again
// a few seconds later on the same directory, waits for it and returns the
// object's bytes; a commit made while it is down fails with an error
// wrapping ErrUnreachable, never ErrExists, and leaves no object.
func TestS3ServerProcessRestart(t *testing.T) {
	p := startS3Process(t)
	laptopEnv(t, p, "")
	t.Cleanup(objstore.CloseIdle)
	ctx := context.Background()
	name := "s3://bkt/restart.bin"
	body := data(8 << 20)
	w, err := objstore.Create(ctx, name, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	o, err := objstore.Open(ctx, name, &objstore.Options{Backoff: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	got := make([]byte, len(body))
	if _, err := o.ReadAt(got[:1<<20], 0); err != nil {
		t.Fatal(err)
	}
	p.Down()
	wait := p.UpAfter(3 * time.Second)
	n, err := o.ReadAt(got[1<<20:], 1<<20)
	wait()
	if err != nil || n != len(body)-1<<20 || !bytes.Equal(got, body) {
		t.Fatalf("a read across the server's restart: %d bytes, %v", n, err)
	}
	t.Logf("%d requests", o.Requests())

	w, err = objstore.Create(ctx, "s3://bkt/down.bin", false, &objstore.Options{Stall: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(body[:1<<20]); err != nil {
		t.Fatal(err)
	}
	p.Down()
	err = w.Commit()
	if !errors.Is(err, objstore.ErrUnreachable) || errors.Is(err, objstore.ErrExists) {
		t.Fatalf("a commit while the store is down: %v, want ErrUnreachable", err)
	}
	t.Log(err)
	p.UpAfter(0)()
	if ok, err := objstore.Exists(ctx, "s3://bkt/down.bin", nil); ok || err != nil {
		t.Fatalf("after a failed commit the object exists: %v, %v", ok, err)
	}
}

// TestServersAsCI checks that .ci/run installs the servers, at the
// versions, that the tests' skip messages name.
func TestServersAsCI(t *testing.T) {
	run, err := os.ReadFile(filepath.Join(repoRoot(t), ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		procserver.VersitygwInstall + "\n",
		procserver.AzuriteInstall + "\n",
	} {
		if !strings.Contains(string(run), want) {
			t.Errorf(".ci/run does not hold %q: change the tests' version or .ci/run", strings.TrimSpace(want))
		}
	}
}
