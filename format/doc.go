// Package format reads and writes Trevni column files.
//
// A Trevni file is a header (row count, file metadata, column metadata and
// column start offsets) followed by the columns, each a list of block
// descriptors and then the blocks. This package implements the format as the
// Trevni specification describes it and as the Java implementation (Apache
// Avro's trevni-core) actually writes and reads it: the CRC-32 stored
// big-endian and named "crc32", the bzip2 codec, zero blocks for an empty
// column, and blocks cut per column at 64 KiB of uncompressed data, checked
// at the start of every row. With the null codec, files written here are
// byte-identical to Java's.
//
// [Writer] streams rows into columns with memory bounded by configuration;
// [Reader] opens a file over an io.ReaderAt, reading only the header, and
// reads each column lazily through a [ColumnReader]. Reading is bounded for
// hostile files: a block larger than [ReaderOptions].MaxBlockSize is refused
// before it is decompressed, and the block buffers of all ColumnReaders of a
// Reader stay within [ReaderOptions].BlockMemory; both fail with [ErrLimit].
// Columns must start at offsets of their own, their blocks ending before the
// next column starts, so that the block tables of all columns together fit
// in the file. [Reader.Validate] takes time in proportion to the bytes stored,
// not to the rows or elements they claim. The Writer writes no block larger
// than [WriterOptions].MaxBlockSize, by default the largest a Reader accepts.
//
// The package knows nothing of Avro or Protobuf ([Concat] compares the
// avro.schema metadata of its parts as bytes, as any other metadata); see
// the schema, shred and assemble packages, and the front door (package
// trevni), for the rest.
package format
