package codec

import (
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zstd"
)

func BenchmarkZstdSetup(b *testing.B) {
	src := sample(rand.New(rand.NewPCG(1, 2)), 64<<10)
	c, _ := New(Zstd, 0)
	enc, _ := c.Compress(nil, src)
	for name, opts := range map[string][]zstd.DOption{
		"plain":     {zstd.WithDecoderConcurrency(1)},
		"caplimit":  {zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true)},
		"lowmem":    {zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true)},
		"lowmemcap": {zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true), zstd.WithDecodeAllCapLimit(true)},
		"maxmem":    {zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(256 << 20)},
	} {
		b.Run(name, func(b *testing.B) {
			dst := make([]byte, 0, 128<<10)
			for b.Loop() {
				dec, _ := zstd.NewReader(nil, opts...)
				for range 4 {
					out, err := dec.DecodeAll(enc, dst[:0:len(src)])
					if err != nil || len(out) != len(src) {
						b.Fatal(err)
					}
				}
				dec.Close()
			}
		})
	}
}
