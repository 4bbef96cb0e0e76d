//go:build !amd64 || purego

package codec

// haveVector is false: no vector code for this processor.
const haveVector = false

func adlerVector(adler uint32, p []byte) (uint32, []byte) { return adler, p }
