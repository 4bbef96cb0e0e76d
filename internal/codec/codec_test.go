package codec

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"
)

var names = []string{Null, Deflate, Snappy, Bzip2, XZ, Zstd}

// sample returns n bytes that compress somewhat: runs and random bytes.
func sample(r *rand.Rand, n int) []byte {
	b := make([]byte, 0, n)
	for len(b) < n {
		if r.IntN(2) == 0 {
			b = append(b, bytes.Repeat([]byte{byte(r.IntN(256))}, r.IntN(40))...)
		} else {
			b = append(b, byte(r.IntN(256)))
		}
	}
	return b[:n]
}

func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, name := range names {
		c, err := New(name, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{0, 1, 100, 70000, 300000} {
			src := sample(r, n)
			enc, err := c.Compress([]byte("prefix"), src)
			if err != nil {
				t.Fatalf("%s %d: %v", name, n, err)
			}
			if string(enc[:6]) != "prefix" {
				t.Fatalf("%s: Compress did not append", name)
			}
			enc = enc[6:]
			for _, lim := range []Limit{ExactSize(n), AtMost(n), AtMost(n + 1000)} {
				out, err := c.Decompress([]byte("x"), enc, lim)
				if err != nil || !bytes.Equal(out[1:], src) || out[0] != 'x' {
					t.Fatalf("%s %d %+v: err %v, equal %v", name, n, lim, err, err == nil && bytes.Equal(out[1:], src))
				}
			}
			if n == 0 {
				continue
			}
			// The wrong exact size, or a limit one short, fails and never
			// produces more than the limit.
			for _, lim := range []Limit{ExactSize(n - 1), ExactSize(n + 1), AtMost(n - 1)} {
				out, err := c.Decompress(nil, enc, lim)
				want := ErrSize
				if !lim.Exact {
					want = ErrTooLarge
				}
				if !errors.Is(err, want) {
					t.Errorf("%s %d %+v: err %v, want %v", name, n, lim, err, want)
				}
				if len(out) > lim.Max && name != Null {
					t.Errorf("%s %d %+v: produced %d bytes", name, n, lim, len(out))
				}
			}
		}
	}
}

// TestCorruptInput feeds damaged streams: errors, never panics, and only
// the errors this package defines.
func TestCorruptInput(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, name := range names {
		c, _ := New(name, 0)
		src := sample(r, 5000)
		enc, _ := c.Compress(nil, src)
		for i := 0; i < 300; i++ {
			bad := bytes.Clone(enc)
			if i%3 == 0 {
				bad = bad[:r.IntN(len(bad))]
			} else {
				bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
			}
			out, err := c.Decompress(nil, bad, ExactSize(len(src)))
			if err == nil {
				if !bytes.Equal(out, src) && name != Null {
					// A flip the codec cannot notice (in the literal bytes
					// of snappy or null) changes the data but keeps sizes.
					if len(out) != len(src) {
						t.Fatalf("%s: %d bytes out", name, len(out))
					}
				}
				continue
			}
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrSize) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("%s: error of no known kind: %v", name, err)
			}
		}
	}
}

// TestPrefix reads a bzip2 block made as Java's codec before Avro 1.10
// made them, compressing its whole buffer: data then zeros.
func TestPrefix(t *testing.T) {
	c, _ := New(Bzip2, 9)
	data := sample(rand.New(rand.NewPCG(5, 6)), 1000)
	buf := append(bytes.Clone(data), make([]byte, 32<<10-len(data))...)
	enc, _ := c.Compress(nil, buf)
	lim := ExactSize(len(data))
	if _, err := c.Decompress(nil, enc, lim); !errors.Is(err, ErrSize) {
		t.Fatalf("without Prefix: %v, want ErrSize", err)
	}
	lim.Prefix = true
	out, err := c.Decompress(nil, enc, lim)
	if err != nil || !bytes.Equal(out, data) {
		t.Fatalf("with Prefix: %v, %d bytes, equal %v", err, len(out), bytes.Equal(out, data))
	}
	// Fewer bytes than stated stay an error.
	lim.Max = len(buf) + 1
	if _, err := c.Decompress(nil, enc, lim); !errors.Is(err, ErrSize) {
		t.Fatalf("short block with Prefix: %v, want ErrSize", err)
	}
}

// TestStatedSizes checks that a size a block states for itself is checked
// before anything is allocated for it.
func TestStatedSizes(t *testing.T) {
	c, _ := New(Snappy, 0)
	// A snappy length prefix of 1 GiB on three bytes.
	bomb := []byte{0x80, 0x80, 0x80, 0x80, 0x04}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := c.Decompress(nil, bomb, AtMost(2<<30)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("err = %v", err)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("%d bytes allocated", n)
	}
	if _, err := c.Decompress(nil, bomb, AtMost(1<<20)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
}

func TestNames(t *testing.T) {
	for _, n := range []string{Zstd, Zstandard} {
		c, err := New(n, 0)
		if err != nil || c.Name() != Zstd {
			t.Errorf("New(%q): %v", n, err)
		}
	}
	if c, err := New("", 0); err != nil || c.Name() != Null {
		t.Errorf(`New(""): %v`, err)
	}
	if _, err := New("lz4", 0); !errors.Is(err, ErrUnknown) {
		t.Errorf("lz4: %v", err)
	}
	for _, n := range []string{Deflate, Bzip2, Zstd} {
		if _, err := New(n, 99); err == nil {
			t.Errorf("%s level 99 accepted", n)
		}
	}
}

// TestZstdFrames decodes blocks of two zstd frames: the whole output is
// bounded by the limit, not by the first frame's stated size.
func TestZstdFrames(t *testing.T) {
	c, _ := New(Zstd, 0)
	r := rand.New(rand.NewPCG(7, 8))
	a, b := sample(r, 5000), bytes.Repeat([]byte{9}, 200000)
	fa, _ := c.Compress(nil, a)
	two, _ := c.Compress(fa, b)
	out, err := c.Decompress(nil, two, AtMost(len(a)+len(b)))
	if err != nil || !bytes.Equal(out, append(bytes.Clone(a), b...)) {
		t.Fatalf("two frames: %v", err)
	}
	if out, err := c.Decompress(nil, two, AtMost(len(a)+1000)); !errors.Is(err, ErrTooLarge) || len(out) > len(a)+1000 {
		t.Fatalf("two frames over the limit: %d bytes, %v", len(out), err)
	}
	if _, err := c.Decompress(nil, two, ExactSize(len(a))); !errors.Is(err, ErrSize) {
		t.Fatalf("two frames, exact size of the first: %v", err)
	}
}
