// Package extfooter writes and reads the metadata footer that makes a
// shared library a DuckDB extension: what DuckDB reads at the end of the
// file before it loads the library (the platform it was built for, the
// DuckDB or C API version it needs, its own version, the ABI type).
//
// The footer is 534 bytes: a 22-byte WebAssembly custom section header
// (so that a WebAssembly extension stays a valid module; "duckdb_signature"
// names the section, of 531 bytes, whose payload is the 512 bytes after
// it), eight fields of 32 bytes each (zero-padded ASCII; in file order
// three unused fields, then the ABI type, the extension version, the
// DuckDB version (for the C_STRUCT ABI, the C API version required), the
// platform, and the magic "4"), and 256 bytes of signature, zero in an
// unsigned extension.
package extfooter

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
)

// Size is the footer's size in bytes.
const Size = sectionHeaderSize + fieldCount*fieldSize + signatureSize

const (
	sectionHeaderSize = 22
	fieldSize         = 32
	fieldCount        = 8
	signatureSize     = 256
	magic             = "4"
)

// sectionHeader is the WebAssembly custom section header: section id 0,
// its size 531 as a LEB128 (0x93 0x04), its name's length 16, the name,
// and the payload's size 512 as a LEB128 (0x80 0x04).
var sectionHeader = append(append([]byte{0, 0x93, 0x04, 16}, "duckdb_signature"...), 0x80, 0x04)

// ABICStruct is the ABI of extensions written against the stable C
// extension API (a struct of function pointers DuckDB hands over).
const ABICStruct = "C_STRUCT"

// Metadata is what the footer says.
type Metadata struct {
	// Platform is DuckDB's name of the platform (linux_amd64,
	// osx_arm64, windows_amd64, ...).
	Platform string
	// Version is the DuckDB version the extension needs; for the
	// C_STRUCT ABI, the version of the C API (v1.2.0).
	Version string
	// ExtensionVersion is the extension's own version.
	ExtensionVersion string
	// ABI is the ABI type: ABICStruct.
	ABI string
}

// Platform returns DuckDB's name of the platform a Go program runs on
// (GOOS and GOARCH), or "" when DuckDB has none.
func Platform(goos, goarch string) string {
	os := map[string]string{"linux": "linux", "darwin": "osx", "windows": "windows"}[goos]
	arch := map[string]string{"amd64": "amd64", "arm64": "arm64"}[goarch]
	if os == "" || arch == "" {
		return ""
	}
	return os + "_" + arch
}

// HostPlatform is Platform of the running program's GOOS and GOARCH.
func HostPlatform() string { return Platform(runtime.GOOS, runtime.GOARCH) }

// Footer returns the footer of m.
func Footer(m Metadata) ([]byte, error) {
	fields := []string{"", "", "", m.ABI, m.ExtensionVersion, m.Version, m.Platform, magic}
	b := make([]byte, 0, Size)
	b = append(b, sectionHeader...)
	for i, f := range fields {
		if len(f) > fieldSize {
			return nil, fmt.Errorf("field %d %q: longer than %d bytes", i, f, fieldSize)
		}
		for j := range len(f) {
			if f[j] == 0 || f[j] > 0x7e {
				return nil, fmt.Errorf("field %d %q: not printable ASCII", i, f)
			}
		}
		b = append(b, f...)
		b = append(b, make([]byte, fieldSize-len(f))...)
	}
	b = append(b, make([]byte, signatureSize)...)
	return b, nil
}

// Parse reads the footer at the end of an extension file's bytes.
func Parse(file []byte) (Metadata, error) {
	if len(file) < Size {
		return Metadata{}, errors.New("shorter than a DuckDB extension footer")
	}
	f := file[len(file)-Size:]
	if !bytes.Equal(f[:len(sectionHeader)], sectionHeader) {
		return Metadata{}, errors.New("no DuckDB extension footer (its section header is missing)")
	}
	field := func(i int) string {
		s := f[len(sectionHeader)+i*fieldSize:][:fieldSize]
		return string(bytes.TrimRight(s, "\x00"))
	}
	if field(7) != magic {
		return Metadata{}, fmt.Errorf("no DuckDB extension footer (magic %q, want %q)", field(7), magic)
	}
	return Metadata{ABI: field(3), ExtensionVersion: field(4), Version: field(5), Platform: field(6)}, nil
}
