package assemble

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/trevni-go/trevni/internal/fieldpath"
	"github.com/trevni-go/trevni/internal/ocf"
	"github.com/trevni-go/trevni/internal/protoset"
)

// ContainerOptions configures ToContainer. A nil *ContainerOptions means
// the zero value.
type ContainerOptions struct {
	// Codec is the Avro codec: null (the default), deflate, snappy,
	// bzip2, xz or zstandard.
	Codec string
	// Level is the compression level, 0 for the codec's default.
	Level int
	// SyncMarker, if not zero, is used instead of a random one, for
	// reproducible output.
	SyncMarker [16]byte
	// Progress, if set, is called now and then with the records written so
	// far, and once at the end.
	Progress func(rows int64)
}

// JSONOptions configures ToJSON. A nil *JSONOptions means the zero value.
type JSONOptions struct {
	// Pretty indents each record over several lines.
	Pretty bool
	// Plain writes plain JSON (ReadPlainJSON) instead of Avro's JSON
	// encoding: unions unwrapped, bytes in base64, decimals as exact
	// numbers, times as strings. It also takes a reader with a field
	// selection.
	Plain bool
	// Progress, if set, is called now and then with the records written so
	// far, and once at the end.
	Progress func(rows int64)
}

// checkEvery is how many records pass between checks of the context and
// calls of Progress.
const checkEvery = 4096

// stopped reports a context that ended the output after n records.
func stopped(ctx context.Context, n int64) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("assemble: stopped after %d records: %w", n, err)
	}
	return nil
}

// pump reads every remaining record with read and hands it to put,
// checking ctx and calling progress now and then. It returns the number of
// records put.
func pump(ctx context.Context, progress func(rows int64), read func(dst []byte) ([]byte, error), put func(rec []byte) error) (int64, error) {
	if err := stopped(ctx, 0); err != nil {
		return 0, err
	}
	var rec []byte
	var n int64
	for {
		var err error
		rec, err = read(rec[:0])
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, err
		}
		if err := put(rec); err != nil {
			return n, err
		}
		n++
		if n%checkEvery == 0 {
			if err := stopped(ctx, n); err != nil {
				return n, err
			}
			if progress != nil {
				progress(n)
			}
		}
	}
	if progress != nil {
		progress(n)
	}
	return n, nil
}

// ToContainer writes every remaining record of ar to w as an Avro object
// container file of the reader schema, through the fast path (ReadBinary),
// and returns the number of records written. It stops with ctx's error,
// wrapped, if ctx ends first.
func ToContainer(ctx context.Context, w io.Writer, ar *AvroReader, opts *ContainerOptions) (int64, error) {
	var o ContainerOptions
	if opts != nil {
		o = *opts
	}
	if err := stopped(ctx, 0); err != nil {
		return 0, err
	}
	cw, err := ocf.NewWriter(w, ar.readText, ocf.WriterOptions{Codec: o.Codec, Level: o.Level, SyncMarker: o.SyncMarker})
	if err != nil {
		return 0, err
	}
	n, err := pump(ctx, o.Progress, ar.ReadBinary, cw.Append)
	if err != nil {
		return n, err
	}
	return n, cw.Close()
}

// ToJSON writes every remaining record of ar to w in Avro's JSON encoding
// (or plain JSON, with Plain), one record per line (or indented, with
// Pretty), through the fast path (ReadJSON or ReadPlainJSON), and returns the number of records written. It stops with
// ctx's error, wrapped, if ctx ends first.
func ToJSON(ctx context.Context, w io.Writer, ar *AvroReader, opts *JSONOptions) (int64, error) {
	var o JSONOptions
	if opts != nil {
		o = *opts
	}
	readJSON := ar.ReadJSON
	if o.Plain {
		readJSON = ar.ReadPlainJSON
	} else if ar.selective {
		return 0, errors.New("assemble: records with selected fields do not match the schema: use a reader schema or plain JSON")
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	var pretty bytes.Buffer
	read := func(dst []byte) ([]byte, error) {
		line, err := readJSON(dst)
		if err != nil {
			return line, err
		}
		if o.Pretty {
			pretty.Reset()
			if err := json.Indent(&pretty, line, "", "  "); err != nil {
				return line, err
			}
			line = append(line[:0], pretty.Bytes()...)
		}
		return append(line, '\n'), nil
	}
	n, err := pump(ctx, o.Progress, read, func(line []byte) error {
		_, err := bw.Write(line)
		return err
	})
	if err != nil {
		return n, err
	}
	return n, bw.Flush()
}

// ToProtoJSON writes every remaining message of pr to w as protojson
// writes it (the plain JSON of files written from protobuf: enum names,
// Timestamp and Duration as strings, wrappers unwrapped, unknown fields
// left out), one message per line (or indented, with opts.Pretty), and
// returns the number written. Messages with required fields unset are
// written as they are; a message protojson refuses (a Timestamp beyond
// year 9999, an Any of an unknown type) is an error carrying its record
// number. It stops with ctx's error, wrapped, if ctx ends first.
func ToProtoJSON(ctx context.Context, w io.Writer, pr *ProtoReader, opts *JSONOptions) (int64, error) {
	var o JSONOptions
	if opts != nil {
		o = *opts
	}
	js := protoset.JSONOptions{AllowPartial: true}
	if o.Pretty {
		js.Indent = "  "
	}
	m := pr.mt.New().Interface()
	bw := bufio.NewWriterSize(w, 256<<10)
	read := func(dst []byte) ([]byte, error) {
		if err := pr.ReadInto(m); err != nil {
			return dst, err
		}
		dst, err := protoset.AppendJSON(dst, m, js)
		if err != nil {
			return dst, fieldpath.Record(fmt.Errorf("assemble: protojson: %w", err), pr.ar.row-1)
		}
		return append(dst, '\n'), nil
	}
	n, err := pump(ctx, o.Progress, read, func(line []byte) error {
		_, err := bw.Write(line)
		return err
	})
	if err != nil {
		return n, err
	}
	return n, bw.Flush()
}
