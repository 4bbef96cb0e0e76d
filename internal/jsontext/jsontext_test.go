package jsontext

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestEscapes checks Jackson's escapes on the characters that need one.
func TestEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"a\"b\\c":    `"a\"b\\c"`,
		"\n\r\t\b\f": `"\n\r\t\b\f"`,
		"\x00\x1f":   `"\u0000\u001F"`,
		"é€":         `"é€"`,
		"😀":          `"\uD83D\uDE00"`,
		"\xff":       `"\uFFFD"`,
	} {
		if got := string(AppendString(nil, in)); got != want {
			t.Errorf("AppendString(%q) = %s, want %s", in, got, want)
		}
		if got := string(AppendStringBytes(nil, []byte(in))); got != want {
			t.Errorf("AppendStringBytes(%q) = %s, want %s", in, got, want)
		}
	}
	if got := string(AppendLatin1(nil, []byte{0, 'a', 0xe9, 0xff})); got != `"\u0000aéÿ"` {
		t.Errorf("AppendLatin1 = %s", got)
	}
}

// TestRandomStrings: what AppendString writes, encoding/json reads back as
// the same string (invalid UTF-8 as U+FFFD, as encoding/json does too).
func TestRandomStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		b := make([]byte, r.IntN(20))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		if r.IntN(2) == 0 {
			b = []byte(string([]rune{rune(r.IntN(0x10ffff))}) + string(b[:len(b)/2]))
		}
		var got string
		if err := json.Unmarshal(AppendString(nil, string(b)), &got); err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		want := strings.ToValidUTF8(string(b), "\uFFFD")
		if !utf8.ValidString(string(b)) {
			// encoding/json and we replace each bad byte alike.
			want = string([]rune(string(b)))
		}
		if got != want {
			t.Fatalf("%q read back as %q, want %q", b, got, want)
		}
	}
}
