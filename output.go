package trevni

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/internal/ocf"
)

// JSONOptions configures WriteJSON. A nil *JSONOptions means the defaults.
type JSONOptions struct {
	// Pretty indents each record over several lines.
	Pretty bool
	// Plain writes plain JSON instead of Avro's JSON encoding: for files
	// written from Avro, unions unwrapped, bytes in base64, decimals as
	// exact numbers, times as RFC 3339 strings (see
	// assemble.AvroReader.ReadPlainJSON); for files written from protobuf
	// (with no reader schema), each message as protojson writes it.
	Plain bool
}

// WriteJSON writes the records a reader with opts returns to w in Avro's
// JSON encoding (or plain JSON, with jopts.Plain), one record per line,
// and returns how many it wrote. It stops with ctx's error, wrapped, once
// ctx ends.
func (ds *Dataset) WriteJSON(ctx context.Context, w io.Writer, opts *ReadOptions, jopts *JSONOptions) (int64, error) {
	plain := jopts != nil && jopts.Plain
	pretty := jopts != nil && jopts.Pretty
	if plain && ds.FromProtobuf() {
		return ds.writeProtoJSON(ctx, w, opts, pretty)
	}
	r, err := ds.NewReader(ctx, opts)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	return r.WriteJSON(w, jopts)
}

// WriteJSON writes the reader's remaining records to w as Dataset.WriteJSON
// does (for Avro records: Avro's JSON encoding, or plain JSON), and
// returns how many it wrote; the reader's Report then says what it read.
func (r *Reader) WriteJSON(w io.Writer, jopts *JSONOptions) (int64, error) {
	pretty := jopts != nil && jopts.Pretty
	if n := r.workers(); n > 1 {
		return r.writeJSONParallel(w, n, pretty, jopts != nil && jopts.Plain)
	}
	read := r.ReadJSON
	if jopts != nil && jopts.Plain {
		read = r.ReadPlainJSON
	}
	start := r.Records()
	bw := bufio.NewWriterSize(w, 256<<10)
	var line []byte
	var ind bytes.Buffer
	for {
		var err error
		line, err = read(line[:0])
		if err == io.EOF {
			break
		}
		if err != nil {
			bw.Flush() // the records before the bad one are written
			return r.Records() - start, err
		}
		if pretty {
			ind.Reset()
			if err := json.Indent(&ind, line, "", "  "); err != nil {
				return r.Records() - start, err
			}
			line = append(line[:0], ind.Bytes()...)
		}
		if _, err := bw.Write(append(line, '\n')); err != nil {
			return r.Records() - start, err
		}
		if r.Records()%4096 == 0 {
			if err := r.ctx.Err(); err != nil {
				return r.Records() - start, fmt.Errorf("trevni: writing JSON: %w", err)
			}
		}
	}
	return r.Records() - start, bw.Flush()
}

// AvroOptions configures the Avro object container files that
// Dataset.WriteAvro and Reader.WriteAvro write. A nil *AvroOptions means
// the zero value.
type AvroOptions struct {
	// Codec compresses the container's blocks: NoCodec (or "", the
	// default), Deflate, Snappy, Bzip2, XZ or Zstd (stored under Avro's
	// name, "zstandard").
	Codec Codec
	// Level is the compression level, 0 for the codec's default.
	Level int
	// SyncMarker, if not zero, is used instead of a random one, for
	// reproducible output.
	SyncMarker [16]byte
	// Progress, if set, is called now and then with the records written
	// so far, and once at the end.
	Progress func(records int64)
}

// WriteAvro writes the records a reader with opts returns to w as one Avro
// object container file of their schema (the data set's, or its projection
// on opts.Fields), and returns how many it wrote. copts chooses the
// container's codec, level and sync marker (nil: null codec, random
// marker). It stops with ctx's error, wrapped, once ctx ends.
func (ds *Dataset) WriteAvro(ctx context.Context, w io.Writer, opts *ReadOptions, copts *AvroOptions) (int64, error) {
	r, err := ds.NewReader(ctx, opts)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	return r.WriteAvro(w, copts)
}

