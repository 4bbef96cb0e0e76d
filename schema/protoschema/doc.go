// Package protoschema maps protobuf message types to Avro schemas, so that
// protobuf messages can be stored as ordinary Avro records (and so in
// Avro-Trevni files that other Avro readers can read) and turned back into
// the same messages: message → Avro value → message is proto.Equal, unknown
// fields included. Package typemap/protovalue converts the values; package
// schema/protoload loads the descriptors (descriptor sets, .proto files,
// the registry).
//
// [New] builds the Avro schema directly as a *schema.Schema tree
// ([Mapping.Schema]); its JSON text, stored in files as avro.schema, is
// that tree's String. The [Record] and [Field] tree beside it annotates
// each record and field of the schema with its protobuf descriptor, for
// the code that converts values and wire data.
//
// # Mapping
//
// The mapping uses plain Avro types only, no logical types, so that values
// are exact.
//
//	protobuf                            Avro
//	----------------------------------  -------------------------------------------
//	int32, sint32, sfixed32             int
//	int64, sint64, sfixed64             long
//	uint32, fixed32                     long (0 to 2^32-1)
//	uint64, fixed64                     long with the same 64 bits (2^63 and up are negative)
//	float / double                      float / double (bits kept: -0, NaN, ±Inf)
//	bool                                boolean
//	string                              string
//	bytes                               bytes
//	enum                                int holding the number, declared or not;
//	                                    symbols in the field property "protobuf.enum"
//	message, group                      record named after the message's full name
//	repeated T                          array of T, default []
//	map<K, V>                           map of V, default {}; the key as text (below)
//	field with presence (not repeated)  ["null", T] with default null
//	field without presence              T, default the zero value; unset is the zero value
//	oneof                               each member a nullable field; at most one non-null
//	unknown fields and extensions       bytes field "_unknown" (wire format), last
//	recursion past Options.RecursionLimit  bytes holding the message's wire format
//
// Fields with presence are proto2 optional and required fields, proto3
// optional fields, message fields, oneof members, and editions fields whose
// field_presence is EXPLICIT or LEGACY_REQUIRED. So a field set to its
// default differs from an unset one, and an unset required field is null.
// Fields keep their declaration order and their protobuf names.
//
// Map keys are text: a string key is itself; a bool key is "true" or
// "false"; an integer key is its decimal value with no plus sign or leading
// zeros, unsigned kinds read as unsigned ([MapKeyText], [ParseMapKey]).
// Protobuf maps are unordered, like Avro maps.
//
// A record's Avro full name is the message's full name, for example
// "opentelemetry.proto.trace.v1.Span" (namespace
// "opentelemetry.proto.trace.v1"). A record is defined where it first
// occurs, depth first, and named after that. A message type that occurs with
// different shapes (recursion cut at different depths) gets a record per
// shape; the second and later shapes are named with a suffix, "_2", "_3"...,
// that no message type in the schema uses.
//
// Recursive types such as google.protobuf.Struct and DescriptorProto are
// accepted: Avro-Trevni cannot shred a recursive schema, so a field whose
// message type already occurs RecursionLimit+1 times on the way from the
// root (once, by default) is stored as bytes holding the message's
// deterministic wire encoding, unknown fields included.
//
// A small descriptor can claim an enormous tree: each step of
// RecursionLimit multiplies the shapes of mutually recursive types. [New]
// counts the fields of the records it expands and stops with an error
// wrapping layout.ErrTooLarge past Options.Limits (the layout's column and
// depth limits, by default layout.DefaultMaxColumns and
// layout.DefaultMaxDepth), before allocating more. The layout of the
// schema, which can be exponentially larger than the schema itself (two
// fields of the previous type, 26 levels deep), is bounded by package
// layout under the same limits.
//
// The field for unknown fields is named "_unknown", with underscores
// prepended while the message has a field of that name. It holds the
// message's unknown fields as they are, followed by its extensions encoded as
// wire fields; when read back, extensions known to the resolver become
// extension fields again. Options.DropUnknown leaves it out.
//
// Well-known types (Timestamp, Duration, the wrappers, Any, Struct, Value,
// ListValue, FieldMask, Empty) are mapped as ordinary messages.
//
// Field properties describe the protobuf field to readers that want it:
// "protobuf.number", "protobuf.type" (the kind, the message or enum full
// name, or "map<K,V>"), "protobuf.oneof", "protobuf.enum" and
// "protobuf.serialized"; records carry "protobuf.message". Avro readers
// ignore them.
//
// Caveats: proto2 strings (and editions strings without UTF-8 validation)
// may hold invalid UTF-8, which protobuf accepts but Avro and Trevni
// strings cannot hold: writing such a message to a Trevni file fails with
// an error naming the column, rather than making a file no reader can read.
// A message type without a package that occurs
// inside one with a package is written with "namespace": "" as the Avro
// specification says, but goavro v2 wrongly puts it in the enclosing
// namespace.
package protoschema
