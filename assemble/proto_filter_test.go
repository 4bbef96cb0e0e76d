package assemble_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/shred"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// TestProtoFilter: ProtoOptions.Filter reads only the messages that
// satisfy it, by ReadWire's fast path and by Read alike, and Row tells
// the row of each message read, as AvroReader.Row does.
func TestProtoFilter(t *testing.T) {
	data, want, rows := protoFilterFile(t)
	open := func() *assemble.ProtoReader { return openProtoFilter(t, data, "req_int32 >= 990") }
	for _, how := range []string{"ReadWire", "Read"} {
		pr := open()
		for k := 0; ; k++ {
			var got []byte
			var err error
			if how == "ReadWire" {
				got, err = pr.ReadWire(nil)
			} else {
				var m proto.Message
				if m, err = pr.Read(); err == nil {
					got, err = proto.Marshal(m)
				}
			}
			if err == io.EOF {
				if k != len(want) {
					t.Fatalf("%s: %d messages, want %d", how, k, len(want))
				}
				break
			}
			if err != nil {
				t.Fatalf("%s: message %d: %v", how, k, err)
			}
			if k >= len(want) || !bytes.Equal(got, want[k]) {
				t.Fatalf("%s: message %d differs", how, k)
			}
			if pr.Row()-1 != rows[k] {
				t.Fatalf("%s: message %d: Row %d, want %d", how, k, pr.Row()-1, rows[k])
			}
		}
	}
	// From the middle: SeekRow and StopAt bound the rows looked at.
	pr := open()
	if err := pr.SeekRow(rows[2]); err != nil {
		t.Fatal(err)
	}
	pr.StopAt(rows[5])
	for k := 2; k < 6; k++ {
		got, err := pr.ReadWire(nil)
		if k == 5 {
			if err != io.EOF {
				t.Fatalf("past StopAt: %v", err)
			}
			break
		}
		if err != nil || !bytes.Equal(got, want[k]) || pr.Row()-1 != rows[k] {
			t.Fatalf("message %d after SeekRow: %v, row %d", k, err, pr.Row()-1)
		}
	}
}

// TestProtoReaderAsAvroReader: ProtoReader's SetLimit, Count, NextMatch,
// Validate and Report mean what AvroReader's do, against the messages
// written (brute force).
func TestProtoReaderAsAvroReader(t *testing.T) {
	data, want, rows := protoFilterFile(t)
	const filter = "req_int32 >= 990"
	// Count: the matches, or every message without a filter.
	if n, err := openProtoFilter(t, data, filter).Count(t.Context()); err != nil || n != int64(len(want)) {
		t.Fatalf("Count = %d, %v; want %d", n, err, len(want))
	}
	if n, err := openProtoFilter(t, data, "").Count(t.Context()); err != nil || n != protoFilterRows {
		t.Fatalf("Count without a filter = %d, %v; want %d", n, err, protoFilterRows)
	}
	// NextMatch: the rows of the matches; then Report counts them.
	pr := openProtoFilter(t, data, filter)
	for k := 0; ; k++ {
		row, err := pr.NextMatch()
		if err == io.EOF {
			if k != len(rows) {
				t.Fatalf("NextMatch found %d rows, want %d", k, len(rows))
			}
			break
		}
		if err != nil || k >= len(rows) || row != rows[k] {
			t.Fatalf("NextMatch %d = %d, %v", k, row, err)
		}
	}
	if rep := pr.Report(); rep.RowsMatched != int64(len(want)) || rep.RowsScanned < rep.RowsMatched || rep.RowsScanned > protoFilterRows {
		t.Fatalf("Report after NextMatch: %+v", rep)
	}
	if _, err := openProtoFilter(t, data, "").NextMatch(); err == nil {
		t.Fatal("NextMatch without a filter succeeded")
	}
	// SetLimit: the first matches only, by both read paths, and again
	// after a new limit.
	for _, how := range []string{"ReadWire", "Read"} {
		pr := openProtoFilter(t, data, filter)
		pr.SetLimit(3)
		var got [][]byte
		for {
			var b []byte
			var err error
			if how == "ReadWire" {
				b, err = pr.ReadWire(nil)
			} else {
				var m proto.Message
				if m, err = pr.Read(); err == nil {
					b, err = proto.Marshal(m)
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, b)
		}
		if len(got) != 3 || !bytes.Equal(got[0], want[0]) || !bytes.Equal(got[2], want[2]) {
			t.Fatalf("%s with SetLimit(3): %d messages", how, len(got))
		}
		pr.SetLimit(-1)
		if b, err := pr.ReadWire(nil); err != nil || !bytes.Equal(b, want[3]) {
			t.Fatalf("%s after SetLimit(-1): %v", how, err)
		}
		if rep := pr.Report(); rep.RowsMatched != 4 {
			t.Fatalf("%s: Report %+v, want 4 matched", how, rep)
		}
	}
	// Validate: the file is good; with a filter it checks the matches.
	vr := openProtoFilter(t, data, filter)
	if err := vr.Validate(t.Context()); err != nil {
		t.Fatal(err)
	}
	if rep := vr.Report(); rep.RowsMatched != int64(len(want)) {
		t.Fatalf("Validate checked %d messages, want %d", rep.RowsMatched, len(want))
	}
	if _, err := vr.ReadWire(nil); err != io.EOF {
		t.Fatalf("after Validate: %v, want io.EOF", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := openProtoFilter(t, data, "").Validate(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Validate with a cancelled context: %v", err)
	}
}

// protoFilterRows is the number of messages in protoFilterFile's file.
const protoFilterRows = 5000

// protoFilterFile writes protoFilterRows Scalars messages whose req_int32
// is scattered over [0, 1000), and returns the file, the wire bytes of the
// messages with req_int32 >= 990 and their rows.
func protoFilterFile(t *testing.T) (data []byte, want [][]byte, rows []int64) {
	t.Helper()
	md := scalarsDescriptor(t)
	const n = protoFilterRows
	var buf bytes.Buffer
	pw, err := shred.NewProtoWriter(&buf, md, nil)
	if err != nil {
		t.Fatal(err)
	}
	field := md.Fields().ByName("req_int32")
	for i := range n {
		m := dynamicpb.NewMessage(md)
		v := int32((i * 7919) % 1000) // scattered over the rows
		m.Set(field, protoreflect.ValueOfInt32(v))
		if err := pw.Write(m); err != nil {
			t.Fatal(err)
		}
		if v >= 990 {
			b, err := proto.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, b)
			rows = append(rows, int64(i))
		}
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	if len(want) < 6 || len(want) == n {
		t.Fatalf("%d of %d match", len(want), n)
	}
	return buf.Bytes(), want, rows
}

// openProtoFilter opens a ProtoReader on data with the filter src ("" for
// none).
func openProtoFilter(t *testing.T, data []byte, src string) *assemble.ProtoReader {
	t.Helper()
	rd, err := format.NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := assemble.NewProtoReader(rd, &assemble.ProtoOptions{Filter: src})
	if err != nil {
		t.Fatal(err)
	}
	return pr
}
