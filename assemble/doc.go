// Package assemble reads records back out of Trevni files.
//
// An [AvroReader] reads the records of a file written from Avro (by this
// module or by Java's trevni-avro), either as goavro native values (Read)
// or straight into Avro's binary encoding (ReadBinary), the fast path used
// to write Avro container files.
//
// Given a reader schema, it projects and evolves: only the columns the
// reader schema needs are read (the others are never decompressed), fields
// may be reordered, dropped, or added with defaults (anywhere, including
// inside arrays, maps and unions, where Java fails), values are promoted as
// Avro allows (int to long, float or double; long to float or double;
// float to double; string to and from bytes), enums are resolved by symbol
// and union branches by name. A reader schema that cannot read the file
// is rejected when the reader is made, with the path of the first field at
// fault.
package assemble
