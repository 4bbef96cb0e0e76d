// Command build builds DuckDB's Trevni extension: the c-shared library of
// ./duckdbext with DuckDB's metadata footer appended (package extfooter),
// written atomically to -o (trevni.duckdb_extension). Run it in the sql
// module; from the repository root:
//
//	go -C sql run ./duckdbext/build -o ../trevni.duckdb_extension
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/trevni-go/trevni/sql/duckdbext/extfooter"
	"github.com/trevni-go/trevni/sql/duckscan"
)

func main() {
	out := flag.String("o", "trevni.duckdb_extension", "the extension file to write; its name before the first dot is the extension's (DuckDB calls NAME_init_c_api), so keep it trevni")
	platform := flag.String("platform", extfooter.HostPlatform(), "DuckDB's name of the platform built for (the default is this machine's)")
	version := flag.String("version", "", "the extension's version (default: the checkout's git commit, or dev)")
	flag.Parse()
	if err := run(*out, *platform, *version); err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		os.Exit(1)
	}
}

// run builds the extension into out.
func run(out, platform, version string) error {
	if platform == "" {
		return fmt.Errorf("DuckDB has no platform name for this machine: give -platform")
	}
	if base := filepath.Base(out); !strings.HasPrefix(base, "trevni.") {
		return fmt.Errorf("-o %s: DuckDB derives the entry point from the file name: name it trevni.duckdb_extension", out)
	}
	if version == "" {
		version = "dev"
		if b, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
			version = strings.TrimSpace(string(b))
		}
	}
	dir := filepath.Dir(out)
	tmp, err := os.CreateTemp(dir, ".trevni-ext-*.so")
	if err != nil {
		return err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", tmp.Name(), "./duckdbext")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build -buildmode=c-shared ./duckdbext: %w", err)
	}
	os.Remove(strings.TrimSuffix(tmp.Name(), ".so") + ".h") // the C header cgo writes beside it
	footer, err := extfooter.Footer(extfooter.Metadata{Platform: platform, Version: duckscan.APIVersion, ExtensionVersion: version, ABI: extfooter.ABICStruct})
	if err != nil {
		return err
	}
	f, err := os.OpenFile(tmp.Name(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(footer); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o755); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s (%s, C API %s, version %s)\n", out, platform, duckscan.APIVersion, version)
	return nil
}
