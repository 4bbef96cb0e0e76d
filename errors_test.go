package trevni_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
)

// A damaged block is reported alike by Validate and by a read: an error
// wrapping ErrChecksum whose *FileError
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
			if !errors.Is(err, trevni.ErrChecksum) || !errors.As(err, &fe) {
				t.Fatalf("block %d: %s: %v, want a *FileError wrapping ErrChecksum", b, what, err)
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
