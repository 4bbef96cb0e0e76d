package assemble

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/trevni-go/trevni/internal/ocf"
)

// ContainerOptions configures ToContainer.
type ContainerOptions struct {
	// Codec is the Avro codec: null (the default), deflate, snappy,
	// bzip2, xz or zstandard.
	Codec string
	// Level is the compression level, 0 for the codec's default.
	Level int
	// SyncMarker, if not zero, is used instead of a random one, for
	// reproducible output.
	SyncMarker [16]byte
}

// ToContainer writes every remaining record of ar to w as an Avro object
// container file of the reader schema, through the fast path. progress,
// if not nil, is called periodically with the records written so far.
func ToContainer(w io.Writer, ar *AvroReader, opts *ContainerOptions, progress func(rows int64)) (int64, error) {
	var o ContainerOptions
	if opts != nil {
		o = *opts
	}
	cw, err := ocf.NewWriter(w, ar.SchemaText(), ocf.WriterOptions{Codec: o.Codec, Level: o.Level, SyncMarker: o.SyncMarker})
	if err != nil {
		return 0, err
	}
	var rec []byte
	var n int64
	for {
		rec, err = ar.ReadBinary(rec[:0])
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, err
		}
		if err := cw.Append(rec); err != nil {
			return n, err
		}
		n++
		if progress != nil && n%4096 == 0 {
			progress(n)
		}
	}
	if progress != nil {
		progress(n)
	}
	return n, cw.Close()
}

// JSONOptions configures ToJSON.
type JSONOptions struct {
	// Pretty indents each record over several lines.
	Pretty bool
}

// ToJSON writes every remaining record of ar to w in Avro's JSON encoding,
// one record per line (or indented, with Pretty), through the fast path
// (ReadJSON). It returns the number of records written.
func ToJSON(w io.Writer, ar *AvroReader, opts *JSONOptions, progress func(rows int64)) (int64, error) {
	if ar.selective {
		return 0, errors.New("assemble: records with selected fields do not match the schema: use a reader schema")
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	var line []byte
	var pretty bytes.Buffer
	var n int64
	for {
		var err error
		line, err = ar.ReadJSON(line[:0])
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, err
		}
		if opts != nil && opts.Pretty {
			pretty.Reset()
			if err := json.Indent(&pretty, line, "", "  "); err != nil {
				return n, err
			}
			line = append(line[:0], pretty.Bytes()...)
		}
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return n, err
		}
		n++
		if progress != nil && n%4096 == 0 {
			progress(n)
		}
	}
	if progress != nil {
		progress(n)
	}
	return n, bw.Flush()
}
