package trevni

import (
	"fmt"
	"strings"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/remote"
	"github.com/trevni-go/trevni/remote/store"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/shred"
)

// The errors a caller of the front door tests for, with errors.Is. They
// are those of the packages beneath, under one roof: an error of the
// front door wraps one of these when it applies, with the file's name and
// where in it.
var (
	// ErrCorrupt reports a damaged file of any format Open reads:
	// truncated, inconsistent, or a block that fails its checksum
	// (format.ErrFormat, of which trevni1's and clmn's malformed-file
	// errors and every ErrChecksum are kinds). The *FileError it comes in
	// says where.
	ErrCorrupt = format.ErrFormat
	// ErrChecksum reports a block whose checksum does not match its data
	// (format.ErrChecksum; a Trevni 1 file's too). It is a kind of
	// ErrCorrupt: errors.Is matches an error wrapping it to both, so a
	// caller that only asks "is the file damaged?" tests ErrCorrupt.
	ErrChecksum = format.ErrChecksum
	// ErrLimit reports input that needs more than a limit allows (a block,
	// a record, the block buffers of a reader); the message names what
	// raises it (format.ErrLimit; OpenOptions' MaxBlockSize, BlockMemory,
	// MaxRecordBytes).
	ErrLimit = format.ErrLimit
	// ErrSchemaTooLarge reports a schema beyond OpenOptions' (or
	// WriteOptions') MaxColumns or MaxDepth, refused before anything is
	// allocated for its columns (schema.ErrTooLarge).
	ErrSchemaTooLarge = schema.ErrTooLarge
	// ErrIncompatible reports a reader schema, a struct type or a field
	// selection that cannot read the data set's schema
	// (assemble.ErrIncompatible).
	ErrIncompatible = assemble.ErrIncompatible
	// ErrValue reports a record given to a writer that does not fit its
	// schema (a *RecordError names the record and the field); the record
	// is not written and writing may go on.
	ErrValue = shred.ErrValue
	// ErrBinary reports a record given in Avro binary (WriteBinary,
	// AppendAvro, ConvertAvro) that does not decode.
	ErrBinary = shred.ErrBinary
	// ErrTimeout reports a remote request that made no progress in time:
	// over HTTP (OpenOptions.HTTP's timeouts) or to a store (StoreStall;
	// the stores' stall error, objstore.ErrStalled, is a kind of it).
	ErrTimeout = remote.ErrTimeout
	// ErrTooLarge reports a part whose server serves no byte ranges and
	// that is longer than OpenOptions.MaxDownload, so is not downloaded
	// (remote.ErrTooLarge).
	ErrTooLarge = remote.ErrTooLarge
	// ErrChanged reports an object of a store, or the resource of an
	// http(s) URL, that was replaced or deleted since it was opened,
	// while it is read: a data set's part, an Object (store.ErrChanged).
	// Reads never mix the bytes of two versions.
	ErrChanged = store.ErrChanged
)

// FileError locates a problem in a Trevni file: the byte offset, the
// column, the block and the row (fields that do not apply are -1, or ""
// for Column). Take it from an error with errors.As.
type FileError = format.Error

// RecordError locates a problem in a record (Record, from 0 at the start
// of the file or stream, and Path, a field path such as "tags[2]") or in a
// schema (Record -1). It wraps the cause: a *FileError for damaged data,
// ErrValue, ErrIncompatible ... Take it from an error with errors.As.
type RecordError = schema.Error

// optionNames turns the names of the options beneath that the errors of
// the packages beneath name into those a program of the root sets: a
// format.ReaderOptions' BlockMemory is OpenOptions.BlockMemory here.
// The options of the Avro source name the command's flags beside them,
// which the command adds on its own.
var optionNames = strings.NewReplacer(
	"--block-memory (format.ReaderOptions.BlockMemory)", "OpenOptions.BlockMemory",
	"--max-block-size (format.ReaderOptions.MaxBlockSize)", "OpenOptions.MaxBlockSize",
	"format.ReaderOptions.BlockMemory", "OpenOptions.BlockMemory",
	"format.ReaderOptions.MaxBlockSize", "OpenOptions.MaxBlockSize",
	"ReaderOptions.BlockMemory", "OpenOptions.BlockMemory",
	"ReaderOptions.ColumnMemory", "OpenOptions.BlockMemory",
	"ReaderOptions.MaxBlockSize", "OpenOptions.MaxBlockSize",
	"ReaderOptions.MaxColumns", "OpenOptions.MaxColumns",
	"ReaderOptions.StrictChecksums", "OpenOptions.StrictChecksums",
	"SourceOptions.MaxBlockSize", "OpenOptions.MaxBlockSize",
	"(Options.MaxRecordBytes)", "(OpenOptions.MaxRecordBytes)",
	"layout.Options.MaxColumns", "OpenOptions.MaxColumns",
	"layout.Options.MaxDepth", "OpenOptions.MaxDepth",
	"ParseOptions.MaxDepth", "OpenOptions.MaxDepth",
)

