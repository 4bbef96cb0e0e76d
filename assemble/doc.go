// Package assemble reads records back out of Trevni files.
//
// An [AvroReader] reads the records of a file written from Avro (by this
// module or by Java's trevni-avro): as goavro native values (Read, or the
// iterator All), straight into Avro's binary encoding (ReadBinary, the
// fast path behind [ToContainer]), into Avro's JSON encoding (ReadJSON,
// behind [ToJSON]) or into plain JSON, the JSON jq users expect (unions
// unwrapped, bytes in base64, decimals exact, times as strings:
// ReadPlainJSON, behind ToJSON with [JSONOptions.Plain]). Validate checks every record without building any.
// A [ProtoReader] reads the messages of a file written from protobuf;
// [ToProtoJSON] writes them as protojson does, their plain JSON.
//
// Given a reader schema, it projects and evolves: only the columns the
// reader schema needs are read (the others are never decompressed), fields
// may be reordered, dropped, or added with defaults (anywhere, including
// inside arrays, maps and unions, where Java fails), values are promoted as
// Avro allows (int to long, float or double; long to float or double;
// float to double; string to and from bytes), enums are resolved by symbol
// and union branches by name. Fields match by name, then by the reader
// field's aliases, then through [Options.MatchField] (ProtoReader matches
// protobuf field numbers there). A reader schema that cannot read the file
// is rejected when the reader is made, with the path of the first field at
// fault.
//
// # How reading works
//
// NewAvroReader compiles the reader schema against the file's column
// layout (package schema/layout) into a plan: one step per position, with
// every decision that does not depend on the data taken in advance. One
// interpreter walks the plan for every record and hands the values to a
// sink: a Go value, Avro binary, Avro JSON or plain JSON, or nothing (Validate). So
// the rules for union branches, enum symbols, lengths, UTF-8, promotions
// and defaults are written once and every read path follows them alike.
//
// # Errors
//
// A record that cannot be read is reported as a *schema.Error giving the
// record's number, counted from the start of the file (also after
// SeekRow), and the field path ("received[2].sigs[0].algo"). It wraps the
// cause: bad data wraps format.ErrFormat (a *format.Error giving the
// column, block and row), a value the reader schema has no place for wraps
// ErrIncompatible. A reader schema that cannot read the file at all is a
// *schema.Error of record -1.
//
// # Limits
//
// The file's schema is laid out within layout's bounds on columns and
// nesting ([Options.Layout] raises them); the plan and its interpreter
// follow the layout, so their depth is bounded with it. The read paths
// bound the array and map elements of one record
// (format.DefaultMaxRowElements); items that read no column are counted,
// not read one by one. Validate's time is linear in the bytes stored.
package assemble
