package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/trevni-go/trevni/stores/objstore"
	"github.com/trevni-go/trevni/stores/storetest/procserver"
	"github.com/trevni-go/trevni/stores/storetest/s3server"
)

// The stores' emulators as processes, as users run them: Azurite (npm's
// azurite, which .ci/run installs into .ci/azurite) and fake-gcs-server
// (built from the Go module proxy, at the version go.mod requires). A
// test that needs one and does not find it fails under CI (CI set) and
// is skipped elsewhere, saying what installs it.

// moduleRoot returns the directory of the module's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || len(bytes.TrimSpace(out)) == 0 {
		t.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(string(bytes.TrimSpace(out)))
}

// missing skips the test, or fails it under CI, for want of what msg
// names.
func missing(t *testing.T, msg string) {
	t.Helper()
	procserver.Missing(t, msg)
}

// freePort returns a loopback port no one listens on.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// portFree reports whether port is free on the loopback address.
func portFree(port int) bool {
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

// startProcess starts cmd, ending it when the test ends, and waits until
// ready reports true (polled), for up to launchWait.
func startProcess(t *testing.T, cmd *exec.Cmd, ready func() bool) {
	t.Helper()
	stop, err := launch(cmd, ready)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
}

// launch starts cmd and waits until ready reports true (polled); stop
// ends it.
var launch = procserver.Launch

// sharedAzurite is the Azurite the tests share (at a free port), started
// by the first that needs it and ended by TestMain.
var sharedAzurite struct {
	once    sync.Once
	host    string
	missing string // why there is none: not installed
	err     error
	stop    func()
}

// azurite returns the host:port of the shared Azurite.
func azurite(t *testing.T) string {
	t.Helper()
	sa := &sharedAzurite
	sa.once.Do(func() {
		bin, msg := procserver.AzuriteBinary()
		if msg != "" {
			sa.missing = msg
			return
		}
		sa.host, sa.stop, sa.err = procserver.LaunchAzurite(bin, 0)
	})
	if sa.missing != "" {
		missing(t, sa.missing)
	}
	if sa.err != nil {
		t.Fatal(sa.err)
	}
	return sa.host
}

func TestMain(m *testing.M) {
	code := m.Run()
	if sharedAzurite.stop != nil {
		sharedAzurite.stop()
	}
	os.Exit(code)
}

// answers reports whether an HTTP GET of u gets an answer, any.
var answers = procserver.Answers

// Azurite's well-known account and key (the same in every installation).
const (
	azuriteAccount = procserver.AzuriteAccount
	azuriteKey     = procserver.AzuriteKey
)

// startAzurite starts an Azurite of the test's own, at port (0: a free
// one), and returns its host:port.
func startAzurite(t *testing.T, port int) string {
	t.Helper()
	return procserver.StartAzurite(t, port)
}

// azureEnv points Azure's environment at the Azurite at host with its
// account and key, clearing the rest.
func azureEnv(t *testing.T, host string) {
	for k, v := range map[string]string{
		"AZURE_STORAGE_ACCOUNT": azuriteAccount, "AZURE_STORAGE_KEY": azuriteKey,
		"AZURE_STORAGE_DOMAIN": host, "AZURE_STORAGE_PROTOCOL": "http",
		"AZURE_STORAGE_SAS_TOKEN": "", "AZURE_STORAGE_CONNECTION_STRING": "", "AZURE_STORAGEBLOB_CONNECTIONSTRING": "",
		"AZURE_STORAGE_IS_LOCAL_EMULATOR": "", "AZURE_STORAGE_IS_CDN": "",
	} {
		t.Setenv(k, v)
	}
}

// createContainer creates the container name of the Azurite at host, if
// it does not exist.
func createContainer(t *testing.T, host, name string) {
	t.Helper()
	cred, err := container.NewSharedKeyCredential(azuriteAccount, azuriteKey)
	if err != nil {
		t.Fatal(err)
	}
	c, err := container.NewClientWithSharedKeyCredential("http://"+host+"/"+azuriteAccount+"/"+name, cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(context.Background(), nil); err != nil && !bloberror.HasCode(err, bloberror.ContainerAlreadyExists) {
		t.Fatalf("create container %s: %v", name, err)
	}
}

// fakeGCSBinary returns fake-gcs-server's program: TREVNI_FAKE_GCS_SERVER,
// or one built from the module proxy at the version go.mod requires, kept
// in the user's cache directory.
func fakeGCSBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("TREVNI_FAKE_GCS_SERVER"); bin != "" {
		return bin
	}
	root := moduleRoot(t)
	v, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "github.com/fsouza/fake-gcs-server").Output()
	if err != nil {
		t.Fatalf("the version of fake-gcs-server: %v", err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	bin := filepath.Join(cache, "trevni-go", "fake-gcs-server-"+strings.TrimSpace(string(v)))
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	build := exec.Command("go", "build", "-o", bin, "github.com/fsouza/fake-gcs-server")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		missing(t, fmt.Sprintf("fake-gcs-server could not be built (go build -o %s github.com/fsouza/fake-gcs-server): %v: %s", bin, err, out))
	}
	return bin
}

// startFakeGCS starts fake-gcs-server on the loopback address, in memory,
// holding the bucket bkt, and returns its host:port.
func startFakeGCS(t *testing.T) string {
	t.Helper()
	port := freePort(t)
	host := "127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command(fakeGCSBinary(t), "-scheme", "http", "-host", "127.0.0.1", "-port", strconv.Itoa(port),
		"-backend", "memory", "-log-level", "error", "-external-url", "http://"+host, "-public-host", host)
	startProcess(t, cmd, func() bool { return answers("http://" + host + "/storage/v1/b") })
	resp, err := http.Post("http://"+host+"/storage/v1/b?project=test", "application/json", strings.NewReader(`{"name":"bkt"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("create bucket bkt: %s", resp.Status)
	}
	return host
}

// roundTrip writes, reads, lists, moves and removes objects named by u,
// and checks the errors of a conflicting write and of an object changed
// while it is read.
func roundTrip(t *testing.T, u func(key string) string) {
	t.Helper()
	ctx := context.Background()
	put := func(key string, body []byte, replace bool) error {
		w, err := objstore.Create(ctx, u(key), replace, nil)
		if err != nil {
			return err
		}
		if _, err := w.Write(body); err != nil {
			w.Abort()
			return err
		}
		return w.Commit()
	}
	body := data(3 << 20)
	if err := put("dir/a.trv", body, false); err != nil {
		t.Fatal(err)
	}
	if err := put("dir/a.trv", body[:10], false); !errors.Is(err, objstore.ErrExists) {
		t.Fatalf("a create over an object: %v, want ErrExists", err)
	}
	o, err := objstore.Open(ctx, u("dir/a.trv"), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 1<<20)
	if _, err := o.ReadAt(got, 1000); err != nil || !bytes.Equal(got, body[1000:1000+len(got)]) {
		t.Fatalf("read back: %v", err)
	}
	o.Close()
	if l, err := objstore.List(ctx, u("dir/*.trv"), nil); err != nil || len(l) != 1 || l[0] != u("dir/a.trv") {
		t.Fatalf("list: %q, %v", l, err)
	}
	if err := objstore.Move(ctx, u("dir/a.trv"), u("dir/b.trv"), false, nil); err != nil {
		t.Fatal(err)
	}
	if ok, err := objstore.Exists(ctx, u("dir/a.trv"), nil); ok || err != nil {
		t.Fatalf("the source of a move exists: %v, %v", ok, err)
	}
	o, err = objstore.Open(ctx, u("dir/b.trv"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if err := put("dir/b.trv", body[:100], true); err != nil {
		t.Fatal(err)
	}
	if _, err := o.ReadAt(got, 1<<20); !errors.Is(err, objstore.ErrChanged) {
		t.Fatalf("a read of an object replaced by a shorter one: %v, want ErrChanged", err)
	}
	if err := objstore.Remove(ctx, u("dir/b.trv"), nil); err != nil {
		t.Fatal(err)
	}
	if ok, err := objstore.Exists(ctx, u("dir/b.trv"), nil); ok || err != nil {
		t.Fatalf("a removed object exists: %v, %v", ok, err)
	}
}

// TestEmulators: the round trip against the stores' emulators as
// processes (Azurite, fake-gcs-server; S3's in process), with and
// without AWS_CA_BUNDLE, addressed each way docs/places.md gives.
func TestEmulators(t *testing.T) {
	az := azurite(t)
	gs := startFakeGCS(t)
	var devHost string // an Azurite at the usual port, for UseDevelopmentStorage=true alone
	if portFree(10000) {
		devHost = startAzurite(t, 10000)
	}
	for _, bundle := range []string{"", "/etc/ssl/certs/ca-certificates.crt"} {
		t.Run("AWS_CA_BUNDLE="+bundle, func(t *testing.T) {
			if bundle != "" {
				if _, err := os.Stat(bundle); err != nil {
					t.Skipf("no CA bundle at %s", bundle)
				}
			}
			t.Setenv("AWS_CA_BUNDLE", bundle)
			for i, c := range []struct {
				name string
				env  func(t *testing.T, n int) func(key string) string
			}{
				{"s3 in process", func(t *testing.T, n int) func(string) string {
					s3server.Start(t, "bkt")
					return func(k string) string { return "s3://bkt/" + k }
				}},
				{"azblob environment", func(t *testing.T, n int) func(string) string {
					azureEnv(t, az)
					createContainer(t, az, fmt.Sprintf("ctr-%d", n))
					return func(k string) string { return fmt.Sprintf("azblob://ctr-%d/%s", n, k) }
				}},
				{"azblob query", func(t *testing.T, n int) func(string) string {
					azureEnv(t, "")
					t.Setenv("AZURE_STORAGE_PROTOCOL", "")
					createContainer(t, az, fmt.Sprintf("ctr-%d", n))
					return func(k string) string { return fmt.Sprintf("azblob://ctr-%d/%s?domain=%s&protocol=http", n, k, az) }
				}},
				{"azblob connection string", func(t *testing.T, n int) func(string) string {
					azureEnv(t, "")
					t.Setenv("AZURE_STORAGE_ACCOUNT", "")
					t.Setenv("AZURE_STORAGE_KEY", "")
					t.Setenv("AZURE_STORAGE_CONNECTION_STRING", fmt.Sprintf("DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;BlobEndpoint=http://%s/%s;", azuriteAccount, azuriteKey, az, azuriteAccount))
					createContainer(t, az, fmt.Sprintf("ctr-%d", n))
					return func(k string) string { return fmt.Sprintf("azblob://ctr-%d/%s", n, k) }
				}},
				{"azblob UseDevelopmentStorage with its proxy", func(t *testing.T, n int) func(string) string {
					azureEnv(t, "")
					t.Setenv("AZURE_STORAGE_ACCOUNT", "")
					t.Setenv("AZURE_STORAGE_KEY", "")
					t.Setenv("AZURE_STORAGE_CONNECTION_STRING", "UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://"+az)
					createContainer(t, az, fmt.Sprintf("ctr-%d", n))
					return func(k string) string { return fmt.Sprintf("azblob://ctr-%d/%s", n, k) }
				}},
				{"azblob UseDevelopmentStorage", func(t *testing.T, n int) func(string) string {
					if devHost == "" {
						t.Skip("SKIPPED, NOT RUN: port 10000, Azurite's usual one, is taken")
					}
					azureEnv(t, "")
					t.Setenv("AZURE_STORAGE_ACCOUNT", "")
					t.Setenv("AZURE_STORAGE_KEY", "")
					t.Setenv("AZURE_STORAGE_CONNECTION_STRING", "UseDevelopmentStorage=true")
					createContainer(t, devHost, fmt.Sprintf("ctr-%d", n))
					return func(k string) string { return fmt.Sprintf("azblob://ctr-%d/%s", n, k) }
				}},
				{"gs STORAGE_EMULATOR_HOST", func(t *testing.T, n int) func(string) string {
					t.Setenv("STORAGE_EMULATOR_HOST", gs)
					return func(k string) string { return fmt.Sprintf("gs://bkt/%d/%s", n, k) }
				}},
				{"gs endpoint /storage/v1/", func(t *testing.T, n int) func(string) string {
					t.Setenv("STORAGE_EMULATOR_HOST", "")
					return func(k string) string {
						return fmt.Sprintf("gs://bkt/%d/%s?anonymous=true&endpoint=http://%s/storage/v1/", n, k, gs)
					}
				}},
			} {
				t.Run(c.name, func(t *testing.T) {
					n := i
					if bundle != "" {
						n += 100
					}
					roundTrip(t, c.env(t, n))
				})
			}
		})
	}
}

// TestGCSFailedUploadLeavesNothing: against fake-gcs-server as a process,
// an upload whose second chunk stalls past Options.Stall fails, and
// leaves no object under its name, though the emulator completes the
// session with the first chunk when the driver asks its status.
func TestGCSFailedUploadLeavesNothing(t *testing.T) {
	gs := startFakeGCS(t)
	var chunks atomic.Int64
	var f *front
	next := proxy("http://"+gs, func() string { return f.URL() })
	f = startFront(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && r.URL.Query().Has("upload_id") && r.ContentLength > 0 && chunks.Add(1) > 1 {
			io.Copy(io.Discard, r.Body)
			<-r.Context().Done() // the second chunk and its retries hang
			return
		}
		next.ServeHTTP(w, r)
	}))
	t.Setenv("STORAGE_EMULATOR_HOST", f.addr)
	w, err := objstore.Create(context.Background(), "gs://bkt/out.trv", false, &objstore.Options{Stall: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.Write(data(20 << 20))
	if err == nil {
		err = w.Commit()
	} else {
		w.Abort()
	}
	if err == nil {
		t.Fatal("an upload whose chunk stalled succeeded")
	}
	t.Log(err)
	resp, err2 := http.Get("http://" + gs + "/storage/v1/b/bkt/o/out.trv")
	if err2 != nil {
		t.Fatal(err2)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("after the failed upload, the object's look answers %s, want 404 Not Found", resp.Status)
	}
	if !strings.Contains(err.Error(), "was removed") {
		t.Errorf("the error does not say the short object was removed: %v", err)
	}
}
