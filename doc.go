// Package trevni reads and writes Trevni column files, and the data sets
// they make, from Go. It is the one place to start: everything the trevni
// command does goes through it, and the packages beneath it stay usable on
// their own for what only they do.
//
// # Reading
//
// Open takes a data set by name: a file, a shell-style glob of parts, a
// directory of parts, or an http(s) URL (read with range requests);
// OpenReaderAt takes any io.ReaderAt. Each part may be Trevni 2 (the
// format Java's trevni-core writes), Impala's Trevni 1, or CLMN; the first
// bytes tell which.
//
//	ds, err := trevni.Open(ctx, "events/*.trv", nil)
//	if err != nil { ... }
//	defer ds.Close()
//	fmt.Println(ds.RowCount(), ds.Schema())
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
//	for rec, err := range ds.Records(ctx, &trevni.ReadOptions{Fields: []string{"id"}, Limit: 10}) {
//		...
//	}
//
// Dataset.WriteJSON and Dataset.WriteAvro write the records as JSON lines
// (Avro's JSON encoding, or plain JSON with JSONOptions.Plain: unions
// unwrapped, bytes in base64, exact decimals, RFC 3339 times) or an Avro
// container file, Dataset.Count counts matches reading only the filter's
// columns, Dataset.Validate checks every part, and Dataset.Messages,
// Dataset.NewProtoReader and Dataset.WriteProto read files written from
// protobuf. A Dataset.NewReader reads record by record, with the report of
// what it decoded and what it fetched from storage; ReadOptions.Rows ends a
// range of rows, to split work by (Part.CandidateRows gives the runs a
// filter's statistics leave).
//
// Over HTTP a reader fetches each part's header, then only the blocks of
// the rows it reads, in the columns it reads, that the statistics leave.
//
// # Writing
//
// Create starts a Trevni file of Avro records (Writer: Write takes goavro
// native values, WriteBinary Avro binary, AppendAvro a whole container
// file); CreateStructs takes Go structs, CreateProto protobuf messages,
// and ConvertAvro converts an Avro container file in one call. Files are
// written beside their name and put in place by Close only when complete;
// an existing file is replaced only with WriteOptions.Replace. NewWriter
// writes to any io.Writer.
//
//	w, err := trevni.Create(context.Background(), "out.trv", schemaText, &trevni.WriteOptions{Codec: Snappy})
//	if err != nil { ... }
//	defer w.Abort() // does nothing after a successful Close
//	for _, rec := range records {
//		if err := w.Write(rec); err != nil { ... }
//	}
//	err = w.Close()
//
// # Beneath the front door
//
// Package format reads and writes the Trevni container (columns, blocks,
// codecs, checksums, statistics) and knows nothing of Avro; schema and
// schema/layout parse Avro schemas and lay them out as columns;
// schema/protoschema maps protobuf descriptors to Avro; shred turns
// records into columns and assemble columns into records; predicate
// compiles filters; trevni1 and clmn are the sibling formats;
// csvtable converts flat tables; remote reads over HTTP. Part.Open gives a
// part's own reader (File.Trevni, File.Trevni1, File.CLMN) for what is
// particular to a format.
//
// # Limits
//
// Options bounds what reading may cost: Layout the columns and nesting of
// a schema, Reader the largest block and the memory held in block buffers.
// Hostile files fail with an error naming the file, column, block and row,
// within those bounds.
package trevni