// writeOptionNames is optionNames for the writers: the options of format's
// writer, of the column layout and of the protobuf mapping that their
// errors name, as a program of the root sets them (WriteOptions,
// ProtoWriteOptions).
var writeOptionNames = strings.NewReplacer(
	"WriterOptions.BlockSize", "WriteOptions.BlockSize",
	"WriterOptions.MaxBlockSize", "WriteOptions.MaxBlockSize",
	"exceeds MaxWriterBlockSize", "exceeds the writers' limit",
	"must exceed BlockSize", "must exceed WriteOptions.BlockSize",
	"lower BlockSize", "lower WriteOptions.BlockSize",
	"ReaderOptions.MaxBlockSize", "OpenOptions.MaxBlockSize",
	"layout.Options.MaxColumns", "WriteOptions.MaxColumns",
	"layout.Options.MaxDepth", "WriteOptions.MaxDepth",
	"ParseOptions.MaxDepth", "WriteOptions.MaxDepth",
	"lower the recursion limit, or raise the column limit", "lower ProtoWriteOptions.RecursionLimit, or raise WriteOptions.MaxColumns",
	"lower the recursion limit, or raise the depth limit", "lower ProtoWriteOptions.RecursionLimit, or raise WriteOptions.MaxDepth",
	"negative RecursionLimit", "negative ProtoWriteOptions.RecursionLimit",
	"format.WriterOptions.", "WriteOptions.",
	"WriterOptions.", "WriteOptions.",
	"format.ReaderOptions.MaxBlockSize", "OpenOptions.MaxBlockSize",
	"ProtoOptions.MaxJSONMessageSize", "ProtoWriteOptions.MaxJSONMessage",
	"options metadata must not set", "WriteOptions.Meta may not set",
)

// partErr returns err, of the part called name, with the name before its
// message and the options that message names as a program of the root
// sets them (optionNames); errors.Is and errors.As see err as before.
func partErr(name string, err error) error {
	return &doorError{msg: name + ": " + optionNames.Replace(err.Error()), err: err}
}

// writeErr returns err, of a writer, with the options its message names as
// a program of the root sets them (writeOptionNames); errors.Is and
// errors.As see err as before. An error that names none, nil included, is
// returned as it is.
func writeErr(err error) error {
	if err == nil {
		return nil // inlined: no call on the writers' paths that succeed
	}
	return renameWriteErr(err)
}

// renameWriteErr is writeErr of an error.
func renameWriteErr(err error) error {
	msg := err.Error()
	if m := writeOptionNames.Replace(msg); m != msg {
		return &doorError{msg: m, err: err}
	}
	return err
}

// checkCodec returns the error of options whose Codec or Checksum no Trevni
// writer takes, naming the field and what it takes (where format's error
// would name neither, after the first column, or call a checksum a
// codec), or nil. It wraps format.ErrCodec, as that error does.
func (o *WriteOptions) checkCodec() error {
	if o == nil {
		return nil
	}
	switch o.Codec {
	case "", NoCodec, Deflate, Snappy, Bzip2, Zstd:
	default:
		return &doorError{msg: fmt.Sprintf("WriteOptions.Codec %q: a Trevni file is written with %s, %s, %s, %s or %s", o.Codec, NoCodec, Deflate, Snappy, Bzip2, Zstd), err: format.ErrCodec}
	}
	switch o.Checksum {
	case "", CRC32, NoChecksum, "crc-32":
	default:
		return &doorError{msg: fmt.Sprintf("WriteOptions.Checksum %q: a Trevni file is written with %s or %s", o.Checksum, CRC32, NoChecksum), err: format.ErrCodec}
	}
	return nil
}

// check is WriteOptions.check of o's WriteOptions.
func (o *ProtoWriteOptions) check() error {
	if o == nil {
		return nil
	}
	return o.WriteOptions.check()
}

// check returns the error of options that every writer refuses up front
// (checkCodec, checkMeta), or nil.
func (o *WriteOptions) check() error {
	if err := o.checkCodec(); err != nil {
		return err
	}
	return o.checkMeta()
}

// doorError is an error of the packages beneath in the front door's words.
type doorError struct {
	msg string
	err error
}

func (e *doorError) Error() string { return e.msg }
func (e *doorError) Unwrap() error { return e.err }
