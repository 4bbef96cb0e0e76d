package shred

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/schema/protoschema"
)

// deepStruct is a google.protobuf.Struct nested levels deep, as protojson.
func deepStruct(levels int) string {
	return strings.Repeat(`{"v":`, levels) + "1" + strings.Repeat("}", levels) + "\n"
}

// A JSON message nested deeper than the layout's MaxDepth (counted as the
// binary encoding nests it, three a Struct level) is refused on input, so
// that what is written can be read back; one within it round-trips.
func TestProtoJSONDepth(t *testing.T) {
	md := (&structpb.Struct{}).ProtoReflect().Descriptor()
	write := func(text string, l *layout.Options) ([]byte, error) {
		var out bytes.Buffer
		_, err := FromProtoStream(context.Background(), &out, strings.NewReader(text), protoschema.JSONLines, md, &ProtoOptions{File: Options{Layout: l}})
		return out.Bytes(), err
	}
	for _, c := range []struct {
		levels int
		l      *layout.Options
		ok     bool
	}{
		{4000, nil, false},
		{334, nil, false}, // 1002 deep
		{333, nil, true},  // 999 deep
		{4000, &layout.Options{MaxDepth: 9000}, false},
		{1000, &layout.Options{MaxDepth: 3001}, true},
		// Deeper than protobuf's default recursion limit: the readers
		// take the same MaxDepth.
		{3500, &layout.Options{MaxDepth: 11000}, true},
	} {
		b, err := write(deepStruct(c.levels), c.l)
		if !c.ok {
			if !errors.Is(err, schema.ErrTooLarge) || !strings.Contains(err.Error(), "message 0") {
				t.Errorf("%d levels: %v, want ErrTooLarge naming the message", c.levels, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%d levels: %v", c.levels, err)
		}
		rd, err := format.NewReader(bytes.NewReader(b), int64(len(b)), nil)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := assemble.NewProtoReader(rd, &assemble.ProtoOptions{Layout: c.l})
		if err != nil {
			t.Fatal(err)
		}
		var back bytes.Buffer
		if _, err := assemble.ToProtoStream(context.Background(), &back, pr, protoschema.JSONLines, nil); err != nil {
			t.Fatalf("%d levels: reading back: %v", c.levels, err)
		}
		if got := strings.ReplaceAll(back.String(), " ", ""); got != deepStruct(c.levels) {
			t.Errorf("%d levels: read back %.80q...", c.levels, got)
		}
	}
}

// A JSON line longer than MaxJSONMessageSize fails at the bound, naming
// the message, without reading the rest of the line.
func TestProtoJSONLineSize(t *testing.T) {
	md := (&structpb.Struct{}).ProtoReflect().Descriptor()
	small := `{"a":1}` + "\n"
	big := `{"b":"` + strings.Repeat("x", 2000) + `"}` + "\n"
	var out bytes.Buffer
	n, err := FromProtoStream(context.Background(), &out, strings.NewReader(small+big), protoschema.JSONLines, md, &ProtoOptions{MaxJSONMessageSize: 1000})
	if !errors.Is(err, format.ErrRecordSize) || !strings.Contains(err.Error(), "message 1") || n != 1 {
		t.Errorf("%d messages, %v; want ErrRecordSize naming message 1", n, err)
	}
	out.Reset()
	if n, err := FromProtoStream(context.Background(), &out, strings.NewReader(small+big+small), protoschema.JSONLines, md, &ProtoOptions{MaxJSONMessageSize: 3000}); err != nil || n != 3 {
		t.Errorf("within the bound: %d messages, %v", n, err)
	}
	// The default bound.
	huge := `{"b":"` + strings.Repeat("x", DefaultMaxJSONMessageSize) + `"}` + "\n"
	out.Reset()
	if _, err := FromProtoStream(context.Background(), &out, strings.NewReader(huge), protoschema.JSONLines, md, nil); !errors.Is(err, format.ErrRecordSize) {
		t.Errorf("a line over the default: %v", err)
	}
}
