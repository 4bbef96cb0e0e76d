// Package shred writes records into Trevni files, one column per simple
// value, as Java's trevni-avro does.
//
// An [AvroWriter] takes Avro records either as goavro native values (Write)
// or as their Avro binary encoding (WriteBinary), the fast path, which
// decodes straight into the columns with no per-value allocation. Both
// walk the same layout tree (package schema/layout) and share what the
// file's structure dictates: union branch lengths, array and map lengths,
// the order of map keys and the refusal of strings that are not UTF-8.
// Both make exactly the same file. [FromContainer] converts a whole Avro
// object container file, and [AvroWriter.AppendContainer] adds one to a
// writer; both take a context, checked between Avro blocks.
//
// Map entries are written sorted by key bytes, so the output does not
// depend on map iteration order, and files written with the null codec are
// byte for byte what Java writes for the same records in that order; with
// [Options].KeepMapOrder, entries given in Avro binary keep their order
// (a Parquet MAP's, which readers show).
//
// A record that cannot be written is not, and gets a *[schema.Error]
// naming the record, counted from 0, and the field path within it;
// writing can go on with the next record. Walks over records follow the
// layout, so no record, however hostile, makes them recurse deeper than
// the schema nests (which [layout.Options] bounds); counts and lengths in
// Avro binary are checked against the bytes left before anything is
// allocated or looped over, and array items that take no bytes are
// bounded by [MaxEmptyItems] per record.
package shred
