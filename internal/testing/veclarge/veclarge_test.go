package veclarge

import (
	"testing"

	"github.com/linkedin/goavro/v2"
)

// TestRecordsDecode: goavro decodes each record drawn against Schema,
// using every byte, with fields in the documented ranges.
func TestRecordsDecode(t *testing.T) {
	codec, err := goavro.NewCodec(Schema)
	if err != nil {
		t.Fatal(err)
	}
	g := New()
	nulls := 0
	for i := range 3000 {
		b := g.Append(nil, i)
		v, rest, err := codec.NativeFromBinary(b)
		if err != nil || len(rest) != 0 {
			t.Fatalf("record %d: %v, %d bytes left", i, err, len(rest))
		}
		m := v.(map[string]any)
		if id := m["id"].(int64); id > int64(i)*7919 || id <= int64(i)*7919-1000 {
			t.Fatalf("record %d: id %d", i, id)
		}
		if n := len(m["name"].(string)); n > 12 {
			t.Fatalf("record %d: name of %d letters", i, n)
		}
		if len(m["tags"].([]any)) > 5 || len(m["pts"].([]any)) > 5 {
			t.Fatalf("record %d: arrays %v, %v", i, m["tags"], m["pts"])
		}
		if m["opt"] == nil {
			nulls++
		}
	}
	if nulls < 800 || nulls > 1200 {
		t.Errorf("%d of 3000 opts null, want about a third", nulls)
	}
	// The same seed draws the same records.
	if a, b := New().Append(nil, 7), New().Append(nil, 7); string(a) != string(b) {
		t.Error("two generators drew different records")
	}
}
