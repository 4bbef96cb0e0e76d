package extfooter

import (
	"bytes"
	"testing"
)

// TestFooterLayout checks the footer byte by byte where DuckDB reads it:
// 534 bytes, the section header, the fields from the end backwards (the
// magic last, then the platform, the version, the extension version, the
// ABI type), and a zero signature.
func TestFooterLayout(t *testing.T) {
	m := Metadata{Platform: "linux_amd64", Version: "v1.2.0", ExtensionVersion: "v0.1.0", ABI: ABICStruct}
	f, err := Footer(m)
	if err != nil {
		t.Fatal(err)
	}
	if len(f) != 534 || Size != 534 {
		t.Fatalf("footer of %d bytes (Size %d), want 534", len(f), Size)
	}
	if !bytes.HasPrefix(f, []byte("\x00\x93\x04\x10duckdb_signature\x80\x04")) {
		t.Errorf("section header %q", f[:22])
	}
	// From the end: 256 bytes of signature, then the fields last to first.
	end := len(f) - 256
	if !bytes.Equal(f[end:], make([]byte, 256)) {
		t.Error("signature not zero")
	}
	for i, want := range []string{"4", "linux_amd64", "v1.2.0", "v0.1.0", "C_STRUCT", "", "", ""} {
		got := f[end-(i+1)*32 : end-i*32]
		if string(bytes.TrimRight(got, "\x00")) != want || len(got) != 32 {
			t.Errorf("field %d from the end: %q, want %q", i+1, got, want)
		}
	}
	lib := append([]byte("\x7fELF..."), f...)
	got, err := Parse(lib)
	if err != nil || got != m {
		t.Errorf("Parse: %+v, %v; want %+v", got, err, m)
	}
}

// TestFooterRefuses checks the fields that do not fit and files with no
// footer.
func TestFooterRefuses(t *testing.T) {
	if _, err := Footer(Metadata{Platform: string(make([]byte, 33))}); err == nil {
		t.Error("a field of 33 bytes was accepted")
	}
	if _, err := Footer(Metadata{Platform: "linux\x00amd64"}); err == nil {
		t.Error("a field holding a NUL was accepted")
	}
	if _, err := Parse(make([]byte, 1000)); err == nil {
		t.Error("zeros parsed as a footer")
	}
	if _, err := Parse([]byte("short")); err == nil {
		t.Error("a short file parsed as a footer")
	}
}

// TestPlatform checks DuckDB's platform names.
func TestPlatform(t *testing.T) {
	for _, c := range []struct{ goos, goarch, want string }{
		{"linux", "amd64", "linux_amd64"}, {"linux", "arm64", "linux_arm64"},
		{"darwin", "arm64", "osx_arm64"}, {"windows", "amd64", "windows_amd64"}, {"plan9", "386", ""},
	} {
		if got := Platform(c.goos, c.goarch); got != c.want {
			t.Errorf("Platform(%s, %s) = %q, want %q", c.goos, c.goarch, got, c.want)
		}
	}
}
