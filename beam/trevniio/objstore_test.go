package trevniio

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/trevni-go/trevni"
	_ "github.com/trevni-go/trevni/stores/s3" // s3://
	"github.com/trevni-go/trevni/stores/storetest/s3server"
)

// readURL reads every record of a data set (a file, a URL, a glob) as
// Avro binary through the front door.
func readURL(t testing.TB, name string) [][]byte {
	t.Helper()
	ds, err := trevni.Open(context.Background(), name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	r, err := ds.NewReader(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out [][]byte
	for {
		rec, err := r.ReadBinary(nil)
		if err != nil {
			break
		}
		out = append(out, rec)
	}
	return out
}

// TestWriteObjectStore writes shards to an S3 server through the front
// door, reads them back from there with Read, and refuses to replace them
// unless told.
func TestWriteObjectStore(t *testing.T) {
	s := s3server.Start(t, "bkt")
	recs := genRecords(t, 0, 500, 7)
	prefix := "s3://bkt/out/part"
	p, sc := beam.NewPipelineWithRoot()
	names := Write(sc, prefix, testSchema, beam.CreateList(sc, recs), &WriteOptions{Shards: 3})
	passert.EqualsList(sc, names, []string{ShardName(prefix, 0, 3), ShardName(prefix, 1, 3), ShardName(prefix, 2, 3)})
	ptest.RunAndValidate(t, p)
	if keys := s.Keys(t, "bkt"); !slices.Equal(keys, []string{"out/part-00000-of-00003.trv", "out/part-00001-of-00003.trv", "out/part-00002-of-00003.trv"}) {
		t.Fatalf("objects %q", keys)
	}
	got := hexAll(readURL(t, "s3://bkt/out/part-*.trv"))
	want := hexAll(recs)
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Fatalf("read back %d records, want %d", len(got), len(want))
	}
	// Read takes the same glob.
	p, sc = beam.NewPipelineWithRoot()
	read := Read(sc, "s3://bkt/out/part-*.trv", nil)
	passert.Count(sc, read, "records", len(recs))
	ptest.RunAndValidate(t, p)

	// Again, without Replace: refused while the pipeline is built, the
	// shards untouched, nothing else written.
	before, _ := s.Get(t, "bkt", "out/part-00000-of-00003.trv")
	_, sc = beam.NewPipelineWithRoot()
	if _, err := TryWrite(sc, prefix, testSchema, beam.CreateList(sc, recs[:10]), &WriteOptions{Shards: 3}); !errors.Is(err, trevni.ErrExists) {
		t.Fatalf("a Write over existing shards: %v", err)
	}
	if keys := s.Keys(t, "bkt"); len(keys) != 3 {
		t.Fatalf("objects after a refused Write: %q", keys)
	}
	if after, _ := s.Get(t, "bkt", "out/part-00000-of-00003.trv"); string(after) != string(before) {
		t.Fatal("a refused Write changed a shard")
	}
	// With Replace.
	p, sc = beam.NewPipelineWithRoot()
	Write(sc, prefix, testSchema, beam.CreateList(sc, recs[:10]), &WriteOptions{Shards: 3, Replace: true})
	ptest.RunAndValidate(t, p)
	if n := len(readURL(t, "s3://bkt/out/part-*.trv")); n != 10 {
		t.Fatalf("after a replacing Write: %d records, want 10", n)
	}
	if keys := s.Keys(t, "bkt"); len(keys) != 3 {
		t.Fatalf("objects left: %q", keys)
	}
}

// dirNames returns the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestWriteRefusesExisting: local shards are not replaced either unless
// told. The refusal comes while the pipeline is built (Write panics,
// TryWrite returns it), before anything runs; a shard that appears after
// that is refused by the finalizing step, which then leaves no temporary
// file behind.
func TestWriteRefusesExisting(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "out")
	theirs := ShardName(prefix, 1, 2)
	if err := os.WriteFile(theirs, []byte("theirs"), 0o666); err != nil {
		t.Fatal(err)
	}
	recs := genRecords(t, 0, 50, 3)
	_, sc := beam.NewPipelineWithRoot()
	if _, err := TryWrite(sc, prefix, testSchema, beam.CreateList(sc, recs), &WriteOptions{Shards: 2}); !errors.Is(err, trevni.ErrExists) || !strings.Contains(err.Error(), theirs) {
		t.Fatalf("TryWrite over an existing shard: %v", err)
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), theirs) {
				t.Errorf("Write over an existing shard: %v", r)
			}
		}()
		_, sc := beam.NewPipelineWithRoot()
		Write(sc, prefix, testSchema, beam.CreateList(sc, recs), &WriteOptions{Shards: 2})
	}()

	// Built before the shard appears: refused when finalizing, with
	// every temporary file removed.
	os.Remove(theirs)
	p, sc := beam.NewPipelineWithRoot()
	if _, err := TryWrite(sc, prefix, testSchema, beam.CreateList(sc, recs), &WriteOptions{Shards: 2}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(theirs, []byte("theirs"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := ptest.Run(p); err == nil || !strings.Contains(err.Error(), theirs+": exists: set WriteOptions.Replace") {
		t.Fatalf("a Write over a shard made while it ran: %v", err)
	}
	if b, _ := os.ReadFile(theirs); string(b) != "theirs" {
		t.Fatal("the existing shard was replaced")
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{filepath.Base(theirs)}) {
		t.Fatalf("a refused Write left %q", names)
	}
	p, sc = beam.NewPipelineWithRoot()
	Write(sc, prefix, testSchema, beam.CreateList(sc, recs), &WriteOptions{Shards: 2, Replace: true})
	ptest.RunAndValidate(t, p)
	if n := len(readAll(t, ShardName(prefix, 0, 2))) + len(readAll(t, theirs)); n != len(recs) {
		t.Fatalf("%d records after a replacing Write, want %d", n, len(recs))
	}
}
