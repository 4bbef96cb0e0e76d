//go:build !amd64 || purego

package format

// havePEXT is false where the chunks of varints have no assembly.
const havePEXT = false

func decodeChunkPEXT64(*[varintChunk + 16]byte, uint64, []int64) (int, int) { return 0, 0 }

func decodeChunkPEXT32(*[varintChunk + 16]byte, uint64, []int32) (int, int) { return 0, 0 }
