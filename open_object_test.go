package trevni_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/remote/httpread"
	"github.com/trevni-go/trevni/remote/store"
)

// objectFile is the file the OpenObject tests read, by every way a name
// is opened; os.ReadFile's bytes are the truth.
const objectFile = "testdata/interop/primitives/primitives.deflate.crc32.trv"

// sameBytes reads all of o, whole and in odd pieces at odd offsets, and
// compares it with want.
func sameBytes(t *testing.T, what string, o *trevni.Object, want []byte) {
	t.Helper()
	if o.Size() != int64(len(want)) {
		t.Fatalf("%s: size %d, want %d", what, o.Size(), len(want))
	}
	got, err := io.ReadAll(io.NewSectionReader(o, 0, o.Size()))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s: read whole: %d bytes equal=%v, %v", what, len(got), bytes.Equal(got, want), err)
	}
	for off := int64(0); off < o.Size(); off += 97 {
		p := make([]byte, 13)
		n, err := o.ReadAt(p, off)
		end := min(off+13, o.Size())
		if n != int(end-off) || !bytes.Equal(p[:n], want[off:end]) || (err != nil && err != io.EOF) {
			t.Fatalf("%s: ReadAt(13, %d) = %d, %v", what, off, n, err)
		}
	}
	if n, err := o.ReadAt(make([]byte, 1), o.Size()); n != 0 || err == nil {
		t.Fatalf("%s: a read past the end gave %d, %v", what, n, err)
	}
}

func TestOpenObjectLocal(t *testing.T) {
	want, err := os.ReadFile(objectFile)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	o, err := trevni.OpenObject(ctx, objectFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "local", o, want)
	if o.Name() != objectFile || o.Version() != "" || o.Fetched() != (trevni.Fetched{}) {
		t.Errorf("name %q version %q fetched %+v", o.Name(), o.Version(), o.Fetched())
	}
	cancel()
	if _, err := o.ReadAt(make([]byte, 4), 0); !errors.Is(err, context.Canceled) {
		t.Errorf("a read after the context ended: %v", err)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if err := o.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}

	for name, wantErr := range map[string]string{
		"testdata":         "testdata: is a directory",
		"-":                "standard input: open it with OpenObjectStream",
		"testdata/nothing": "open testdata/nothing: no such file or directory",
	} {
		if o, err := trevni.OpenObject(context.Background(), name, nil); err == nil || err.Error() != wantErr {
			t.Errorf("%s: %v, %v; want %q", name, o, err, wantErr)
		}
	}
}

func TestOpenObjectURL(t *testing.T) {
	want, err := os.ReadFile(objectFile)
	if err != nil {
		t.Fatal(err)
	}
	ranged := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		http.ServeContent(w, r, "p.trv", time.Time{}, bytes.NewReader(want))
	}))
	defer ranged.Close()
	ctx := context.Background()
	o, err := trevni.OpenObject(ctx, ranged.URL+"/p.trv", nil)
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "ranged", o, want)
	if f := o.Fetched(); o.Version() != `"v1"` || f.Requests == 0 || f.Bytes < int64(len(want)) {
		t.Errorf("version %q, fetched %+v", o.Version(), f)
	}
	o.Close()

	// A server that serves no ranges: the file is downloaded, within
	// MaxDownload, into TempDir, and the copy goes with Close.
	whole := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(want)))
		if r.Method != http.MethodHead {
			w.Write(want)
		}
	}))
	defer whole.Close()
	dir := t.TempDir()
	o, err = trevni.OpenObject(ctx, whole.URL+"/p.trv", &trevni.OpenOptions{TempDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "downloaded", o, want)
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("the download: %d files in TempDir", len(left))
	}
	o.Close()
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("Close left %d files in TempDir", len(left))
	}
	_, err = trevni.OpenObject(ctx, whole.URL+"/p.trv", &trevni.OpenOptions{TempDir: dir, MaxDownload: 100})
	if !errors.Is(err, trevni.ErrTooLarge) {
		t.Errorf("past MaxDownload: %v", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("a refused download left %d files", len(left))
	}

	// A server that stops sending: ErrTimeout, by the client's timeout.
	stall := make(chan struct{})
	stalled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Range", "bytes 0-"+strconv.Itoa(len(want)-1)+"/"+strconv.Itoa(len(want)))
			w.WriteHeader(http.StatusPartialContent)
			w.Write(want[:1])
			w.(http.Flusher).Flush()
			<-stall
			return
		}
		http.ServeContent(w, r, "p.trv", time.Time{}, bytes.NewReader(want))
	}))
	defer stalled.Close()
	defer close(stall)
	hc := httpread.New(&httpread.Options{IdleTimeout: 100 * time.Millisecond})
	o, err = trevni.OpenObject(ctx, stalled.URL+"/p.trv", &trevni.OpenOptions{HTTP: hc})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if _, err := o.ReadAt(make([]byte, 100), 0); !errors.Is(err, trevni.ErrTimeout) {
		t.Errorf("a stalled read: %v", err)
	}
}

