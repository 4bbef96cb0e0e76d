package main

import (
	"slices"
	"strings"

	"github.com/trevni-go/trevni"
)

// Defaults for the Trevni files the tool writes: deflate and crc32, which
// Java reads, and Java's block size.
const (
	defaultCodec    = string(trevni.Deflate)
	defaultChecksum = string(trevni.CRC32)
)

// The codecs built into the tool, by the names each format stores: the
// codecs of Trevni blocks (trevni.codec) and of Avro container files
// (avro.codec). zstd and zstandard name the same codec and are both
// accepted on either side.
var (
	trevniCodecs = []string{"null", "deflate", "snappy", "bzip2", "zstd"}
	avroCodecs   = []string{"null", "deflate", "snappy", "bzip2", "xz", "zstandard"}
)

// codecAliases maps other accepted names to the one a format stores.
var codecAliases = map[string][]string{
	"zstd":      {"zstandard"},
	"zstandard": {"zstd"},
}

// codecNames lists the names accepted for the codecs of a format.
func codecNames(codecs []string) string {
	var names []string
	for _, c := range codecs {
		names = append(names, c)
		names = append(names, codecAliases[c]...)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// checkCodec returns the name a format stores for the codec the user
// named, or a usage error listing the names accepted.
func (e *env) checkCodec(name string, codecs []string) (string, error) {
	for _, c := range codecs {
		if name == c || slices.Contains(codecAliases[c], name) {
			return c, nil
		}
	}
	return "", e.usagef("--codec %q: unknown codec (want %s)", name, codecNames(codecs))
}
