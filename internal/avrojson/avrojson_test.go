package avrojson

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/internal/jsontext"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/schema"
)

// TestDecodeInteropInputs decodes every vector's input.jsonl and compares
// with goavro's decoding of the same records from input.avro's binary
// encoding (the independent truth), then encodes them back to the same text.
func TestDecodeInteropInputs(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/interop/*/input.jsonl")
	if len(dirs) < 8 {
		t.Fatal("no vectors")
	}
	for _, in := range dirs {
		dir := filepath.Dir(in)
		text, err := os.ReadFile(filepath.Join(dir, "schema.avsc"))
		if err != nil {
			t.Fatal(err)
		}
		s := schema.MustParse(string(text))
		ocf, err := os.Open(filepath.Join(dir, "input.avro"))
		if err != nil {
			t.Fatal(err)
		}
		r, err := goavro.NewOCFReader(ocf)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := os.Open(in)
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		n := 0
		for sc.Scan() {
			if !r.Scan() {
				t.Fatalf("%s: more JSON lines than Avro records", dir)
			}
			want, err := r.Read()
			if err != nil {
				t.Fatal(err)
			}
			got, err := Decode(s, sc.Bytes())
			if err != nil {
				t.Fatalf("%s line %d: %v", dir, n+1, err)
			}
			if !avrorand.EqualNative(got, want) {
				t.Fatalf("%s line %d: decoded %v, want %v", dir, n+1, got, want)
			}
			again, err := Append(nil, s, got)
			if err != nil || !bytes.Equal(again, sc.Bytes()) {
				t.Fatalf("%s line %d: re-encoded\n%s\nwant\n%s (%v)", dir, n+1, again, sc.Bytes(), err)
			}
			n++
		}
		f.Close()
		ocf.Close()
		if n == 0 && filepath.Base(dir) != "empty" {
			t.Fatalf("%s: no records", dir)
		}
		if r.Scan() {
			t.Fatalf("%s: more Avro records than JSON lines", dir)
		}
	}
}

// TestRandomRoundTrip encodes random values of random schemas and decodes
// them back.
func TestRandomRoundTrip(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		g := avrorand.New(seed, avrorand.Options{})
		s, err := schema.Parse(g.Schema())
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5; i++ {
			v := g.Value(s)
			text, err := Append(nil, s, v)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			back, err := Decode(s, text)
			if err != nil {
				t.Fatalf("seed %d: %v\n%s", seed, err, text)
			}
			if !avrorand.EqualNative(back, v) {
				t.Fatalf("seed %d: %s decodes to %v, want %v", seed, text, back, v)
			}
		}
	}
}

// TestDecodeRefusesBadText checks that bytes that are not UTF-8 and
// escapes of lone surrogates are refused, naming where they are, where
// encoding/json alone would turn them into U+FFFD; and that good escapes
// (a surrogate pair, an escaped backslash before "ud800") still read.
func TestDecodeRefusesBadText(t *testing.T) {
	s := schema.MustParse(`{"type":"record","name":"R","fields":[
		{"name":"s","type":"string"},
		{"name":"list","type":{"type":"array","items":{"type":"map","values":"string"}}},
		{"name":"b","type":"bytes"}]}`)
	for _, tc := range []struct{ in, where string }{
		{"{\"s\":\"a\xffb\",\"list\":[],\"b\":\"\"}", "s: a string holds byte 0xff"},
		{`{"s":"\ud800","list":[],"b":""}`, `s: the escape \ud800 is a lone surrogate`},
		{`{"s":"\uD800x","list":[],"b":""}`, `s: the escape \uD800 is a lone surrogate`},
		{`{"s":"\ud800\ud800","list":[],"b":""}`, `s: the escape \ud800 is a lone surrogate`},
		{`{"s":"\udc00","list":[],"b":""}`, `s: the escape \udc00 is a lone low surrogate`},
		{`{"s":"","list":[{},{"k":"\ud83d"}],"b":""}`, `list[1].k: the escape \ud83d`},
		{"{\"s\":\"\",\"list\":[{\"k\xc0\":\"v\"}],\"b\":\"\"}", "a key of list[0]: a string holds byte 0xc0"},
		{"{\"s\":\"\",\"list\":[],\"b\":\"\xff\"}", "b: a string holds byte 0xff"},
	} {
		_, err := Decode(s, []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.where) {
			t.Errorf("Decode(%q): %v, want an error with %q", tc.in, err, tc.where)
		}
	}
	v, err := Decode(s, []byte(`{"s":"\ud83d\ude00 \\ud800 é","list":[{"\ud83d\ude00":"x"}],"b":"\u00ff"}`))
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if m["s"] != "😀 \\ud800 é" || !bytes.Equal(m["b"].([]byte), []byte{0xff}) ||
		m["list"].([]any)[0].(map[string]any)["😀"] != "x" {
		t.Errorf("decoded %#v", v)
	}
}

// FuzzDecodeString checks Decode's string checks against independent
// truths: text escaped by AppendString always reads back as the valid
// UTF-8 form of the input; the same bytes put raw between quotes are
// refused exactly when utf8.Valid says they are not UTF-8; and an escaped
// surrogate reads only as half of a pair.
func FuzzDecodeString(f *testing.F) {
	for _, seed := range []string{"", "a", "é", "😀", "\xff", "a\xc3", "\xed\xa0\x80", "\u2028", "\\ud800", "\"\\", "\x00\x1f"} {
		f.Add([]byte(seed), uint16(0xd800))
	}
	f.Add([]byte("x"), uint16(0xdc00))
	f.Add([]byte("x"), uint16(0x00e9))
	s := schema.MustParse(`{"type":"record","name":"R","fields":[{"name":"s","type":"string"}]}`)
	f.Fuzz(func(t *testing.T, b []byte, u uint16) {
		// Escaped: always valid, and reads back.
		text := append(jsontext.AppendString([]byte(`{"s":`), string(b)), '}')
		v, err := Decode(s, text)
		if err != nil {
			t.Fatalf("Decode(%q): %v", text, err)
		}
		if got, want := v.(map[string]any)["s"], strings.ToValidUTF8(string(b), "\uFFFD"); got != want && utf8.ValidString(string(b)) {
			t.Fatalf("Decode(%q) = %q, want %q", text, got, want)
		}
		// Raw: refused exactly when not UTF-8.
		var raw []byte
		for _, c := range b {
			if c == '"' || c == '\\' || c < 0x20 {
				continue // keep the JSON well formed
			}
			raw = append(raw, c)
		}
		text = append(append([]byte(`{"s":"`), raw...), `"}`...)
		if _, err := Decode(s, text); (err != nil) != !utf8.Valid(raw) {
			t.Fatalf("Decode(%q): %v; utf8.Valid %v", text, err, utf8.Valid(raw))
		}
		// One \u escape after the text: a surrogate alone is refused.
		text = fmt.Appendf(append([]byte(`{"s":"`), raw...), `\u%04x"}`, u)
		_, err = Decode(s, text)
		if lone := utf16.IsSurrogate(rune(u)); utf8.Valid(raw) && (err != nil) != lone {
			t.Fatalf("Decode(%q): %v; lone surrogate %v", text, err, lone)
		}
	})
}

// TestDecodeStringRandom runs FuzzDecodeString's properties over random
// strings of bytes and runes, in every test run.
func TestDecodeStringRandom(t *testing.T) {
	s := schema.MustParse(`{"type":"record","name":"R","fields":[{"name":"s","type":"string"}]}`)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		var b []byte
		for range rng.IntN(12) {
			switch rng.IntN(4) {
			case 0:
				b = append(b, byte(rng.IntN(256)))
			case 1:
				b = utf8.AppendRune(b, rune(rng.IntN(0x110000)))
			default:
				b = append(b, byte('a'+rng.IntN(26)))
			}
		}
		text := append(jsontext.AppendString([]byte(`{"s":`), string(b)), '}')
		v, err := Decode(s, text)
		if err != nil {
			t.Fatalf("Decode(%q): %v", text, err)
		}
		if got, want := v.(map[string]any)["s"], strings.ToValidUTF8(string(b), "\uFFFD"); utf8.Valid(b) && got != want {
			t.Fatalf("Decode(%q) = %q, want %q", text, got, want)
		}
		var raw []byte
		for _, c := range b {
			if c != '"' && c != '\\' && c >= 0x20 {
				raw = append(raw, c)
			}
		}
		text = append(append([]byte(`{"s":"`), raw...), `"}`...)
		if _, err := Decode(s, text); (err != nil) != !utf8.Valid(raw) {
			t.Fatalf("Decode(%q): %v; utf8.Valid %v", text, err, utf8.Valid(raw))
		}
	}
}
