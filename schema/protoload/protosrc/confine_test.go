package protosrc_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/schema/protoload"
	"github.com/trevni-go/trevni/schema/protoload/protosrc"
)

// Imports are confined to the import paths: no climbing out with "..", no
// absolute paths, no links out; and no file is read past MaxFileSize.
func TestCompileProtoConfined(t *testing.T) {
	root := t.TempDir()
	inc := filepath.Join(root, "inc")
	if err := os.MkdirAll(filepath.Join(inc, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A valid file outside the import path, which must not be reached.
	write(filepath.Join(root, "outside.proto"), `syntax = "proto3"; message Out { int32 x = 1; }`)
	write(filepath.Join(inc, "ok.proto"), `syntax = "proto3"; import "sub/dep.proto"; message M { Dep d = 1; }`)
	write(filepath.Join(inc, "sub", "dep.proto"), `syntax = "proto3"; message Dep { int32 x = 1; }`)
	if err := os.Symlink(filepath.Join(root, "outside.proto"), filepath.Join(inc, "link.proto")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(inc, "zero.proto")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, imp, want string }{
		{"up.proto", "../outside.proto", "leads out of the import paths"},
		{"deep.proto", "../../../../dev/zero", "leads out of the import paths"},
		{"sneaky.proto", "sub/../../outside.proto", "leads out of the import paths"},
		{"abs.proto", filepath.Join(root, "outside.proto"), "absolute path"},
		{"link.proto", "link.proto", "outside the import path"},
		{"zero.proto", "zero.proto", "outside the import path"},
	} {
		write(filepath.Join(inc, "i_"+c.name), `syntax = "proto3"; import "`+c.imp+`"; message I { int32 x = 1; }`)
		_, err := protosrc.CompileProto(context.Background(), []string{inc}, "i_"+c.name)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("import %q: %v, want an error saying %q", c.imp, err, c.want)
		}
	}
	if _, err := protosrc.CompileProto(context.Background(), []string{inc}, "../outside.proto"); err == nil {
		t.Error("a named file out of the import path compiled")
	}
	if _, err := protosrc.CompileProto(context.Background(), []string{inc}, "ok.proto"); err != nil {
		t.Errorf("ok.proto: %v", err)
	}
	// A link within the import path is followed.
	if err := os.Symlink(filepath.Join(inc, "sub", "dep.proto"), filepath.Join(inc, "alias.proto")); err != nil {
		t.Fatal(err)
	}
	if _, err := protosrc.CompileProto(context.Background(), []string{inc}, "alias.proto"); err != nil {
		t.Errorf("alias.proto: %v", err)
	}
	// A file over the limit: sparse, so that it takes no disk.
	big := filepath.Join(inc, "big.proto")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(protoload.MaxFileSize + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := protosrc.CompileProto(context.Background(), []string{inc}, "big.proto"); !errors.Is(err, protoload.ErrTooLarge) {
		t.Errorf("big.proto: %v, want ErrTooLarge", err)
	}
	if _, err := protoload.LoadDescriptorSet(big); !errors.Is(err, protoload.ErrTooLarge) || !strings.Contains(err.Error(), "64 MiB") {
		t.Errorf("LoadDescriptorSet of a big file: %v", err)
	}
	if _, err := protoload.LoadDescriptorSet("/dev/zero"); !errors.Is(err, protoload.ErrTooLarge) {
		t.Errorf("LoadDescriptorSet(/dev/zero): %v", err)
	}
}
