package avrobin

import (
	"encoding/binary"
	"testing"
)

// FuzzConsume: on any bytes, every Consume function takes no more than it
// was given, returns its zero value with an error, and ConsumeLong agrees
// with encoding/binary; what decodes re-encodes to the bytes taken, when
// they were the shortest encoding.
func FuzzConsume(f *testing.F) {
	for _, s := range [][]byte{nil, {0}, {1}, {0x80}, {0xff, 0x01}, AppendLong(nil, -1<<63), AppendString(nil, "abc"), AppendLong(AppendLong(nil, -3), 2)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		check := func(what string, n int) {
			if n > len(b) || n == 0 || n < 0 && ParseError(n) == errUnknown {
				t.Fatalf("% x: %s took %d", b, what, n)
			}
		}
		v, n := ConsumeLong(b)
		check("ConsumeLong", n)
		if want, wn := binary.Varint(b); wn > 0 != (n > 0) || n > 0 && (v != want || n != wn) {
			t.Fatalf("% x: ConsumeLong %d, %d; encoding/binary %d, %d", b, v, n, want, wn)
		}
		if e := AppendLong(nil, v); n > 0 && len(e) == n && string(e) != string(b[:n]) {
			t.Fatalf("% x: %d re-encodes to % x", b[:n], v, e)
		}
		if s := SkipLong(b); s != n {
			t.Fatalf("% x: SkipLong %d, ConsumeLong %d", b, s, n)
		}
		i, n := ConsumeInt(b)
		check("ConsumeInt", n)
		if n < 0 && i != 0 {
			t.Fatalf("% x: ConsumeInt %d with an error", b, i)
		}
		bs, n := ConsumeBytes(b)
		check("ConsumeBytes", n)
		if n > 0 && len(bs) > n {
			t.Fatalf("% x: ConsumeBytes %d bytes in %d", b, len(bs), n)
		}
		c, n := ConsumeBlockCount(b)
		check("ConsumeBlockCount", n)
		if c < 0 || n < 0 && c != 0 {
			t.Fatalf("% x: ConsumeBlockCount %d, %d", b, c, n)
		}
		_, n = ConsumeFloat(b)
		check("ConsumeFloat", n)
		_, n = ConsumeDouble(b)
		check("ConsumeDouble", n)
	})
}