// WriteAvro writes the reader's remaining records to w as one Avro object
// container file of their schema (SchemaText), as Dataset.WriteAvro does, and
// returns how many it wrote; the reader's Report then says what it read.
func (r *Reader) WriteAvro(w io.Writer, copts *AvroOptions) (int64, error) {
	var o ocf.WriterOptions
	if copts != nil {
		o.Codec, o.Level, o.SyncMarker = string(copts.Codec), copts.Level, copts.SyncMarker
	}
	text := r.ds.text
	if len(r.opts.Fields) > 0 {
		text = r.schema.String()
	}
	cw, err := ocf.NewWriter(w, text, o)
	if err != nil {
		return 0, err
	}
	if n := r.workers(); n > 1 {
		return r.writeAvroParallel(cw, n, copts)
	}
	start := r.Records()
	var rec []byte
	for {
		rec, err = r.ReadBinary(rec[:0])
		if err == io.EOF {
			break
		}
		if err == nil {
			err = cw.Append(rec)
		}
		if err != nil {
			return r.Records() - start, err
		}
		if r.Records()%4096 == 0 {
			if copts != nil && copts.Progress != nil {
				copts.Progress(r.Records())
			}
			if err := r.ctx.Err(); err != nil {
				return r.Records() - start, fmt.Errorf("trevni: writing Avro: %w", err)
			}
		}
	}
	if copts != nil && copts.Progress != nil {
		copts.Progress(r.Records())
	}
	return r.Records() - start, cw.Close()
}

// FromProtobuf reports whether the data set's records are read as the
// protobuf messages they were written from: every part has the
// descriptors, and no reader schema reads them as Avro. Plain JSON of such
// a data set is protojson's.
func (ds *Dataset) FromProtobuf() bool {
	if ds.opts.ReaderSchema != "" {
		return false
	}
	for _, p := range ds.parts {
		if !p.proto {
			return false
		}
	}
	return true
}

// writeProtoJSON writes the messages to w as protojson writes them
// (assemble.ToProtoJSON), one per line (or indented, with pretty), and
// returns how many it wrote.
func (ds *Dataset) writeProtoJSON(ctx context.Context, w io.Writer, opts *ReadOptions, pretty bool) (int64, error) {
	var popts ProtoOptions
	if opts != nil {
		popts.ReadOptions = *opts
	}
	p, err := ds.NewProtoReader(ctx, &popts)
	if err != nil {
		return 0, err
	}
	defer p.Close()
	r := p.r
	var total int64
	for r.part != nil {
		n, err := assemble.ToProtoJSON(ctx, w, r.pm, &assemble.JSONOptions{Pretty: pretty})
		total += n
		r.n += n
		if err != nil {
			return total, partErr(r.file.part.Name(), err)
		}
		if err := r.next(); err == io.EOF {
			break
		} else if err != nil {
			return total, err
		}
	}
	return total, nil
}

// writeJSONParallel is WriteJSON on n workers.
func (r *Reader) writeJSONParallel(w io.Writer, n int, pretty, plain bool) (int64, error) {
	newEnc := func() encodeFunc {
		var (
			line []byte
			ind  bytes.Buffer
		)
		return func(pr partReader, dst []byte) ([]byte, error) {
			ar := pr.(*assemble.AvroReader)
			var err error
			if pretty {
				if line, err = readJSON(ar, line[:0], plain); err != nil {
					return dst, err
				}
				ind.Reset()
				if err := json.Indent(&ind, line, "", "  "); err != nil {
					return dst, err
				}
				dst = append(dst, ind.Bytes()...)
			} else if dst, err = readJSON(ar, dst, plain); err != nil {
				return dst, err
			}
			return append(dst, '\n'), nil
		}
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	written, err := r.writeParallel(n, newEnc, func(data []byte, _ []int) error {
		_, err := bw.Write(data)
		return err
	})
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if err != nil && err == r.ctx.Err() {
		err = fmt.Errorf("trevni: writing JSON: %w", err)
	}
	return written, err
}

// readJSON appends ar's next record in Avro's JSON encoding, or in plain
// JSON, to dst.
func readJSON(ar *assemble.AvroReader, dst []byte, plain bool) ([]byte, error) {
	if plain {
		return ar.ReadPlainJSON(dst)
	}
	return ar.ReadJSON(dst)
}

// writeAvroParallel is WriteAvro on n workers, into cw.
func (r *Reader) writeAvroParallel(cw *ocf.Writer, n int, copts *AvroOptions) (int64, error) {
	var progress func(int64)
	if copts != nil {
		progress = copts.Progress
	}
	newEnc := func() encodeFunc {
		return func(pr partReader, dst []byte) ([]byte, error) {
			return pr.(*assemble.AvroReader).ReadBinary(dst)
		}
	}
	written, err := r.writeParallel(n, newEnc, func(data []byte, ends []int) error {
		before := r.Records()
		start := 0
		for _, end := range ends {
			if err := cw.Append(data[start:end]); err != nil {
				return err
			}
			start = end
		}
		if progress != nil && (before+int64(len(ends)))/4096 != before/4096 {
			progress(before + int64(len(ends)))
		}
		return nil
	})
	if err != nil {
		if err == r.ctx.Err() {
			err = fmt.Errorf("trevni: writing Avro: %w", err)
		}
		return written, err
	}
	if progress != nil {
		progress(r.Records())
	}
	return written, cw.Close()
}
