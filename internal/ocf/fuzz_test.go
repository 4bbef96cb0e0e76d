package ocf

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzReader feeds arbitrary bytes to the Reader and walks every block. It
// demands no panic, no hang, and errors of the documented shape.
func FuzzReader(f *testing.F) {
	const maxSeed = 64 << 10
	for _, path := range interopFiles(f) {
		b := readFile(f, path)
		if len(b) > maxSeed {
			b = b[:maxSeed] // a truncated file is a fine seed too
		}
		f.Add(b)
	}
	for _, codec := range allCodecs {
		f.Add(smallFile(f, codec, 2))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := NewReader(bytes.NewReader(in), WithMaxBlockSize(1<<20), WithMaxDecompressedSize(4<<20))
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Block != -1 {
				t.Fatalf("NewReader error %#v is not a header *Error", err)
			}
			return
		}
		_ = r.Schema()
		_ = r.Codec()
		_ = r.Meta()
		for i := 0; ; i++ {
			n, data, err := r.NextBlock()
			if err == io.EOF {
				if _, _, err2 := r.NextBlock(); err2 != io.EOF {
					t.Fatalf("NextBlock after io.EOF: %v", err2)
				}
				return
			}
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || e.Block != int64(i) {
					t.Fatalf("block %d: error %#v", i, err)
				}
				return
			}
			if n < 0 || int64(len(data)) > 4<<20 {
				t.Fatalf("block %d: count %d, %d bytes", i, n, len(data))
			}
		}
	})
}
