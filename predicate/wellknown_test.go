package predicate

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

const wellKnownSchema = `{"type":"record","name":"M","fields":[
 {"name":"ts","type":["null",{"type":"record","name":"Timestamp","namespace":"google.protobuf","protobuf.message":"google.protobuf.Timestamp",
   "fields":[{"name":"seconds","type":"long"},{"name":"nanos","type":"int"}]}]},
 {"name":"d","type":{"type":"record","name":"Duration","namespace":"google.protobuf","protobuf.message":"google.protobuf.Duration",
   "fields":[{"name":"seconds","type":"long"},{"name":"nanos","type":"int"}]}},
 {"name":"many","type":{"type":"array","items":"google.protobuf.Timestamp"}}]}`

// Protobuf Timestamps and Durations compare with text literals by value:
// Eval agrees with time.Time and time.Duration comparisons over random
// values near the literals, nulls included.
func TestWellKnownTimesByValue(t *testing.T) {
	s, err := schema.Parse(wellKnownSchema)
	if err != nil {
		t.Fatal(err)
	}
	l, err := layout.New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(5, 6))
	base := []time.Time{time.Date(2024, 5, 20, 0, 0, 0, 0, time.UTC), time.Date(1969, 12, 31, 23, 59, 59, 500, time.UTC)}
	near := func(b time.Time) time.Time {
		return b.Add(time.Duration(rnd.IntN(5)-2) * time.Second).Add(time.Duration(rnd.IntN(5)-2) * 250)
	}
	durs := []time.Duration{1500 * time.Millisecond, -1500 * time.Millisecond, 0, -250, 90 * time.Minute}
	nearD := func(d time.Duration) time.Duration {
		return d + time.Duration(rnd.IntN(5)-2)*time.Second + time.Duration(rnd.IntN(5)-2)*250
	}
	holds := func(op string, c int) bool {
		switch op {
		case "=":
			return c == 0
		case "!=":
			return c != 0
		case "<":
			return c < 0
		case "<=":
			return c <= 0
		case ">":
			return c > 0
		}
		return c >= 0
	}
	durText := func(d time.Duration) string {
		if rnd.IntN(2) == 0 {
			return d.String()
		}
		sign := ""
		if d < 0 {
			sign, d = "-", -d
		}
		return fmt.Sprintf("%s%d.%09ds", sign, d/time.Second, d%time.Second)
	}
	for range 3000 {
		op := []string{"=", "!=", "<", "<=", ">", ">="}[rnd.IntN(6)]
		lt := near(base[rnd.IntN(len(base))])
		ld := nearD(durs[rnd.IntN(len(durs))])
		vt := near(lt)
		vd := nearD(ld)
		var ts any
		if rnd.IntN(5) > 0 {
			ts = map[string]any{"google.protobuf.Timestamp": map[string]any{"seconds": vt.Unix(), "nanos": int32(vt.Nanosecond())}}
		}
		rec := map[string]any{"ts": ts, "d": map[string]any{"seconds": int64(vd / time.Second), "nanos": int32(vd % time.Second)}, "many": []any{}}
		et := fmt.Sprintf("ts %s '%s'", op, lt.Format(time.RFC3339Nano))
		p, err := Compile(et, s, l)
		if err != nil {
			t.Fatal(err)
		}
		want := Unknown
		if ts != nil {
			want = False
			if holds(op, vt.Compare(lt)) {
				want = True
			}
		}
		if got, err := p.Eval(rec); err != nil || got != want {
			t.Fatalf("%s on %v: %v %v, want %v", et, vt, got, err, want)
		}
		ed := fmt.Sprintf("d %s '%s'", op, durText(ld))
		if p, err = Compile(ed, s, l); err != nil {
			t.Fatal(err)
		}
		c := 0
		if vd < ld {
			c = -1
		} else if vd > ld {
			c = 1
		}
		want = False
		if holds(op, c) {
			want = True
		}
		if got, err := p.Eval(rec); err != nil || got != want {
			t.Fatalf("%s on %v: %v %v, want %v", ed, vd, got, err, want)
		}
	}
	rec := map[string]any{"ts": nil, "d": map[string]any{"seconds": int64(1), "nanos": int32(500000000)}, "many": []any{}}
	for expr, want := range map[string]Truth{
		"d IN ('1s', '1.5s')":         True,
		"d NOT IN ('1s', '1.5s')":     False,
		"d IN ('1s', '2s')":           False,
		"d = '1.500000000s'":          True,
		"NOT d < '1500ms'":            True,
		"ts IS NULL":                  True,
		"d.seconds = 1":               True,
		"ts > '2024-05-20T00:00:00Z'": Unknown,
	} {
		p, err := Compile(expr, s, l)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		if got, err := p.Eval(rec); err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v", expr, got, err, want)
		}
	}
	for expr, msg := range map[string]string{
		"ts = 5":                        "needs a 'text' literal",
		"ts = '2024-05-20'":             "RFC 3339",
		"d = '1.5'":                     "a Duration needs seconds",
		"d = '1.0000000001s'":           "a Duration needs seconds",
		"many > '2024-05-20T00:00:00Z'": "repeated or mapped",
	} {
		if _, err := Compile(expr, s, l); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", expr, err, msg)
		}
	}
}
