package trevni_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/remote/store"
)

// memStore is a store.Store holding its objects in memory, each with a
// version that changes when it is replaced: a store a program hands in
// (OpenOptions.Stores) rather than a driver it links.
type memStore struct {
	mu      sync.Mutex
	objects map[string][]byte // by URL without its query
	version map[string]int
	next    int
}

func newMemStore() *memStore {
	return &memStore{objects: map[string][]byte{}, version: map[string]int{}}
}

func (m *memStore) put(name string, b []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.next++
	m.objects[name], m.version[name] = bytes.Clone(b), m.next
}

func (m *memStore) Open(_ context.Context, name string, _ *store.Options) (store.Object, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.objects[name]
	if !ok {
		return nil, fmt.Errorf("%s: no such object", name)
	}
	return &memObject{m: m, name: name, b: b, version: m.version[name]}, nil
}

func (m *memStore) List(_ context.Context, pattern string, _ *store.Options) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for name := range m.objects {
		if ok, _ := path.Match(pattern, name); ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (m *memStore) Create(_ context.Context, name string, replace bool, _ *store.Options) (store.Writer, error) {
	if ok, _ := m.Exists(context.Background(), name, nil); ok && !replace {
		return nil, fmt.Errorf("%s: %w", name, trevni.ErrExists)
	}
	return &memWriter{m: m, name: name}, nil
}

func (m *memStore) Exists(_ context.Context, name string, _ *store.Options) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.objects[name]
	return ok, nil
}

func (m *memStore) Remove(_ context.Context, name string, _ *store.Options) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.objects, name)
	return nil
}

func (m *memStore) Move(ctx context.Context, from, to string, replace bool, _ *store.Options) error {
	o, err := m.Open(ctx, from, nil)
	if err != nil {
		return err
	}
	m.put(to, o.(*memObject).b)
	return m.Remove(ctx, from, nil)
}

// memObject is an object of a memStore, pinned to the version opened.
type memObject struct {
	m       *memStore
	name    string
	b       []byte
	version int
}

func (o *memObject) ReadAt(p []byte, off int64) (int, error) {
	o.m.mu.Lock()
	v := o.m.version[o.name]
	o.m.mu.Unlock()
	if v != o.version {
		return 0, fmt.Errorf("%s: %w", o.name, store.ErrChanged)
	}
	return bytes.NewReader(o.b).ReadAt(p, off)
}

func (o *memObject) Size() int64     { return int64(len(o.b)) }
func (o *memObject) Version() string { return fmt.Sprint(o.version) }
func (o *memObject) Close() error    { return nil }

// memWriter uploads an object that appears on Commit.
type memWriter struct {
	m    *memStore
	name string
	buf  bytes.Buffer
}

func (w *memWriter) Write(p []byte) (int, error) { return w.buf.Write(p) }
func (w *memWriter) Commit() error               { w.m.put(w.name, w.buf.Bytes()); return nil }
func (w *memWriter) Abort() error                { return nil }
func (w *memWriter) TempDir() string             { return "" }

// A URL of a store whose driver the program does not link fails with
// store.ErrNoDriver naming the import; a store handed in through
// OpenOptions.Stores and WriteOptions.Stores, for a scheme of the program's
// own or in place of a driver, reads and writes objects as a file: the
// records are those of the local file, a glob over the keys opens the
// parts, and an object replaced since the data set was opened fails the
// read with store.ErrChanged.
func TestStoresHandedIn(t *testing.T) {
	ctx := context.Background()
	src := "testdata/interop/nested_records/input.avro"
	for _, name := range []string{"s3://bkt/x.trv", "gs://bkt/x.trv", "azblob://c/x.trv"} {
		_, err := trevni.Open(ctx, name, nil)
		if !errors.Is(err, store.ErrNoDriver) || !strings.Contains(err.Error(), "github.com/trevni-go/trevni/stores/"+store.Scheme(name)) {
			t.Errorf("%s with no driver linked: %v", name, err)
		}
		if _, err := trevni.ConvertAvro(ctx, name, src, nil); !errors.Is(err, store.ErrNoDriver) {
			t.Errorf("writing %s with no driver linked: %v", name, err)
		}
	}

	local, err := trevni.Open(ctx, "testdata/interop/nested_records/nested_records.snappy.crc32.trv", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := records(t, local)
	for _, scheme := range []string{"mem", "s3"} {
		m := newMemStore()
		stores := map[string]store.Store{scheme: m}
		wopts := &trevni.WriteOptions{Stores: stores}
		dir := scheme + "://bkt/parts/"
		n, err := trevni.ConvertAvro(ctx, dir+"a.trv", src, wopts)
		if err != nil {
			t.Fatalf("%s: %v", scheme, err)
		}
		if _, err := trevni.ConvertAvro(ctx, dir+"a.trv", src, wopts); !errors.Is(err, trevni.ErrExists) {
			t.Errorf("%s: writing over an object: %v", scheme, err)
		}
		// The source from the store as well.
		avro, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		m.put(dir+"in.avro", avro)
		if n2, err := trevni.ConvertAvro(ctx, dir+"b.trv", dir+"in.avro", wopts); err != nil || n2 != n {
			t.Fatalf("%s: from the store: %d records, %v (want %d)", scheme, n2, err, n)
		}
		opts := &trevni.OpenOptions{Stores: stores}
		ds, err := trevni.Open(ctx, dir+"*.trv", opts)
		if err != nil {
			t.Fatalf("%s: %v", scheme, err)
		}
		var parts []string
		for _, p := range ds.Parts() {
			parts = append(parts, p.Name())
		}
		if !slices.Equal(parts, []string{dir + "a.trv", dir + "b.trv"}) {
			t.Errorf("%s: parts %q", scheme, parts)
		}
		if got := records(t, ds); !reflect.DeepEqual(got, append(slices.Clone(want), want...)) {
			t.Errorf("%s: %d records, want %d", scheme, len(got), 2*len(want))
		}
		m.put(dir+"a.trv", m.objects[dir+"b.trv"]) // the same bytes, another version
		var rerr error
		for _, err := range ds.All(ctx, nil) {
			if err != nil {
				rerr = err
				break
			}
		}
		if !errors.Is(rerr, store.ErrChanged) {
			t.Errorf("%s: reading an object replaced since the open: %v", scheme, rerr)
		}
	}
}

func records(t *testing.T, ds *trevni.Dataset) []any {
	t.Helper()
	var out []any
	for rec, err := range ds.All(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}
