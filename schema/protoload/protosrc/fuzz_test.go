package protosrc

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzCompileProto compiles arbitrary .proto source text, with an import
// of a second file of arbitrary text: whatever the text, CompileProto
// returns, without panicking, hanging or reaching outside the import path.
func FuzzCompileProto(f *testing.F) {
	f.Add(`syntax = "proto3"; package a; import "b.proto"; message M { b.N n = 1; repeated string s = 2; map<string, int64> m = 3; }`,
		`syntax = "proto3"; package b; message N { oneof o { int32 x = 1; string y = 2; } }`)
	f.Add(`syntax = "proto2"; message M { optional group G = 1 { required int32 x = 2; } extensions 100 to max; }`, ``)
	f.Add(`syntax = "proto3"; import "../../../../etc/passwd"; message M {}`, ``)
	f.Add(`syntax = "proto3"; message M { M m = 1; }`, `}}}`)
	f.Add(`edition = "2023"; message M { int32 x = 1 [features.field_presence = IMPLICIT]; }`, ``)
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a)+len(b) > 1<<16 {
			return
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "a.proto"), []byte(a), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "b.proto"), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		files, err := CompileProto(ctx, []string{dir}, "a.proto")
		if err == nil && files == nil {
			t.Fatal("no files and no error")
		}
		if ctx.Err() != nil {
			t.Fatalf("compiling %d bytes took 10 s", len(a)+len(b))
		}
	})
}
