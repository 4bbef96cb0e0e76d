// Package trevni reads and writes Trevni column files, and the data sets
// they make, from Go. It is the one place to start: the trevni command is
// built on it, and the packages beneath it stay usable on their own for
// what only they do.
//
// # Reading
//
// Open takes a data set by name: a file, a shell-style glob of parts, a
// directory of parts, an http(s) URL (read with range requests) or an
// object of a store (s3://, gs://, azblob://); OpenReaderAt takes any
// io.ReaderAt. Each part may be Trevni 2 (the format Java's trevni-core
// writes), Impala's Trevni 1, CLMN, an Avro object container file, or a
// Parquet file (in a program that imports package trevniparquet, which
// registers the format); the first bytes tell which. Every format is
// read through the same column source, with the same filters, fields
// and limits.
//
//	ds, err := trevni.Open(ctx, "events/*.trv", nil)
//	if err != nil { ... }
//	defer ds.Close()
//	fmt.Println(ds.RowCount(), ds.SchemaText())
//
// Records come out as Go structs, goavro native values, Avro binary, Avro
// JSON, or protobuf messages for files written from protobuf. Every read
// takes ReadOptions: Fields selects fields (only their columns are read),
// Where filters in the grammar of "trevni tojson --where" (blocks whose
// statistics rule out a match are not read), and Offset and Limit take a
// range:
//
//	type Event struct {
//		ID   int64  `avro:"id"`
//		Kind string `avro:"kind"`
//	}
//	for e, err := range trevni.ReadStructs[Event](ctx, ds, &trevni.ReadOptions{Where: "kind = 'click'"}) {
//		...
//	}
//
//	for rec, err := range ds.All(ctx, &trevni.ReadOptions{Fields: []string{"id"}, Limit: 10}) {
//		...
//	}
//
// The values yielded are the caller's to keep. Dataset.WriteJSON and
// Dataset.WriteAvro write the records as JSON lines or an Avro container
// file, Dataset.Count counts matches reading only the filter's columns,
// Dataset.Validate checks every part, and Dataset.Messages and
// Dataset.WriteProto read files written from protobuf. A Dataset.NewReader
// reads record by record, with the report of what it decoded and fetched.
//
// Reads run on the calling goroutine unless ReadOptions.Workers asks for
// more (the trevni command gives one per core), or OpenOptions.ReadAhead
// for the columns of local files. A Dataset is safe for
// concurrent use by several readers: open it once and share it between
// requests; each Reader or iterator is one goroutine's.
//
// # Writing
//
// Create starts a Trevni file of Avro records (Writer: Write takes goavro
// native values, WriteBinary Avro binary, AppendAvro a whole container
// file, AppendJSONLines JSON lines, AppendCSV CSV text); CreateStructs takes Go structs, CreateProto protobuf messages,
// ConvertAvro converts an Avro container file in one call and Concat joins
// Trevni files by copying their blocks. Files are written beside their
// name, or uploaded to a store, and put in place by Close only when
// complete; an existing file is replaced only with WriteOptions.Replace.
// NewWriter, NewStructWriter and NewProtoWriter write to any io.Writer,
// as ConvertAvroStream and ConvertProtoStream do a stream's records.
//
// The protobuf readers and writers (CreateProto, NewProtoWriter,
// Dataset.NewProtoReader, Messages, WriteProto, and WriteJSON of files
// written from protobuf) need the protobuf runtime's descriptor packages,
// which a program reading Avro-written files does without: a program that
// uses them imports package schema/protoload, which links them; without
// it they fail with an error that names that import.
//
//	import _ "github.com/trevni-go/trevni/schema/protoload"
//
//	w, err := trevni.Create(ctx, "out.trv", schemaText, &trevni.WriteOptions{Codec: trevni.Snappy})
//	if err != nil { ... }
//	defer w.Abort() // does nothing after a successful Close
//	for _, rec := range records {
//		if err := w.Write(rec); err != nil { ... }
//	}
//	err = w.Close()
//
// WriteOptions' defaults are the trevni command's: the Deflate codec, CRC32
// checksums, block statistics, 64 KiB blocks, a 16 MiB memory budget.
//
// # Errors
//
// Errors name the file and where in it, name the options that raise a
// limit as a program of this package sets them (OpenOptions.MaxBlockSize,
// WriteOptions.MaxColumns ...), and wrap sentinels re-exported here, so
// that a program tests them with errors.Is and this package alone, with
// no import of format, schema or the stores:
//
//   - ErrCorrupt: a damaged file of any format Open reads (truncated,
//     inconsistent); ErrChecksum, a block failing its checksum, is a kind
//     of it, so "is the file damaged?" is one test.
//   - ErrLimit: input past a limit of OpenOptions or WriteOptions (a
//     block, a record, block memory); ErrSchemaTooLarge: a schema past
//     MaxColumns or MaxDepth.
//   - ErrIncompatible: a reader schema, struct type or field selection
//     that cannot read the data; ErrValue and ErrBinary: a record a writer
//     refuses (and writing may go on).
//   - ErrExists: an output that may not be replaced; ErrUnknownFormat and
//     ErrNoParquet: a file Open cannot read.
//   - ErrTimeout: a remote request that stalled; ErrTooLarge: a download
//     past MaxDownload; ErrChanged: an object of a store or an http(s)
//     resource replaced or deleted while it is read (reads never mix two
//     versions).
//
// Where is found with errors.As: a *FileError gives the column, block, row
// and offset in a file, a *RecordError the record and the field path.
//
//	var fe *trevni.FileError
//	switch {
//	case errors.Is(err, trevni.ErrCorrupt) && errors.As(err, &fe):
//		log.Printf("damaged: column %s, block %d, from row %d", fe.Column, fe.Block, fe.Row)
//	case errors.Is(err, trevni.ErrChanged):
//		// the file was replaced while it was read: open it again
//	}
//
// # Limits
//
// OpenOptions bounds what reading may cost: MaxColumns and MaxDepth the
// columns and nesting of a schema (ErrSchemaTooLarge), MaxBlockSize the
// largest block, BlockMemory the memory held in block buffers and
// MaxRecordBytes one record (ErrLimit). Hostile files fail with an error
// naming the file, column, block and row, within those bounds.
// SkipChecksums reads what a damaged file still holds, its checksums
// unverified.
//
// # Remote data
//
// Names of http(s) URLs are read through an HTTPClient (OpenOptions.HTTP,
// or the one importing package remote/httpread links), objects of stores
// through the drivers a program imports (stores/s3, stores/gs,
// stores/azblob) or the stores it hands in (OpenOptions.Stores,
// WriteOptions.Stores); StoreRetries, StoreBackoff and StoreStall set
// their retries and stalls. A
// program that reads local files links none of them.
//
// OpenObject opens any one name the same way, as bytes to read at random
// (an Object: io.ReaderAt, Size, Close), for a reader of another format
// such as a Parquet library; OpenObjectStream does it for a stream
// (standard input), copied to a temporary file when it must be.
//
// # Beneath the front door
//
// Package format reads and writes the Trevni container (columns, blocks,
// codecs, checksums, statistics) and knows nothing of Avro; schema and
// schema/layout parse Avro schemas and lay them out as columns;
// schema/protoschema maps protobuf descriptors to Avro; shred turns
// records into columns and assemble columns into records; predicate
// compiles filters; trevni1 and clmn are the sibling formats; csvtable
// converts flat tables; remote reads over HTTP; trevniarrow reads and
// writes Arrow record batches and IPC files, trevniparquet Parquet files.
// What is particular to a format (Trevni 2 block statistics, Trevni 1
// levels) is read with its package over OpenObject's bytes. The trevni command is
// built on this door: beside it, it imports only what docs/layout.md lists.
package trevni
