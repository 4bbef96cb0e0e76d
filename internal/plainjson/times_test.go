package plainjson

import (
	"strings"
	"testing"

	"github.com/trevni-go/trevni/schema"
)

// TestInferTimes infers the logical type of places whose strings are
// dates, times of day and timestamps, and checks that every line decodes
// with the schema inferred (the decoder takes every form the inference
// does), the forms and mixes that stay strings included.
func TestInferTimes(t *testing.T) {
	for _, tc := range []struct {
		values []string
		want   string
	}{
		{[]string{"2024-03-10", "1900-02-28"}, `{"type":"int","logicalType":"date"}`},
		{[]string{"07:00:00", "23:59:59.5"}, `{"type":"int","logicalType":"time-millis"}`},
		{[]string{"07:00:00", "23:59:59.1234"}, `{"type":"long","logicalType":"time-micros"}`},
		{[]string{"2024-03-10T07:00:00Z", "2024-03-10 07:00:00+02", "2024-03-10t07:00:00-0130"}, `{"type":"long","logicalType":"timestamp-millis"}`},
		{[]string{"2024-03-10T07:00:00.1234Z", "2024-03-10T07:00:00+02:00"}, `{"type":"long","logicalType":"timestamp-micros"}`},
		{[]string{"2024-03-10T07:00:00.123456789Z"}, `{"type":"long","logicalType":"timestamp-nanos"}`},
		{[]string{"2024-03-10T07:00:00", "2024-03-10 07:00:00.5"}, `{"type":"long","logicalType":"local-timestamp-millis"}`},
		{[]string{"2024-03-10T07:00:00.000001"}, `{"type":"long","logicalType":"local-timestamp-micros"}`},
		{[]string{"2024-03-10T07:00:00.0000001"}, `{"type":"long","logicalType":"local-timestamp-nanos"}`},
		// Strings: zoned with unzoned, dates with timestamps, text, forms
		// that are not ISO 8601, nanoseconds beyond int64's years, ten
		// fraction digits, time of day with seven.
		{[]string{"2024-03-10T07:00:00Z", "2024-03-10T07:00:00"}, `"string"`},
		{[]string{"2024-03-10", "2024-03-10T07:00:00"}, `"string"`},
		{[]string{"2024-03-10", "tomorrow"}, `"string"`},
		{[]string{"10/03/2024"}, `"string"`},
		{[]string{"2024-03-10T07:00:00+2"}, `"string"`},
		{[]string{"2024-03-10T07:00:00 Z"}, `"string"`},
		{[]string{"2024-02-30"}, `"string"`},
		{[]string{"1600-01-01T00:00:00.123456789"}, `"string"`},
		{[]string{"2024-03-10T07:00:00.1234567891"}, `"string"`},
		{[]string{"07:00:00.1234567"}, `"string"`},
	} {
		var in Inferrer
		var lines []string
		for _, v := range tc.values {
			lines = append(lines, `{"v":"`+v+`"}`)
		}
		for _, l := range lines {
			if err := in.Add([]byte(l)); err != nil {
				t.Fatal(err)
			}
		}
		text, err := in.Schema()
		if err != nil {
			t.Fatal(err)
		}
		got := compact(t, text)
		want := `{"type":"record","name":"Row","fields":[{"name":"v","type":` + tc.want + `}]}`
		if got != want {
			t.Errorf("%q: %s, want %s", tc.values, got, tc.want)
			continue
		}
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatalf("%q: %v", tc.values, err)
		}
		for _, l := range lines {
			if _, err := Decode(s, []byte(l)); err != nil {
				t.Errorf("%q: %s does not decode: %v", tc.values, l, err)
			}
		}
	}
	// A place of timestamps and numbers: a long and a timestamp on a long
	// cannot share a union, so the strings stay strings.
	var in Inferrer
	for _, l := range []string{`{"v":1}`, `{"v":"2024-03-10T07:00:00Z"}`} {
		if err := in.Add([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	text, _ := in.Schema()
	if got := compact(t, text); !strings.Contains(got, `["long","string"]`) {
		t.Errorf("numbers and timestamps: %s", got)
	}
}
