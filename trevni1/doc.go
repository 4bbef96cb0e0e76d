// Package trevni1 reads and writes version 1 of Trevni: the variant with
// Dremel-style definition and repetition levels described on the
// nongli/Trevni wiki and implemented in Apache Impala's C++ backend in
// 2012 (HdfsTrevniTableWriter and HdfsTrevniScanner, removed in early
// 2013). Its files start with "Trv" and the byte 1. Version 2, the Java
// implementation's format, is package format.
//
// # The layout, as Impala wrote it
//
// Where the wiki and Impala's code disagree, the code is what exists on
// disk, and this package follows it:
//
//   - header: magic, row count (Fixed64), column count (Fixed32), all
//     little-endian; file metadata; one metadata map per column; one
//     Fixed64 start offset per column. Map counts and string lengths are
//     zigzag varints.
//   - a column: a Fixed32 block count, then per block three Fixed32 (rows,
//     uncompressed size, compressed size: 0 without a codec), then the
//     block bodies. Impala never wrote first values (trevni.values), which
//     are refused.
//   - a block body, after decompression: the values of the entries that are
//     defined, then the definition-level array, then the repetition-level
//     array (the wiki puts the arrays first; the code puts them last). A
//     level array packs each entry in as many bits as its maximum level
//     needs, least significant bit first, and is found from the end of the
//     body: ceil(rows × bits / 8) bytes each.
//   - types: boolean (a bit array), fixed8, fixed16, int and long (zigzag
//     varints), fixed32, fixed64, float, double (little-endian), timestamp
//     (12 bytes: nanoseconds of the day as int64, then the Julian day as
//     uint32), string and bytes (length and bytes), and the wiki's null
//     (no bytes).
//   - codecs: "deflate" is zlib (RFC 1950), not raw deflate as in version
//     2; "gzip", "bzip2", "snappy" (raw block format); none when
//     trevni.codec is absent, "", "none" (or "null", which Impala did not
//     know). Impala read deflate and gzip alike, whichever wrapper a block
//     has, and so does Reader.
//   - checksums: Impala never wrote one and its scanner never verified one.
//     We read and write "crc-32" (or "crc32") as four bytes after each
//     block's stored bytes: the little-endian CRC-32 of the uncompressed
//     body, counted in neither size.
//
// Writer reproduces Impala's block-cutting rule (a 64 KiB budget per block,
// a definition-array capacity estimated from the previous block), so a flat
// table of nullable columns comes out byte for byte as Impala wrote it,
// compressed bytes aside. It does not reproduce Impala's bugs: a boolean
// block always holds a byte for every 8 values (Impala's size counter could
// give it fewer, losing bits when NULLs fall on block rows 0, 8, 16...);
// where Impala divided by zero (a block averaging under a byte a row) the
// average is taken as one byte; a value too large for a block goes alone in
// its own block rather than leaving an empty one. Reader reports a boolean
// block that lost its bits (ErrImpalaBoolean), or reads it as Impala's
// scanner did with ReaderOptions.ImpalaBooleans, and reports values areas
// with bytes left over (which a file cut at Impala's file-rollover bug
// would have). Files from Impala's first version, whose zigzag writer
// garbled ints of 2^30 and more and longs outside the int range, cannot be
// told apart from correct ones.
//
// # Nested data
//
// Impala wrote only flat tables (maximum definition level 1, no
// repetition). For nested data this package takes the natural reading of
// the wiki's grammar, as Dremel defines the levels:
//
//   - only leaf columns exist (no parent columns, no trevni.parent): the
//     levels carry the structure;
//   - a column's trevni.definition and trevni.repetition are its maximum
//     levels, written when above 0;
//   - a block's row count counts level entries (one per value or per
//     missing value), not records, since Impala's scanner sizes the level
//     arrays from it; for a flat column the two are the same;
//   - a block starts where a record starts (repetition level 0), so that
//     records can be found block by block; the header's row count counts
//     records;
//   - the cutting rule is Impala's with the real width of both level
//     arrays, applied at record starts only.
//
// # Records
//
// RecordWriter and RecordReader map Avro records to and from version-1
// columns (see Layout): a nullable union adds a definition level, an array
// a definition and a repetition level, a map is an array of key and value,
// records nest by dotted paths. The Avro schema is stored as avro.schema.
// A file without it (Impala's) reads as a record trevni1.Row of one field
// per column, ["null", T] where the column is nullable. An Impala
// timestamp maps to the record trevni1.Timestamp {nanosOfDay: long,
// julianDay: int}, its two parts unchanged, so every bit survives (the day
// number's 32 bits are read as an int: boost's special values, just below
// 2^32, become negative; every real date is positive). fixed8, fixed16, fixed32 and fixed64 read as int or long
// carrying the property trevni1.type, which writing honours, so a file
// converts to version 2 and back unchanged. Unions of two or more
// non-null branches, recursive types and records without fields inside an
// array or a union cannot be expressed with levels: they are errors naming
// the field. Package trevni1/convert converts whole files to version 2
// and back.
//
// # Memory and compression
//
// Writer holds finished blocks in memory up to WriterOptions.MemoryBudget
// and spills them past it to a temporary file in WriterOptions.TempDir,
// copied after the header at Close; the file is the same either way, and
// Close or Abort removes the temporary file. Blocks are compressed and
// decompressed by the project's shared codecs (internal/codec), which
// bound decompression by the block's stated size; the zlib and gzip
// wrappers of version 1 are added and checked here.
//
// Reading is bounded as for version 2: a block larger than
// ReaderOptions.MaxBlockSize is refused before anything of it is
// allocated, the block buffers of all ColumnReaders of a Reader stay
// within ReaderOptions.BlockMemory (both ErrLimit), and columns must start
// at offsets of their own, their blocks ending before the next column, so
// that the block tables together fit in the file. Writer writes no block
// larger than WriterOptions.MaxBlockSize, by default the largest a Reader
// accepts.
package trevni1
