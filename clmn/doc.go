// Package clmn reads and writes CLMN files, the flat columnar format of the
// CLMN specification 1.0: a header naming every column with its type
// (INT32, INT64, FLOAT64 or STRING), sizes and offset, then one zlib stream
// per column holding its values big-endian (strings as a 2-byte length and
// UTF-8 bytes).
//
// A Reader reads only the header when it is opened; a column is read and
// inflated only when asked for, value by value, so reading some columns of
// a large file touches only their bytes and holds no column in memory. Every
// rule of the specification's section 9.1 is checked, with errors naming
// the column and the file offset: magic, version, column count, offsets and
// sizes within the file, sizes consistent with the type and the row count,
// zlib streams that end exactly at their compressed size and inflate to
// exactly their claimed size, strings inside their column and valid UTF-8.
// No allocation is made from a size the file could not hold. A file of more
// than [ReaderOptions].MaxColumns columns is refused from its column count;
// a small column (up to 4 KiB) is inflated at once when first read, and the
// inflaters of larger columns read side by side stay within
// [ReaderOptions].ColumnMemory. A Writer writes no more columns than a
// Reader accepts by default.
//
// A Writer takes rows one at a time and keeps memory bounded: each column is
// compressed as it comes, and compressed bytes past a small buffer spill to
// one temporary file, copied after the header when the Writer is closed.
package clmn
