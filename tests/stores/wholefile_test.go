// Package stores_test holds the tests of whole-file commands over an
// object store that need the core's converters (trevniparquet), which the
// stores module does not import: the store is one of the test's own, in
// process, handed to the front door (trevni.OpenOptions' Stores) as a
// program hands its own.
package stores_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/remote/store"
	"github.com/trevni-go/trevni/trevniparquet"
)

// memStore is a store of objects in memory that counts the requests
// (each ReadAt one ranged GET, each Open one look at the object) and the
// bytes it sends, as a store's server would.
type memStore struct {
	mu       sync.Mutex
	objects  map[string][]byte
	requests atomic.Int64
	sent     atomic.Int64
}

func (s *memStore) reset() { s.requests.Store(0); s.sent.Store(0) }

func (s *memStore) Open(ctx context.Context, name string, opts *store.Options) (store.Object, error) {
	s.mu.Lock()
	b, ok := s.objects[name]
	s.mu.Unlock()
	s.requests.Add(1)
	if !ok {
		return nil, fmt.Errorf("%s: %w", name, os.ErrNotExist)
	}
	return &memObject{s: s, b: b}, nil
}

func (s *memStore) List(ctx context.Context, pattern string, opts *store.Options) ([]string, error) {
	return nil, errors.New("memStore: no listing")
}

func (s *memStore) Create(ctx context.Context, name string, replace bool, opts *store.Options) (store.Writer, error) {
	return nil, errors.New("memStore: read only")
}

func (s *memStore) Exists(ctx context.Context, name string, opts *store.Options) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.objects[name]
	return ok, nil
}

func (s *memStore) Remove(ctx context.Context, name string, opts *store.Options) error {
	return errors.New("memStore: read only")
}

func (s *memStore) Move(ctx context.Context, from, to string, replace bool, opts *store.Options) error {
	return errors.New("memStore: read only")
}

type memObject struct {
	s *memStore
	b []byte
}

func (o *memObject) ReadAt(p []byte, off int64) (int, error) {
	o.s.requests.Add(1)
	if off >= int64(len(o.b)) {
		return 0, io.EOF
	}
	n := copy(p, o.b[off:])
	o.s.sent.Add(int64(n))
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (o *memObject) Size() int64     { return int64(len(o.b)) }
func (o *memObject) Version() string { return "1" }
func (o *memObject) Close() error    { return nil }

// event is a record of the large file: 40 MB of them, past the front
// door's 32 MiB read-ahead window, so that the reads come in many windows.
type event struct {
	ID    int64    `avro:"id"`
	Name  string   `avro:"name"`
	Tags  []string `avro:"tags"`
	Score float64  `avro:"score"`
}

// largeFile writes the large file: uncompressed, random words.
func largeFile(t *testing.T, name string) {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := trevni.NewStructWriter[event](f, "", &trevni.WriteOptions{Codec: trevni.NoCodec})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	word := func() string {
		b := make([]byte, 3+r.IntN(14))
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		return string(b)
	}
	batch := make([]event, 10000)
	for n := 0; n < 1200000; n += len(batch) {
		for i := range batch {
			e := &batch[i]
			e.ID, e.Name, e.Score = int64(n+i), word(), r.Float64()
			e.Tags = e.Tags[:0]
			for range r.IntN(3) {
				e.Tags = append(e.Tags, word())
			}
		}
		if _, err := w.Write(batch); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestParquetFromStoreAsWholeRead: writing Parquet from a data set on a
// store (the work of `trevni toparquet s3://...`) reads the file as a
// whole read of its records does (the work of `tojson`): each byte
// fetched once (at most 1.05 times the file) in at most twice the
// requests of the whole read; and the Parquet file is the one written
// from the same file on local disk, byte for byte. Java's medium vector,
// with blocks of 4 KiB (many small ones) and with the default size, and
// a file of 40 MB, past the read-ahead window (not compared with a local
// Parquet file: its counts are what it is for).
func TestParquetFromStoreAsWholeRead(t *testing.T) {
	ctx := context.Background()
	for _, c := range []string{"medium, blocks of 4 KiB", "medium", "large"} {
		t.Run(c, func(t *testing.T) {
			local := filepath.Join(t.TempDir(), "f.trv")
			if c == "large" {
				if testing.Short() {
					t.Skip("writes and reads 40 MB; skipped with -short")
				}
				largeFile(t, local)
			} else {
				opts := &trevni.WriteOptions{Codec: trevni.Snappy}
				if strings.Contains(c, "4 KiB") {
					opts.BlockSize = 4 << 10
				}
				if _, err := trevni.ConvertAvro(ctx, local, "../../testdata/interop/medium/input.avro", opts); err != nil {
					t.Fatal(err)
				}
			}
			b, err := os.ReadFile(local)
			if err != nil {
				t.Fatal(err)
			}
			const name = "s3://bkt/f.trv"
			s := &memStore{objects: map[string][]byte{name: b}}
			open := func(name string) *trevni.Dataset {
				ds, err := trevni.Open(ctx, name, &trevni.OpenOptions{Stores: map[string]store.Store{"s3": s}})
				if err != nil {
					t.Fatal(err)
				}
				return ds
			}

			ds := open(name)
			records := 0
			for _, err := range ds.All(ctx, nil) {
				if err != nil {
					t.Fatal(err)
				}
				records++
			}
			ds.Close()
			wholeReqs, wholeSent := s.requests.Load(), s.sent.Load()

			s.reset()
			ds = open(name)
			var fromStore bytes.Buffer
			if _, err := trevniparquet.Write(ctx, &fromStore, ds, nil); err != nil {
				t.Fatal(err)
			}
			ds.Close()
			pqReqs, pqSent := s.requests.Load(), s.sent.Load()

			if c != "large" {
				lds := open(local)
				var fromDisk bytes.Buffer
				if _, err := trevniparquet.Write(ctx, &fromDisk, lds, nil); err != nil {
					t.Fatal(err)
				}
				lds.Close()
				if !bytes.Equal(fromStore.Bytes(), fromDisk.Bytes()) {
					t.Fatalf("Parquet from the store (%d bytes) differs from Parquet from the local file (%d bytes)", fromStore.Len(), fromDisk.Len())
				}
			}

			size := int64(len(b))
			t.Logf("%d bytes, %d records: the whole read %d requests, %d bytes (%.3fx); Parquet %d requests, %d bytes (%.3fx)",
				size, records, wholeReqs, wholeSent, float64(wholeSent)/float64(size), pqReqs, pqSent, float64(pqSent)/float64(size))
			if pqSent*100 > size*105 {
				t.Errorf("Parquet fetched %d bytes of a file of %d: more than 1.05x", pqSent, size)
			}
			if pqSent < size*9/10 {
				t.Errorf("Parquet fetched %d bytes of %d: not the whole file", pqSent, size)
			}
			if pqReqs > 2*wholeReqs {
				t.Errorf("Parquet made %d requests, the whole read %d: more than twice", pqReqs, wholeReqs)
			}
			if !strings.HasPrefix(fromStore.String(), "PAR1") {
				t.Fatal("not a Parquet file")
			}
		})
	}
}
