package format

// DefaultMaxBlockSize is the largest uncompressed block a Reader accepts
// unless ReaderOptions.MaxBlockSize says otherwise. Java cuts a block once
// it holds 64 KiB, so its blocks exceed that only by their last row; our
// Writer refuses a BlockSize above this value, so every file it writes
// with rows smaller than the rest of the block reads with the defaults.
const DefaultMaxBlockSize = 64 << 20

// DefaultBlockMemory is how many bytes of block buffers (stored and
// decompressed, read-ahead included) the ColumnReaders of one Reader may
// hold at once unless ReaderOptions.BlockMemory says otherwise. Reading
// every column of a file of Java's 64 KiB blocks takes at most about
// 220 KiB per column, so this admits over 2,000 columns read at once, and
// any eight blocks of DefaultMaxBlockSize.
const DefaultBlockMemory = 512 << 20
