// Package trevniparquet writes Trevni data sets as Parquet files and
// reads Parquet files into Trevni, over the Arrow mapping of package
// trevniarrow (with its SchemaOptions.Parquet) and arrow-go's Parquet
// packages.
//
// Write writes a data set as Parquet, straight from its Trevni columns
// through the columnar read layer (assemble/levels) where the data set's
// parts share one schema, else through trevniarrow's record batches and
// arrow-go's pqarrow. Pages are snappy-compressed by default (or zstd,
// gzip, brotli, lz4, none), in row groups of WriteOptions.RowGroupRows,
// with statistics on every column chunk and page but those of INTERVALs,
// to which Parquet gives no order. Unions other than ["null", T] become
// structs of an optional field per non-null branch, a record of no fields
// a struct of one null field "_", decimals optional, durations INTERVALs
// (FIXED_LEN_BYTE_ARRAY(12), the duration's bytes). The Avro schema goes
// in the key-value metadata under "avro.schema", so that Open restores it
// (names, namespaces, enums, logical types, field order, unions).
//
// Open opens a Parquet file: the Avro schema its writer stored
// ("avro.schema", or parquet-avro's "parquet.avro.schema", checked
// against the columns: a stored schema is a claim) or one inferred from
// its Arrow schema as trevniarrow.AvroSchema infers it. File.WriteTo
// writes its rows into a Trevni writer; File.RecordReader reads them as
// Arrow batches. Files of the writers people have are read as DuckDB
// reads them: legacy lists and maps of parquet-java, parquet-avro, Hive,
// Impala and Spark; dictionary columns; INT96 timestamps over their whole
// range; Hadoop's and raw LZ4; empty version 2 pages; unknown logical
// types as their physical type. Page checksums are verified unless
// ReadOptions.SkipChecksums. A damaged or lying file is an error naming
// the row group, column and page at fault, never a panic, and the
// reader's memory is bounded by ReadOptions.MaxMemory.
//
// Importing the package registers the Parquet format on the front door:
// trevni.Open (and the trevni command's reading commands) then take
// Parquet files as parts of a data set, read where they lie through a
// column source: each slice of a row group (about 4 MiB of its rows) is
// read as Open's File reads it and written into Trevni columns in memory
// as a column asks for it, so that filters, fields, limits and workers
// work as on any part. The core module links no Parquet reader without
// this import.
package trevniparquet
