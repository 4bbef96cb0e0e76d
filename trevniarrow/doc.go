// Package trevniarrow reads Trevni data sets as Apache Arrow record
// batches and writes Arrow record batches into Trevni files, and writes
// the Arrow IPC format. (Parquet is package trevniparquet's, beside it.)
//
// NewRecordReader reads any data set trevni.Open opens (Trevni 2, Trevni
// 1, CLMN; a file, glob, directory or URL), with its field selection,
// filter, offset and limit, as an array.RecordReader: the batches' arrays
// are built from the definition and repetition levels and values of the
// Trevni columns (assemble/levels, as pqarrow builds arrays from Parquet
// levels), with no records assembled; parts of other schemas are resolved
// to the data set's reader schema by the columnar plan (levels.Plan), as
// Avro's resolution reads them. Nothing is allocated per value, and memory is bounded by the
// batch (ReadOptions BatchRows and BatchBytes), not by the file. Writer and WriteAll write
// batches into a trevni.Writer, each row encoded as an Avro record.
//
// # The mapping
//
// A batch's columns are the fields of the records' Avro schema (a schema
// that is not a record is the one column "value"). The Avro schema's text
// is kept in the Arrow schema's metadata under "avro.schema", so a batch
// written back (or a Parquet file written from it) restores the same
// schema: names, namespaces, enums, logical types, field order, the order
// of union branches.
//
//	Avro                                  Arrow
//	null                                  null
//	boolean                               bool
//	int, long                             int32, int64
//	float, double                         float32, float64
//	bytes, string                         binary, utf8
//	fixed                                 fixed_size_binary(size)
//	enum                                  dictionary<int32, utf8> of the symbols, in order
//	record                                struct (fields in order, by name)
//	array                                 list<item>
//	map                                   map<utf8, value>
//	["null", T] or [T, "null"]            T, nullable
//	any other union                       dense_union, type code = branch index, a child per branch
//	                                      (SchemaOptions.UnionsAsStructs: a struct of a nullable field
//	                                      per non-null branch, null for the null branch; for Parquet)
//	date                                  date32
//	time-millis, time-micros              time32[ms], time64[us]
//	timestamp-millis/-micros/-nanos       timestamp[ms/us/ns, tz=UTC]
//	local-timestamp-millis/-micros/-nanos timestamp[ms/us/ns] (no time zone)
//	decimal(p, s) on bytes or fixed       decimal128(p, s) for p ≤ 38, decimal256(p, s) for p ≤ 76,
//	                                      else the bytes or fixed unchanged
//	uuid on string or fixed(16)           the arrow.uuid extension type (fixed_size_binary(16));
//	                                      a string is read in its canonical form and written
//	                                      back in lower case
//	duration (fixed 12), big-decimal      fixed_size_binary(12), binary: the Avro bytes unchanged
//	                                      (SchemaOptions.Parquet: a duration of the extension type
//	                                      DurationExtension, a Parquet INTERVAL)
//
// Files written from Protobuf are read as their Avro mapping (package
// schema/protoschema).
//
// # Arrow IPC and Parquet
//
// WriteIPC writes the Arrow IPC file or stream format. Parquet files are
// written and read by package trevniparquet, over this mapping (with
// SchemaOptions.Parquet).
//
// Batches from elsewhere (Parquet files, DuckDB, pandas) without the
// metadata are written with an Avro schema inferred by AvroSchema: the
// mapping above backwards, and besides int8, int16, uint8, uint16 as int;
// uint32, uint64 as long (a uint64's 64 bits: 2^63 and up as negative
// longs); float16 as float; large and view strings, binaries and lists as
// theirs; fixed-size lists as arrays; maps with keys that are not strings
// as arrays of key-value records; dictionaries as their values; date64 as
// date; time32[s] as time-millis, time64[ns] and durations as long;
// timestamp[s] as timestamp-millis; month-day-nano intervals (and
// DurationExtension) as the duration fixed; sparse unions as unions;
// nullable fields as ["null", T]. The Arrow types Avro has none for
// (narrow and unsigned integers, time64[ns], durations, maps of other
// keys) are named in the Avro type's PropArrowType property, and the
// Parquet logical types ParquetExtension carries in PropParquetUTC and
// PropParquetLogical; ArrowSchema with SchemaOptions.ForeignTypes gives
// them back. Names that are not valid Avro names have their other
// characters replaced by "_" (the Arrow name kept in the field's
// "arrow.name" property).
package trevniarrow
