// Package procserver starts, for tests, the stores' servers that no one
// here wrote as processes on the loopback address, as users run them:
// Azurite (Microsoft's Azure Storage emulator, npm's azurite) and
// Versity's S3 gateway versitygw (built from the Go module proxy), which
// .ci/run installs into .ci/azurite and .ci/versitygw. A test that needs
// one and does not find it fails under CI (CI set) and is skipped
// elsewhere, loudly, naming the command that installs it. It is for
// tests only.
package procserver

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// The versions .ci/run installs.
const (
	AzuriteVersion   = "3.37.0"
	VersitygwVersion = "v1.8.0"
)

// The commands that install the servers, run at the repository's root,
// as .ci/run runs them.
const (
	AzuriteInstall   = "npm install --prefix .ci/azurite --no-audit --no-fund --silent azurite@" + AzuriteVersion
	VersitygwInstall = `GOBIN="$PWD/.ci/versitygw" go install github.com/versity/versitygw/cmd/versitygw@` + VersitygwVersion
)

// Missing skips the test, or fails it under CI, for want of what msg
// names.
func Missing(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("CI is set and %s", msg)
	}
	t.Skip("SKIPPED, NOT RUN: " + msg)
}

// LaunchWait bounds the start of a server: Node's start of Azurite took
// over a minute on a loaded 2-core machine.
const LaunchWait = 5 * time.Minute

// Launch starts cmd and waits until ready reports true (polled), for up
// to LaunchWait; stop ends it.
func Launch(cmd *exec.Cmd, ready func() bool) (stop func(), err error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	stop = func() {
		cmd.Process.Kill()
		<-exited
	}
	for deadline := time.Now().Add(LaunchWait); !ready(); {
		select {
		case <-exited:
			return nil, fmt.Errorf("%s exited: %s", cmd.Path, out.String())
		default:
		}
		if time.Now().After(deadline) {
			stop()
			return nil, fmt.Errorf("%s not ready after %v: %s", cmd.Path, LaunchWait, out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	return stop, nil
}

// Answers reports whether an HTTP GET of u gets an answer, any.
func Answers(u string) bool {
	resp, err := http.Get(u)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return true
}

// FreePort returns a loopback port no one listens on.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// RepoRoot returns the repository's root: the first directory holding
// .ci above the working directory's module.
func RepoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	start := filepath.Dir(string(bytes.TrimSpace(out)))
	for dir := start; ; {
		if _, err := os.Stat(filepath.Join(dir, ".ci")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return start, nil
		}
		dir = up
	}
}

// Azurite's well-known account and key (the same in every installation).
const (
	AzuriteAccount = "devstoreaccount1"
	AzuriteKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// AzuriteBinary returns Azurite's blob service program (TREVNI_AZURITE,
// or .ci/azurite's), or why there is none.
func AzuriteBinary() (bin, missing string) {
	bin = os.Getenv("TREVNI_AZURITE")
	if bin == "" {
		root, err := RepoRoot()
		if err != nil {
			return "", err.Error()
		}
		bin = filepath.Join(root, ".ci", "azurite", "node_modules", ".bin", "azurite-blob")
	}
	if _, err := os.Stat(bin); err != nil {
		return "", "Azurite is not installed: run `" + AzuriteInstall + "` at the repository's root (as .ci/run does), or set TREVNI_AZURITE to its azurite-blob"
	}
	return bin, ""
}

// LaunchAzurite starts Azurite's blob service bin on the loopback
// address, at port (0: a free one), in memory, and returns its
// host:port.
func LaunchAzurite(bin string, port int) (host string, stop func(), err error) {
	if port == 0 {
		if port, err = FreePort(); err != nil {
			return "", nil, err
		}
	}
	host = "127.0.0.1:" + strconv.Itoa(port)
	dir, err := os.MkdirTemp("", "azurite")
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(bin, "--blobHost", "127.0.0.1", "--blobPort", strconv.Itoa(port),
		"--inMemoryPersistence", "--skipApiVersionCheck", "--loose")
	cmd.Dir = dir
	kill, err := Launch(cmd, func() bool { return Answers("http://" + host + "/" + AzuriteAccount + "?comp=list") })
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return host, func() { kill(); os.RemoveAll(dir) }, nil
}

// StartAzurite starts an Azurite of the test's own, at port (0: a free
// one), ended when the test ends, and returns its host:port.
func StartAzurite(t testing.TB, port int) string {
	t.Helper()
	bin, msg := AzuriteBinary()
	if msg != "" {
		Missing(t, msg)
	}
	host, stop, err := LaunchAzurite(bin, port)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return host
}

// The root user's keys an S3 process is started with.
const (
	S3Access = "trevni-test-access"
	S3Secret = "trevni-test-secret-key"
)

// VersitygwBinary returns versitygw's program (TREVNI_VERSITYGW, or
// .ci/versitygw's), or fails the test under CI and skips it elsewhere,
// naming the command that installs it.
func VersitygwBinary(t testing.TB) string {
	t.Helper()
	bin := os.Getenv("TREVNI_VERSITYGW")
	if bin == "" {
		root, err := RepoRoot()
		if err != nil {
			t.Fatal(err)
		}
		bin = filepath.Join(root, ".ci", "versitygw", "versitygw")
	}
	if _, err := os.Stat(bin); err != nil {
		Missing(t, "the S3 server versitygw is not installed: run `"+VersitygwInstall+"` at the repository's root (as .ci/run does), or set TREVNI_VERSITYGW to its program")
	}
	return bin
}

// S3 is a versitygw serving a directory (its posix backend: a bucket is
// a directory), which can be stopped and started again on the same port
// and directory: a store restarting.
type S3 struct {
	t    testing.TB
	bin  string
	dir  string
	port int
	stop func()
}

// StartS3 starts versitygw at a free port over a directory of its own
// holding the buckets named, ending it when the test ends.
func StartS3(t testing.TB, buckets ...string) *S3 {
	t.Helper()
	p := &S3{t: t, bin: VersitygwBinary(t), dir: t.TempDir()}
	var err error
	if p.port, err = FreePort(); err != nil {
		t.Fatal(err)
	}
	for _, b := range buckets {
		if err := os.Mkdir(filepath.Join(p.dir, b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Up(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Down)
	return p
}

// Up starts the process (again).
func (p *S3) Up() error {
	if p.stop != nil {
		return errors.New("versitygw is running")
	}
	cmd := exec.Command(p.bin, "--access", S3Access, "--secret", S3Secret, "--region", "us-east-1",
		"--port", "127.0.0.1:"+strconv.Itoa(p.port), "--quiet", "posix", p.dir)
	stop, err := Launch(cmd, func() bool { return Answers(p.Endpoint()) })
	if err != nil {
		return err
	}
	p.stop = stop
	return nil
}

// Down ends the process (its connections go with it).
func (p *S3) Down() {
	if p.stop != nil {
		p.stop()
		p.stop = nil
	}
}

// UpAfter starts the process again after d, and returns the function
// that waits until it has (failing the test if it did not).
func (p *S3) UpAfter(d time.Duration) (wait func()) {
	done := make(chan error, 1)
	go func() {
		time.Sleep(d)
		done <- p.Up()
	}()
	return func() {
		if err := <-done; err != nil {
			p.t.Fatalf("versitygw did not start again: %v", err)
		}
	}
}

// Endpoint returns the server's URL.
func (p *S3) Endpoint() string { return "http://127.0.0.1:" + strconv.Itoa(p.port) }
