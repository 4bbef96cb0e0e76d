package trevni1

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/trevni-go/trevni/internal/codec"
)

// The zlib and gzip wrappers around the shared raw deflate are what the
// standard library's readers accept, and read what its writers make,
// including gzip's optional header fields.
func TestCodecWrappers(t *testing.T) {
	cs, err := newCodecs()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 100, 70000} {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte('a' + r.IntN(4))
		}
		for _, name := range []string{CodecDeflate, CodecGzip} {
			stored, err := cs.compress(name, nil, src)
			if err != nil {
				t.Fatal(err)
			}
			var zr io.Reader
			if name == CodecDeflate {
				zr, err = zlib.NewReader(bytes.NewReader(stored))
			} else {
				zr, err = gzip.NewReader(bytes.NewReader(stored))
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got, err := io.ReadAll(zr)
			if err != nil || !bytes.Equal(got, src) {
				t.Fatalf("%s of %d bytes: the standard library reads %d bytes, %v", name, n, len(got), err)
			}
			back, err := cs.decompress(name, nil, stored, n)
			if err != nil || !bytes.Equal(back, src) {
				t.Fatalf("%s of %d bytes back: %v", name, n, err)
			}
			// A flipped bit in the trailer is caught.
			bad := bytes.Clone(stored)
			bad[len(bad)-1] ^= 1
			if _, err := cs.decompress(name, nil, bad, n); !errors.Is(err, ErrFormat) || !errors.Is(err, codec.ErrCorrupt) {
				t.Fatalf("%s with a bad trailer: %v", name, err)
			}
		}
		// The standard library's gzip with a name and a comment, read
		// under either codec name.
		var buf bytes.Buffer
		gw := gzip.NewWriter(&buf)
		gw.Name, gw.Comment, gw.Extra = "block.bin", "a comment", []byte{1, 2, 3}
		gw.Write(src)
		gw.Close()
		for _, name := range []string{CodecDeflate, CodecGzip} {
			if got, err := cs.decompress(name, nil, buf.Bytes(), n); err != nil || !bytes.Equal(got, src) {
				t.Fatalf("standard gzip read as %s: %v", name, err)
			}
		}
		// A size other than the descriptor's is an error.
		stored, _ := cs.compress(CodecDeflate, nil, src)
		if _, err := cs.decompress(CodecDeflate, nil, stored, n+1); !errors.Is(err, ErrFormat) {
			t.Fatalf("wrong size: %v", err)
		}
	}
	for _, bad := range [][]byte{nil, {0x78}, {0x78, 0x9d, 0, 0, 0, 0}, {0x1f, 0x8b, 8, 0x08, 0, 0, 0, 0, 0, 0, 'x', 'x', 'x', 'x', 'x', 'x', 'x', 'x'}} {
		if _, err := cs.decompress(CodecDeflate, nil, bad, 1); !errors.Is(err, ErrFormat) {
			t.Fatalf("%x: %v", bad, err)
		}
	}
}
