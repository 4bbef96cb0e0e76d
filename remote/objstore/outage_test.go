package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trevni-go/trevni/internal/gcsserver"
	"github.com/trevni-go/trevni/internal/s3server"
	"github.com/trevni-go/trevni/remote/objstore"
)

// front is a store's address that can go down and come back, as a store
// restarting does: down closes its listener and every connection (new
// ones are refused), up listens on the same address again. It passes the
// requests to next.
type front struct {
	t    *testing.T
	addr string
	next http.Handler
	mu   sync.Mutex
	srv  *http.Server
}

func startFront(t *testing.T, next http.Handler) *front {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &front{t: t, addr: ln.Addr().String(), next: next}
	f.serve(ln)
	t.Cleanup(f.down)
	return f
}

// URL returns the front's http:// URL.
func (f *front) URL() string { return "http://" + f.addr }

func (f *front) serve(ln net.Listener) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.srv = &http.Server{Handler: f.next}
	go f.srv.Serve(ln)
}

// down closes the listener and the connections.
func (f *front) down() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.srv != nil {
		f.srv.Close()
		f.srv = nil
	}
}

// up listens again on the same address, if it is down.
func (f *front) up() {
	f.mu.Lock()
	running := f.srv != nil
	f.mu.Unlock()
	if running {
		return
	}
	var ln net.Listener
	var err error
	for range 100 { // the address may take a moment to be free
		if ln, err = net.Listen("tcp", f.addr); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		f.t.Errorf("listen again on %s: %v", f.addr, err)
		return
	}
	f.serve(ln)
}

// upAfter brings the front up after d, and returns a wait for it.
func (f *front) upAfter(d time.Duration) (wait func()) {
	var wg sync.WaitGroup
	wg.Go(func() {
		time.Sleep(d)
		f.up()
	})
	return wg.Wait
}