func TestOpenObjectStore(t *testing.T) {
	want, err := os.ReadFile(objectFile)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	m := newMemStore()
	m.put("mem://bkt/p.trv", want)
	opts := &trevni.OpenOptions{Stores: map[string]store.Store{"mem": m}}
	o, err := trevni.OpenObject(ctx, "mem://bkt/p.trv", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	sameBytes(t, "store", o, want)
	if f := o.Fetched(); o.Version() == "" || f.Requests == 0 || f.Bytes < int64(len(want)) {
		t.Errorf("version %q, fetched %+v", o.Version(), f)
	}
	// Pinned to the version opened: a replaced object fails the reads.
	m.put("mem://bkt/p.trv", append([]byte("Trv\x02"), want[4:]...))
	if _, err := o.ReadAt(make([]byte, 4), 0); !errors.Is(err, trevni.ErrChanged) {
		t.Errorf("a read of a replaced object: %v", err)
	}
	if _, err := trevni.OpenObject(ctx, "mem://bkt/none.trv", opts); err == nil {
		t.Error("a missing object opened")
	}
	if _, err := trevni.OpenObject(ctx, "s3://bkt/p.trv", nil); !errors.Is(err, store.ErrNoDriver) {
		t.Errorf("a store with no driver: %v", err)
	}
}

// streamOnly hides every method of a reader but Read.
type streamOnly struct{ io.Reader }

func TestOpenObjectStream(t *testing.T) {
	want, err := os.ReadFile(objectFile)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	opts := &trevni.OpenOptions{TempDir: dir}

	// In place: a *bytes.Reader, and a regular file from its offset.
	o, err := trevni.OpenObjectStream(ctx, bytes.NewReader(want), "-", opts)
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "bytes.Reader", o, want)
	o.Close()
	f, err := os.Open(objectFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(10, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	o, err = trevni.OpenObjectStream(ctx, f, "-", opts)
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "file at 10", o, want[10:])
	o.Close()

	// A stream: copied, the copy's name gone at once.
	o, err = trevni.OpenObjectStream(ctx, streamOnly{bytes.NewReader(want)}, "-", opts)
	if err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("the copy left %d names in TempDir", len(left))
	}
	sameBytes(t, "stream", o, want)
	o.Close()

	// A failing stream, and a context that ended: errors, naming it.
	failing := io.MultiReader(bytes.NewReader(want[:100]), iotestErr{})
	if _, err := trevni.OpenObjectStream(ctx, failing, "in.trv", opts); err == nil || err.Error() != "in.trv: cannot read: broken" {
		t.Errorf("a failing stream: %v", err)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := trevni.OpenObjectStream(done, streamOnly{bytes.NewReader(want)}, "-", opts); !errors.Is(err, context.Canceled) {
		t.Errorf("a copy after the context ended: %v", err)
	}
}

// iotestErr is a reader that fails.
type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, errors.New("broken") }
