package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
)

// TestLibraryDefaultsAreTheCommands: the front door's defaults are the
// command's (issue 34), so that a program and `trevni fromavro` write the
// same file from the same Avro file: a nil *WriteOptions (deflate, CRC-32,
// statistics, 64 KiB blocks, one goroutine) gives, byte for byte, what
// fromavro with no flag but --workers 1 writes, for each of Java's Avro
// vectors; and the files read back as the same records.
func TestLibraryDefaultsAreTheCommands(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for i, v := range avroVectors(t) {
		in := filepath.Join(interopDir, v, "input.avro")
		cmdOut := filepath.Join(dir, "cmd"+string(rune('a'+i))+".trv")
		libOut := filepath.Join(dir, "lib"+string(rune('a'+i))+".trv")
		if r := runBin(t, nil, "fromavro", "--workers", "1", in, cmdOut); r.code != 0 {
			t.Fatalf("fromavro %s: %s", in, r.stderr)
		}
		if _, err := trevni.ConvertAvro(ctx, libOut, in, nil); err != nil {
			t.Fatalf("ConvertAvro %s: %v", in, err)
		}
		a, err := os.ReadFile(cmdOut)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(libOut)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: ConvertAvro with nil options wrote %d bytes, fromavro %d, not the same file", in, len(b), len(a))
		}
		ds, err := trevni.Open(ctx, libOut, nil)
		if err != nil {
			t.Fatal(err)
		}
		f, err := ds.Parts()[0].Open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if c, s := frontdoor.TrevniReader(f).Codec(), frontdoor.TrevniReader(f).Checksum(); c != "deflate" || s != "crc32" {
			t.Errorf("%s: the library's default file has codec %q, checksum %q; want deflate, crc32", in, c, s)
		}
		f.Close()
		ds.Close()
	}
}
