// Package shred writes records into Trevni files, one column per simple
// value, as Java's trevni-avro does.
//
// An [AvroWriter] takes Avro records either as goavro native values (Write)
// or as their Avro binary encoding (WriteBinary), the fast path, which
// decodes straight into the columns with a decoder compiled once from the
// schema, with no per-value allocation. Both make exactly the same file.
// [FromContainer] converts a whole Avro object container file.
//
// Map entries are written sorted by key, so the output does not depend on
// map iteration order, and files written with the null codec are byte for
// byte what Java writes for the same records in that order.
package shred