// restartable runs test against S3's and GCS's servers in process and
// Azurite, each behind a front that the test takes down and brings back.
func restartable(t *testing.T, test func(t *testing.T, s *server, f *front)) {
	t.Run("s3", func(t *testing.T) {
		s3 := s3server.Start(t, "bkt")
		var f *front
		f = startFront(t, proxy(s3.URL, func() string { return f.URL() }))
		t.Setenv("AWS_ENDPOINT_URL", f.URL())
		test(t, &server{scheme: "s3", put: func(k string, b []byte) { s3.Put(t, "bkt", k, b) },
			get: func(k string) ([]byte, bool) { return s3.Get(t, "bkt", k) }, keys: func() []string { return s3.Keys(t, "bkt") },
			uploads: func() int { return s3.Uploads(t, "bkt") }}, f)
	})
	t.Run("gs", func(t *testing.T) {
		gs := gcsserver.Start(t, "bkt")
		var f *front
		f = startFront(t, proxy(gs.URL, func() string { return f.URL() }))
		t.Setenv("STORAGE_EMULATOR_HOST", f.addr)
		test(t, &server{scheme: "gs", put: func(k string, b []byte) { gs.Put(t, "bkt", k, b) },
			get: func(k string) ([]byte, bool) { return gs.Get(t, "bkt", k) }, keys: func() []string { return gs.Keys(t, "bkt") }}, f)
	})
	t.Run("azblob", func(t *testing.T) {
		az := startAzurite(t, 0)
		createContainer(t, az, "bkt")
		var f *front
		f = startFront(t, proxy("http://"+az, func() string { return f.URL() }))
		azureEnv(t, f.addr)
		get := func(k string) ([]byte, bool) {
			o, err := objstore.Open(context.Background(), "azblob://bkt/"+k, nil)
			if errors.Is(err, objstore.ErrNotFound) {
				return nil, false
			}
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			b := make([]byte, o.Size())
			if _, err := o.ReadAt(b, 0); err != nil {
				t.Fatal(err)
			}
			return b, true
		}
		put := func(k string, b []byte) {
			w, err := objstore.Create(context.Background(), "azblob://bkt/"+k, true, nil)
			if err == nil {
				if _, err = w.Write(b); err == nil {
					err = w.Commit()
				}
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		test(t, &server{scheme: "azblob", put: put, get: get}, f)
	})
}

// TestReadRidesOutRestart: a read made while the store is down (its
// connections refused) for a few seconds waits for it, backing off, and
// returns the object's bytes; one made while it stays down past the
// retry window (Options.Stall) fails with an error wrapping
// ErrUnreachable, not ErrChanged.
func TestReadRidesOutRestart(t *testing.T) {
	restartable(t, func(t *testing.T, s *server, f *front) {
		obj := data(1 << 20)
		s.put("obj", obj)
		ctx := context.Background()
		o, err := objstore.Open(ctx, s.url("obj"), &objstore.Options{Backoff: 20 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer o.Close()
		f.down()
		wait := f.upAfter(3 * time.Second)
		got := make([]byte, len(obj))
		n, err := o.ReadAt(got, 0)
		wait()
		if err != nil || n != len(obj) || !bytes.Equal(got, obj) {
			t.Fatalf("read across a restart: %d bytes, %v", n, err)
		}
		t.Logf("%d requests", o.Requests())

		short, err := objstore.Open(ctx, s.url("obj"), &objstore.Options{Backoff: 20 * time.Millisecond, Stall: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer short.Close()
		f.down()
		defer f.up()
		_, err = short.ReadAt(got[:100], 0)
		if !errors.Is(err, objstore.ErrUnreachable) || errors.Is(err, objstore.ErrChanged) {
			t.Fatalf("a read of a store down past the window: %v, want ErrUnreachable", err)
		}
		t.Log(err)
	})
}

// TestCommitStoreDown: a Commit made while the store is down fails with
// an error wrapping ErrUnreachable, never ErrExists (which the command
// line reports as a file created meanwhile), and leaves no object; S3's
// multipart upload is aborted once the store comes back within the abort
// window, and named in the error, with the command that aborts it, when
// it does not.
func TestCommitStoreDown(t *testing.T) {
	restartable(t, func(t *testing.T, s *server, f *front) {
		// The AWS SDK would try the look before the commit 3 times,
		// riding out a short outage: once here.
		t.Setenv("AWS_MAX_ATTEMPTS", "1")
		for _, replace := range []bool{false, true} {
			f.up()
			ctx := context.Background()
			w, err := objstore.Create(ctx, s.url("out.trv"), replace, &objstore.Options{Stall: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			// A multipart upload on S3, a resumable one on GCS, blocks
			// on Azure.
			body := data(map[string]int{"s3": 40 << 20, "gs": 12 << 20, "azblob": 4 << 20}[s.scheme])
			if _, err := w.Write(body); err != nil {
				t.Fatal(err)
			}
			f.down()
			outage := 2 * time.Second
			if s.scheme == "azblob" {
				outage = 15 * time.Second // past the Azure SDK's 4 tries of the look
			}
			wait := f.upAfter(outage)
			err = w.Commit()
			wait()
			got, ok := s.get("out.trv")
			switch {
			case err == nil && s.scheme != "s3" && replace:
				// GCS's upload retries its last chunk for longer than
				// the outage, Azure's SDK its requests.
				if !ok || !bytes.Equal(got, body) {
					t.Fatalf("replace=%v: a commit that succeeded left %d bytes, not the %d written", replace, len(got), len(body))
				}
				continue
			case err == nil || errors.Is(err, objstore.ErrExists) || !errors.Is(err, objstore.ErrUnreachable):
				t.Fatalf("replace=%v: Commit with the store down: %v, want ErrUnreachable and not ErrExists", replace, err)
			case ok:
				t.Fatalf("replace=%v: a failed commit left an object", replace)
			}
			t.Logf("replace=%v: %v", replace, err)
			if s.uploads != nil {
				if n := s.uploads(); n != 0 {
					t.Fatalf("replace=%v: %d multipart uploads left once the store came back", replace, n)
				}
			}
		}
		if s.uploads == nil {
			return
		}
		// Down past the abort window: the upload left is named.
		defer objstore.SetAbortWindow(500 * time.Millisecond)()
		w, err := objstore.Create(context.Background(), s.url("out.trv"), true, &objstore.Options{Stall: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data(40 << 20)); err != nil {
			t.Fatal(err)
		}
		f.down()
		err = w.Commit()
		f.up()
		if err == nil || !strings.Contains(err.Error(), "aws s3api abort-multipart-upload --bucket bkt --key out.trv --upload-id ") {
			t.Fatalf("Commit with the store down past the abort window: %v, want the upload named", err)
		}
		if n := s.uploads(); n != 1 {
			t.Fatalf("%d multipart uploads in progress, want the 1 named", n)
		}
		t.Log(err)
	})
}

// TestWithoutCABundle: S3 reads and writes work with and without
// AWS_CA_BUNDLE (with one, the AWS SDK makes the HTTP client; without,
// this package does).
func TestWithoutCABundle(t *testing.T) {
	for _, bundle := range []string{"", "/etc/ssl/certs/ca-certificates.crt"} {
		t.Run("bundle="+bundle, func(t *testing.T) {
			if bundle != "" {
				if _, err := os.Stat(bundle); err != nil {
					t.Skipf("no CA bundle at %s: %v", bundle, err)
				}
			}
			s3 := s3server.Start(t, "bkt")
			t.Setenv("AWS_CA_BUNDLE", bundle)
			obj := data(100_000)
			ctx := context.Background()
			w, err := objstore.Create(ctx, "s3://bkt/obj", false, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(obj); err != nil {
				t.Fatal(err)
			}
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			if got, ok := s3.Get(t, "bkt", "obj"); !ok || !bytes.Equal(got, obj) {
				t.Fatal("the object written differs")
			}
			o, err := objstore.Open(ctx, "s3://bkt/obj", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			got := make([]byte, len(obj))
			if _, err := o.ReadAt(got, 0); err != nil || !bytes.Equal(got, obj) {
				t.Fatalf("read back: %v", err)
			}
		})
	}
}

// ignorePin passes requests to next without the conditions that pin a
// read to a version (S3's If-Match, GCS's ifGenerationMatch), as stores
// that ignore them do.
func ignorePin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del("If-Match")
		q := r.URL.Query()
		if q.Has("ifGenerationMatch") && r.Method == http.MethodGet {
			q.Del("ifGenerationMatch")
			r.URL.RawQuery = q.Encode()
		}
		next.ServeHTTP(w, r)
	})
}

// TestShrunkIgnoringPin: an object replaced by a shorter one, on a store
// that ignores the pin of reads, fails a read past the new end with an
// error wrapping ErrChanged (the store answers 416), after one request.
func TestShrunkIgnoringPin(t *testing.T) {
	for _, scheme := range []string{"s3", "gs"} {
		t.Run(scheme, func(t *testing.T) {
			var put func(string, []byte)
			switch scheme {
			case "s3":
				s3 := s3server.Start(t, "bkt")
				f := startFront(t, ignorePin(proxy(s3.URL, func() string { return "" })))
				t.Setenv("AWS_ENDPOINT_URL", f.URL())
				put = func(k string, b []byte) { s3.Put(t, "bkt", k, b) }
			case "gs":
				gs := gcsserver.Start(t, "bkt")
				var f *front
				f = startFront(t, ignorePin(proxy(gs.URL, func() string { return f.URL() })))
				t.Setenv("STORAGE_EMULATOR_HOST", f.addr)
				put = func(k string, b []byte) { gs.Put(t, "bkt", k, b) }
			}
			put("obj", data(1<<20))
			o, err := objstore.Open(context.Background(), scheme+"://bkt/obj", &objstore.Options{Backoff: 10 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			put("obj", data(100))
			before := o.Requests()
			_, err = o.ReadAt(make([]byte, 1000), 500_000)
			if !errors.Is(err, objstore.ErrChanged) {
				t.Fatalf("read past the end of the shorter object: %v, want ErrChanged", err)
			}
			if n := o.Requests() - before; n != 1 {
				t.Errorf("%d requests, want 1 (a changed object is not retried)", n)
			}
			t.Log(err)
		})
	}
}
