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
	// Characters beyond the Basic Multilingual Plane are written as they
	// are by the UTF8 variants (Jackson writing to a java.io.Writer); every
	// other escape is the same.
	for in, want := range map[string]string{
		"😀":            "\"😀\"",
		"a😀\x01\\\"\n": `"a😀\u0001\\\"\n"`,
		"é€\u2028\x7f": "\"é€\u2028\x7f\"",
		"\xff😀":        `"\uFFFD😀"`,
	} {
		if got := string(AppendStringUTF8(nil, in)); got != want {
			t.Errorf("AppendStringUTF8(%q) = %s, want %s", in, got, want)
		}
		if got := string(AppendStringBytesUTF8(nil, []byte(in))); got != want {
			t.Errorf("AppendStringBytesUTF8(%q) = %s, want %s", in, got, want)
		}
	}
	if got := string(AppendLatin1(nil, []byte{0, 'a', 0xe9, 0xff})); got != `"\u0000aéÿ"` {
		t.Errorf("AppendLatin1 = %s", got)
	}
}

// TestRandomStrings: what AppendString and AppendStringUTF8 write, encoding/json reads back as
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
		want := strings.ToValidUTF8(string(b), "\uFFFD")
		if !utf8.ValidString(string(b)) {
			// encoding/json and we replace each bad byte alike.
			want = string([]rune(string(b)))
		}
		for _, text := range [][]byte{AppendString(nil, string(b)), AppendStringUTF8(nil, string(b))} {
			var got string
			if err := json.Unmarshal(text, &got); err != nil {
				t.Fatalf("%q: %v", b, err)
			}
			if got != want {
				t.Fatalf("%q written %s, read back as %q, want %q", b, text, got, want)
			}
		}
	}
}
