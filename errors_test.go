package trevni_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/trevni1"
	"github.com/trevni-go/trevni/trevni1/convert"
)

// A damaged block is reported alike by Validate and by a read: an error
// wrapping ErrChecksum (which errors.Is also matches to ErrCorrupt: one
// test finds any damaged file) whose *FileError
// names the column, the block and the block's first row, for every block
// of a column of several.
func TestDamagedBlockSameRowInValidateAndRead(t *testing.T) {
	ctx := context.Background()
	const text = `{"type":"record","name":"R","fields":[{"name":"id","type":"long"}]}`
	var buf bytes.Buffer
	w, err := trevni.NewWriter(&buf, text, &trevni.WriteOptions{Codec: trevni.NoCodec, BlockSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		if err := w.Write(map[string]any{"id": int64(i) << 20}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := rd.Blocks(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) < 4 {
		t.Fatalf("%d blocks: the test needs several", len(blocks))
	}
	name := filepath.Join(t.TempDir(), "bad.trv")
	for b, bi := range blocks {
		bad := bytes.Clone(buf.Bytes())
		bad[bi.Offset+int64(bi.CompressedSize)/2] ^= 0x55
		if err := os.WriteFile(name, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		ds, err := trevni.Open(ctx, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		verr := ds.Validate(ctx)
		var rerr error
		for _, err := range ds.All(ctx, nil) {
			if err != nil {
				rerr = err
			}
		}
		ds.Close()
		for what, err := range map[string]error{"Validate": verr, "a read": rerr} {
			var fe *trevni.FileError
			if !errors.Is(err, trevni.ErrChecksum) || !errors.Is(err, trevni.ErrCorrupt) || !errors.As(err, &fe) {
				t.Fatalf("block %d: %s: %v, want a *FileError wrapping ErrChecksum, a kind of ErrCorrupt", b, what, err)
			}
			if fe.Column != "id" || fe.Block != b || fe.Row != bi.FirstRow {
				t.Fatalf("block %d: %s names column %q, block %d, row %d; want \"id\", block %d, row %d (%v)", b, what, fe.Column, fe.Block, fe.Row, b, bi.FirstRow, err)
			}
		}
	}
}

// A record that does not fit the schema is a *RecordError naming the
// record and the field, wrapping ErrValue; writing goes on.
func TestWriteErrorIsRecordError(t *testing.T) {
	const text = `{"type":"record","name":"R","fields":[{"name":"id","type":"long"},{"name":"tags","type":{"type":"array","items":"string"}}]}`
	w, err := trevni.NewWriter(&bytes.Buffer{}, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.Write(map[string]any{"id": int64(1), "tags": []any{"a"}}); err != nil {
		t.Fatal(err)
	}
	err = w.Write(map[string]any{"id": int64(2), "tags": []any{"a", 3}})
	var re *trevni.RecordError
	if !errors.Is(err, trevni.ErrValue) || !errors.As(err, &re) || re.Record != 1 || re.Path != "tags[1]" {
		t.Fatalf("got %v (%+v), want a *RecordError of record 1 at tags[1] wrapping ErrValue", err, re)
	}
	if err := w.Write(map[string]any{"id": int64(3), "tags": []any{}}); err != nil || w.Records() != 2 {
		t.Fatalf("writing after a bad record: %v, %d records", err, w.Records())
	}
}

// A damaged file of any format the front door reads (Trevni 2, Trevni 1,
// CLMN), cut short anywhere, fails to open or to read with an error that
// errors.Is matches to ErrCorrupt, so that a root-only user tests one
// sentinel; and a checksum that fails in a Trevni 1 file matches
// ErrChecksum as a Trevni 2 file's does.
func TestDamagedFileIsErrCorruptInEveryFormat(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{
		filepath.Join("testdata", "interop", "email", "email.deflate.crc32.trv"),
		filepath.Join("testdata", "trevni1", "impala_several_blocks.trv"),
		filepath.Join("testdata", "clmn", "sample.clmn"),
	} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{5, 17, len(b) / 4, len(b) / 2, len(b) - 9, len(b) - 1} {
			err := readAll(ctx, b[:n])
			if err == nil || !errors.Is(err, trevni.ErrCorrupt) {
				t.Errorf("%s cut to %d of %d bytes: %v, want an error matching ErrCorrupt", name, n, len(b), err)
			}
		}
	}
	// A Trevni 1 file's checksum: every byte of its blocks flipped in
	// turn, some fail their checksum, each matching ErrChecksum and
	// ErrCorrupt.
	// The email file written as Trevni 1 with CRC-32s (trevni1/convert).
	v2, err := os.ReadFile(filepath.Join("testdata", "interop", "email", "email.null.crc32.trv"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := format.NewReader(bytes.NewReader(v2), int64(len(v2)), nil)
	if err != nil {
		t.Fatal(err)
	}
	var v1 bytes.Buffer
	if _, err := convert.FromV2(ctx, &v1, src, &trevni1.WriterOptions{Checksum: "crc-32"}); err != nil {
		t.Fatal(err)
	}
	b := v1.Bytes()
	checksums := 0
	for at := len(b) / 2; at < len(b); at += max(len(b)/400, 1) {
		bad := bytes.Clone(b)
		bad[at] ^= 0x55
		err := readAll(ctx, bad)
		if err != nil && strings.Contains(err.Error(), "checksum") {
			checksums++
			if !errors.Is(err, trevni.ErrChecksum) || !errors.Is(err, trevni.ErrCorrupt) {
				t.Errorf("byte %d flipped: %v, want an error matching ErrChecksum and ErrCorrupt", at, err)
			}
		}
	}
	if checksums == 0 {
		t.Error("no damage made a Trevni 1 checksum fail: the test checks nothing")
	}
}

// readAll opens b as a data set and reads every record, returning the
// first error.
func readAll(ctx context.Context, b []byte) error {
	ds, err := trevni.OpenReaderAt(ctx, bytes.NewReader(b), int64(len(b)), "damaged", nil)
	return firstReadErr(ctx, ds, err)
}

// firstReadErr returns err, the error of opening ds, or else the first
// error of reading every record of ds, which it closes.
func firstReadErr(ctx context.Context, ds *trevni.Dataset, err error) error {
	if err != nil {
		return err
	}
	defer ds.Close()
	for _, err := range ds.All(ctx, nil) {
		if err != nil {
			return err
		}
	}
	return nil
}
