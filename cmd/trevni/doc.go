// Trevni reads, checks and converts Trevni column files.
//
// Usage:
//
//	trevni COMMAND [flags] ARGS
//	trevni --version
//
// The commands are:
//
//	fromavro    convert an Avro container file to Trevni
//	toavro      convert a Trevni file back to an Avro container file
//	tojson      print records as Avro JSON, one per line
//	fromjson    convert Avro JSON lines to Trevni
//	fromproto   convert a stream of protobuf messages to Trevni
//	toproto     convert a Trevni file made from protobuf back to messages
//	fromcsv     convert a CSV file to Trevni (or to CLMN)
//	tocsv       write the flat records of a Trevni or CLMN file as CSV
//	fromclmn    convert a CLMN file to Trevni
//	toparquet   convert a data set to a Parquet file
//	fromparquet convert Parquet files to Trevni
//	toarrow     convert a data set to an Arrow IPC file (or stream, to -)
//	toclmn      convert a Trevni file of flat records to CLMN
//	concat      join Trevni files of the same columns by copying their blocks
//	recodec     rewrite a Trevni file's blocks with another codec, values not decoded
//	split       split a Trevni file into parts of N records or SIZE bytes
//	random      write random records of an Avro schema
//	schema      print the Avro schema stored in a file
//	meta        print a file's metadata, columns and block descriptors as JSON
//	columns     print each column's sizes, codec, value and null counts, minimum and maximum
//	dump        print every row as a JSON object, one per line
//	inspect     write an HTML page showing where a file's bytes are
//	count       print the number of records, or of those matching --where
//	head        print the first records as Avro JSON
//	validate    check a file's structure and every checksum
//	version     print the version, the Go release and the codecs built in
//	completion  print a shell completion script (bash, zsh, fish)
//	man         print the manual page (roff)
//	help        explain a command
//
// The reading commands (tojson, toavro, toproto, dump, meta, columns,
// validate, count, head) take a data set: several files, globs (quoted; the tool
// expands them), directories (their *.trv, *.trv1 and *.clmn files in name
// order) and http:// or https:// URLs (read with range requests), read one
// after the other; count sums the parts and head prints the first records
// of the set. Each file may be Trevni 2, Trevni 1 (Impala's) or CLMN, told
// by its first bytes: every input is opened through the front door,
// package trevni, and the record commands read every format alike.
//
// A file argument of "-" means standard input or standard output. A command
// never writes over one of its inputs, and replaces an existing output file
// only with --force. Output files are written in a private temporary
// directory beside them and renamed into place only when complete, so a
// failed or interrupted run leaves no partial file and leaves an existing
// file untouched. Without --force the rename never replaces a file: one
// that another process created under the name while the command ran is
// left as it is, and the command fails. A command whose standard output is
// one of its inputs (trevni tojson g.trv >> g.trv) refuses to run, as cat
// does: "input file is output file".
//
// Errors are reported as one line, "trevni: COMMAND: FILE: what went
// wrong", with exit status 1; usage errors exit with status 2; a run
// interrupted by SIGINT or SIGTERM exits with 128 plus the signal number.
// Long runs show their progress on standard error when it is a terminal,
// unless --quiet is given.
//
// The commands that read records (tojson, toavro, head, and dump) take
// --fields a,b.c to read only some fields' columns (dump also takes full
// column names; toproto takes --fields alone), --where EXPR to keep only
// the records satisfying a filter expression, skipping the blocks whose
// statistics rule out a match (dump: in files written from Avro), and
// --report to print what was read; count takes --where and --report. The
// commands that write Trevni files store those statistics unless given
// --stats=false.
//
// Run "trevni help COMMAND" for the details of a command, "trevni man" for
// the manual page.
package main
