package azblob

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Names on Azure.
//
// Azure Blob Storage takes no object name with some characters, nor one
// ending in "/", nor a "../", and only C# identifiers as metadata keys.
// The driver writes the characters it cannot take as "__0x<hex>__" (the
// rune's code in lower-case hexadecimal), as gocloud.dev's azureblob
// does, so that the objects either driver writes keep their names in the
// other: in a key, the ASCII controls (0-31, 127), '"', '#', '%', '?',
// '\\', the "/" of a "../" and a key's last "/"; in a metadata key,
// everything but ASCII letters, digits and '_', and a leading digit.
// Metadata values are URL path-escaped. Text that would read as an
// escape itself has its first '_' escaped, so that no two names meet.

// escapeKey returns key as the driver names it on Azure; a prefix (or a
// delimiter) keeps a last "/".
func escapeKey(key string, prefix bool) string {
	rs := []rune(key)
	return hexEscape(rs, func(i int) bool {
		c := rs[i]
		switch {
		case c < 32, c == 127, c == '"', c == '#', c == '%', c == '?', c == '\\':
			return true
		case c == '/' && !prefix && i == len(rs)-1:
			return true
		case c == '/' && i >= 2 && rs[i-1] == '.' && rs[i-2] == '.':
			return true
		}
		return false
	})
}

// unescapeKey returns the key of an object's name on Azure.
func unescapeKey(name string) string { return hexUnescape(name) }

// escapeMetadataKey returns a metadata key as a C# identifier.
func escapeMetadataKey(k string) string {
	rs := []rune(k)
	return hexEscape(rs, func(i int) bool {
		c := rs[i]
		switch {
		case c >= '0' && c <= '9':
			return i == 0
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
			return false
		}
		return true
	})
}

// hexEscape writes the runes of rs that escape reports as "__0x<hex>__",
// and the first rune of any text that would read as such an escape.
func hexEscape(rs []rune, escape func(i int) bool) string {
	var b strings.Builder
	changed := false
	for i := range rs {
		if escape(i) || startsEscape(rs, i) {
			if !changed {
				changed = true
				b.WriteString(string(rs[:i]))
			}
			fmt.Fprintf(&b, "__0x%x__", rs[i])
			continue
		}
		if changed {
			b.WriteRune(rs[i])
		}
	}
	if !changed {
		return string(rs)
	}
	return b.String()
}

// startsEscape reports whether an escape "__0x<hex>__" starts at rs[i].
func startsEscape(rs []rune, i int) bool {
	_, _, ok := readEscape(rs, i)
	return ok
}

// readEscape reads an escape "__0x<hex>__" at rs[i]: the rune it stands
// for and the index of its last rune.
func readEscape(rs []rune, i int) (rune, int, bool) {
	const head = "__0x"
	if len(rs)-i < len(head)+3 || string(rs[i:i+len(head)]) != head {
		return 0, 0, false
	}
	j := i + len(head)
	k := j
	for k < len(rs) && rs[k] != '_' {
		k++
	}
	if k+1 >= len(rs) || rs[k+1] != '_' {
		return 0, 0, false
	}
	n, err := strconv.ParseInt(string(rs[j:k]), 16, 32)
	if err != nil {
		return 0, 0, false
	}
	return rune(n), k + 1, true
}

// hexUnescape reverses hexEscape.
func hexUnescape(s string) string {
	if !strings.Contains(s, "__0x") {
		return s
	}
	rs := []rune(s)
	var b strings.Builder
	for i := 0; i < len(rs); i++ {
		if r, end, ok := readEscape(rs, i); ok {
			b.WriteRune(r)
			i = end
			continue
		}
		b.WriteRune(rs[i])
	}
	return b.String()
}

// toMetadata returns metadata as Azure takes it.
func toMetadata(md map[string]string) (map[string]*string, error) {
	if len(md) == 0 {
		return nil, nil
	}
	out := make(map[string]*string, len(md))
	for k, v := range md {
		e := escapeMetadataKey(k)
		if _, dup := out[e]; dup {
			return nil, fmt.Errorf("azblob: metadata keys %q and another are one on Azure (%q)", k, e)
		}
		ev := url.PathEscape(v)
		out[e] = &ev
	}
	return out, nil
}

// fromMetadata reverses toMetadata.
func fromMetadata(md map[string]*string) map[string]string {
	if len(md) == 0 {
		return nil
	}
	out := make(map[string]string, len(md))
	for k, v := range md {
		val := deref(v)
		if u, err := url.PathUnescape(val); err == nil && utf8.ValidString(u) {
			val = u
		}
		out[hexUnescape(k)] = val
	}
	return out
}
