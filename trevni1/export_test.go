package trevni1

// SetBlockSize makes a writer of opts cut blocks at n bytes in place of
// BlockSize, for the external tests.
func SetBlockSize(opts *WriterOptions, n int) { opts.blockSize = n }
