package shred_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/schema/protoload"
	"github.com/trevni-go/trevni/schema/protoload/protosrc"
	"github.com/trevni-go/trevni/schema/protoschema"
	"github.com/trevni-go/trevni/shred"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// compileText compiles one .proto file given as text and finds message
// name in it.
func compileText(t *testing.T, text, name string) protoreflect.MessageDescriptor {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.proto"), []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
	files, err := protosrc.CompileProto(context.Background(), []string{dir}, "x.proto")
	if err != nil {
		t.Fatal(err)
	}
	md, err := protoload.FindMessage(files, name)
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// hangLimit bounds the time of work whose real bound is the bytes it
// allocates: only a hang trips it, not a machine ten times slower or
// loaded (the doubling case took 11 s at a load of 40 on two cores).
const hangLimit = 60 * time.Second

// limitedAlloc runs f and fails if it allocates much or hangs.
func limitedAlloc(t *testing.T, what string, f func() error) error {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	err := f()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
		t.Errorf("%s: allocated %d MiB", what, alloc>>20)
	}
	if elapsed > hangLimit {
		t.Errorf("%s: took %v", what, elapsed)
	}
	return err
}

// TestProtoExponentialLayout rebuilds issue 10's class 2 inputs from
// protobuf: a message with two fields of the previous message type, 26
// levels deep, is a .proto of under 800 bytes whose layout has 2^26
// columns; and a message with four fields of its own type, under
// a high recursion limit, has 4^N. Both must fail fast with
// layout.ErrTooLarge, before allocating much; a raised limit moves the
// bound.
func TestProtoExponentialLayout(t *testing.T) {
	var b strings.Builder
	b.WriteString(`syntax="proto3";message M0{int32 x=1;}`)
	for i := 1; i <= 26; i++ {
		fmt.Fprintf(&b, "message M%d{M%d a=1;M%d b=2;}", i, i-1, i-1)
	}
	doubling := compileText(t, b.String(), "M26")

	tree := compileText(t, `syntax="proto3";message T{string s=1;T a=2;T b=3;repeated T c=4;map<string,T> d=5;}`, "T")

	for _, tc := range []struct {
		name string
		md   protoreflect.MessageDescriptor
		opts *shred.ProtoOptions
	}{
		{"doubling", doubling, nil},
		{"recursion limit 12", tree, &shred.ProtoOptions{Mapping: &protoschema.Options{RecursionLimit: 12}}},
		{"recursion limit 1e6", tree, &shred.ProtoOptions{Mapping: &protoschema.Options{RecursionLimit: 1e6}}},
		{"doubling, raised column limit", doubling, &shred.ProtoOptions{File: shred.Options{Layout: &layout.Options{MaxColumns: 1 << 18}}}},
	} {
		err := limitedAlloc(t, tc.name, func() error {
			_, err := shred.NewProtoWriter(io.Discard, tc.md, tc.opts)
			return err
		})
		if !errors.Is(err, layout.ErrTooLarge) {
			t.Errorf("%s: %v, want ErrTooLarge", tc.name, err)
		}
		if err != nil && len(err.Error()) > 300 {
			t.Errorf("%s: error of %d bytes", tc.name, len(err.Error()))
		}
	}

	// Within the limits, the same shapes are fine.
	if _, err := shred.NewProtoWriter(io.Discard, tree, &shred.ProtoOptions{Mapping: &protoschema.Options{RecursionLimit: 3}}); err != nil {
		t.Errorf("recursion limit 3: %v", err)
	}
	small := compileText(t, strings.Replace(b.String(), "message M26", "message N26", 1), "M12")
	if _, err := shred.NewProtoWriter(io.Discard, small, nil); err != nil {
		t.Errorf("doubling 12 levels: %v", err)
	}
}
