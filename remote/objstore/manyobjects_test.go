package objstore_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/trevni-go/trevni/internal/gcsserver"
	"github.com/trevni-go/trevni/internal/s3server"
	"github.com/trevni-go/trevni/internal/testing/memtest"
	"github.com/trevni-go/trevni/remote/objstore"
)

// manyObjects is how many objects TestManyObjects reads: 10,000 in the
// long form (TREVNI_LONG_TESTS=1), 2,000 otherwise.
func manyObjects() int {
	if os.Getenv("TREVNI_LONG_TESTS") == "1" {
		return 10_000
	}
	return 2_000
}

// manyObjectSize is the size of each.
const manyObjectSize = 2 << 10

// manyObjectName is the name of object (or file) i.
func manyObjectName(i int) string { return fmt.Sprintf("part-%05d.trv", i) }

// TestManyObjects: the objects of a data set of many small parts, read
// by a process allowed 256 open descriptors (ulimit -n 256), each opened,
// read whole and closed by 8 workers, as the parts of a glob are, share
// one client and its connections per bucket: the reads succeed, and their
// peak heap is within twice that of the same parts read as local files
// (the bytes read are kept in both). On S3 with and without
// AWS_CA_BUNDLE (which the SDK parses for each client), on GCS, and on
// Azure (Azurite, 3,000 objects at most).
func TestManyObjects(t *testing.T) {
	n := manyObjects()
	body := data(manyObjectSize)
	local := t.TempDir()
	for i := range n {
		if err := os.WriteFile(filepath.Join(local, manyObjectName(i)), body, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	run := func(t *testing.T, prefix string, n int) {
		cmd := exec.Command("sh", "-c", `ulimit -n 256 && exec "$0" "$@"`, os.Args[0], "-test.run=^TestManyObjectsChild$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "TREVNI_MANY_OBJECTS_PREFIX="+prefix, "TREVNI_MANY_OBJECTS_DIR="+local,
			"TREVNI_MANY_OBJECTS_N="+strconv.Itoa(n))
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestManyObjectsChild") {
			t.Fatalf("the child reading %d objects with ulimit -n 256: %v\n%s", n, err, out)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, "peak heap") {
				t.Log(strings.TrimSpace(l))
			}
		}
	}
	for _, bundle := range []string{"", "/etc/ssl/certs/ca-certificates.crt"} {
		t.Run("s3 AWS_CA_BUNDLE="+bundle, func(t *testing.T) {
			if bundle != "" {
				if _, err := os.Stat(bundle); err != nil {
					t.Skipf("no CA bundle at %s", bundle)
				}
			}
			s3 := s3server.Start(t, "bkt")
			t.Setenv("AWS_CA_BUNDLE", bundle)
			for i := range n {
				s3.Put(t, "bkt", manyObjectName(i), body)
			}
			run(t, "s3://bkt/", n)
		})
	}
	t.Run("gs", func(t *testing.T) {
		gs := gcsserver.Start(t, "bkt")
		for i := range n {
			gs.Put(t, "bkt", manyObjectName(i), body)
		}
		run(t, "gs://bkt/", n)
	})
	t.Run("azblob", func(t *testing.T) {
		// Azurite stores about 30 blobs a second on a loaded machine:
		// 3,000 at most, far past the 256 descriptors all the same.
		n := min(n, 3_000)
		az := startAzurite(t, 0)
		azureEnv(t, az)
		createContainer(t, az, "bkt")
		var wg sync.WaitGroup
		var failed atomic.Int64
		next := atomic.Int64{}
		for range 16 {
			wg.Go(func() {
				for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
					w, err := objstore.Create(context.Background(), "azblob://bkt/"+manyObjectName(i), true, nil)
					if err == nil {
						if _, err = w.Write(body); err == nil {
							err = w.Commit()
						}
					}
					if err != nil && failed.Add(1) == 1 {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		if failed.Load() > 0 {
			t.FailNow()
		}
		objstore.CloseIdle()
		run(t, "azblob://bkt/", n)
	})
}

// TestManyObjectsChild is the process TestManyObjects starts; it runs
// only there.
func TestManyObjectsChild(t *testing.T) {
	prefix := os.Getenv("TREVNI_MANY_OBJECTS_PREFIX")
	if prefix == "" {
		t.Skip("the process that TestManyObjects starts; run by it")
	}
	n, err := strconv.Atoi(os.Getenv("TREVNI_MANY_OBJECTS_N"))
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("TREVNI_MANY_OBJECTS_DIR")
	// readAll reads the n parts with 8 workers, keeping their bytes.
	readAll := func(open func(i int) (io.ReaderAt, func() error, error)) (uint64, error) {
		kept := make([][]byte, n)
		return memtest.PeakHeap(func() error {
			var next atomic.Int64
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for range 8 {
				wg.Go(func() {
					for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
						r, done, err := open(i)
						if err == nil {
							kept[i] = make([]byte, manyObjectSize)
							_, err = r.ReadAt(kept[i], 0)
							if cerr := done(); err == nil {
								err = cerr
							}
						}
						if err != nil {
							errs <- fmt.Errorf("part %d: %w", i, err)
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			return <-errs
		})
	}
	localPeak, err := readAll(func(i int) (io.ReaderAt, func() error, error) {
		f, err := os.Open(filepath.Join(dir, manyObjectName(i)))
		if err != nil {
			return nil, nil, err
		}
		return f, f.Close, nil
	})
	if err != nil {
		t.Fatalf("local files: %v", err)
	}
	storePeak, err := readAll(func(i int) (io.ReaderAt, func() error, error) {
		o, err := objstore.Open(context.Background(), prefix+manyObjectName(i), nil)
		if err != nil {
			return nil, nil, err
		}
		return o, o.Close, nil
	})
	if err != nil {
		t.Fatalf("objects: %v", err)
	}
	t.Logf("%d parts: peak heap %.1f MB from the store, %.1f MB from local files", n, float64(storePeak)/1e6, float64(localPeak)/1e6)
	if storePeak > 2*localPeak {
		t.Errorf("the objects took a peak heap of %d bytes, more than twice the %d of local files", storePeak, localPeak)
	}
}
