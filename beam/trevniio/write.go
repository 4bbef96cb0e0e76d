package trevniio

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/shred"
)

func init() {
	register.DoFn2x0[[]byte, func(int, []byte)](&shardFn{})
	register.Emitter2[int, []byte]()
	register.DoFn3x1[int, func(*[]byte) bool, func(string), error](&writeShardFn{})
	register.Iter1[[]byte]()
	register.DoFn3x1[[]byte, func(*string) bool, func(string), error](&finalizeFn{})
	register.Iter1[string]()
	beam.RegisterType(reflect.TypeOf((*shardFn)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*writeShardFn)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*finalizeFn)(nil)).Elem())
}

// WriteOptions configure Write. A nil *WriteOptions, like the zero value,
// writes one file with format's default codec.
type WriteOptions struct {
	// Shards is the number of files Write makes; 0 means 1.
	Shards int
	// Codec is the codec of the files ("null", "deflate", "snappy",
	// "bzip2", "zstandard", "xz", as package format names them); "" means
	// format's default.
	Codec string
}

// ShardName returns the name of shard i of n that Write gives files of
// prefix: PREFIX-00000-of-00004.trv.
func ShardName(prefix string, i, n int) string {
	return fmt.Sprintf("%s-%05d-of-%05d.trv", prefix, i, n)
}

// tempMarker separates a shard's name from the random suffix of its
// temporary name.
const tempMarker = ".tmp-"

// Write writes col, a PCollection of []byte holding records in the Avro
// binary encoding of schemaText, to Trevni files PREFIX-00000-of-0000N.trv
// (N from WriteOptions.Shards). Records go to shards by a hash of their bytes. Each
// shard is written under a temporary name (in the directory of prefix,
// which Write creates if need be) and renamed when the pipeline
// has committed it, so a retried bundle leaves no duplicate or partial
// shard; shards that receive no record are written empty, so the set is
// always complete. Write returns the PCollection of the final file names.
func Write(s beam.Scope, prefix string, schemaText string, col beam.PCollection, opts *WriteOptions) beam.PCollection {
	s = s.Scope("trevniio.Write")
	var cfg WriteOptions
	if opts != nil {
		cfg = *opts
	}
	if cfg.Shards < 0 {
		panic(fmt.Sprintf("trevniio: Shards %d is negative", cfg.Shards))
	}
	if cfg.Shards == 0 {
		cfg.Shards = 1
	}
	keyed := beam.ParDo(s, &shardFn{Shards: cfg.Shards}, col)
	grouped := beam.GroupByKey(s, keyed)
	temps := beam.ParDo(s, &writeShardFn{Prefix: prefix, Shards: cfg.Shards, Schema: schemaText, Codec: cfg.Codec}, grouped)
	return beam.ParDo(s, &finalizeFn{Prefix: prefix, Shards: cfg.Shards, Schema: schemaText, Codec: cfg.Codec},
		beam.Impulse(s), beam.SideInput{Input: temps})
}

// shardFn keys each record by its shard.
type shardFn struct {
	Shards int
}

// ProcessElement emits rec keyed by a hash of its bytes modulo Shards.
func (fn *shardFn) ProcessElement(rec []byte, emit func(int, []byte)) {
	h := fnv.New64a()
	h.Write(rec)
	emit(int(h.Sum64()%uint64(fn.Shards)), rec)
}

// writeShardFn writes the records of one shard to a temporary file.
type writeShardFn struct {
	Prefix string
	Shards int
	Schema string
	Codec  string
}

// ProcessElement writes the records of shard to a new temporary file and
// emits its name.
func (fn *writeShardFn) ProcessElement(shard int, records func(*[]byte) bool, emit func(string)) error {
	name, err := writeTemp(fn.Prefix, shard, fn.Shards, fn.Schema, fn.Codec, func(aw *shred.AvroWriter) error {
		var rec []byte
		for records(&rec) {
			if err := aw.WriteBinary(rec); err != nil {
				return fmt.Errorf("record %d: %w", aw.RowCount(), err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	emit(name)
	return nil
}

// writeTemp writes shard i of n to a temporary file of a random name,
// with the records fill writes, and returns its name.
func writeTemp(prefix string, i, n int, schemaText, codec string, fill func(*shred.AvroWriter) error) (string, error) {
	final := ShardName(prefix, i, n)
	var r [8]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", fmt.Errorf("trevniio: %w", err)
	}
	name := final + tempMarker + hex.EncodeToString(r[:])
	if err := os.MkdirAll(filepath.Dir(name), 0o777); err != nil {
		return "", fmt.Errorf("trevniio: %w", err)
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return "", fmt.Errorf("trevniio: %w", err)
	}
	fail := func(err error) (string, error) {
		f.Close()
		os.Remove(name)
		return "", fmt.Errorf("trevniio: %s: %w", final, err)
	}
	opts := &shred.Options{WriterOptions: format.WriterOptions{Codec: codec}}
	aw, err := shred.NewAvroWriter(f, schemaText, opts)
	if err != nil {
		return fail(err)
	}
	if err := fill(aw); err != nil {
		aw.Abort()
		return fail(err)
	}
	if err := aw.Close(); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(name)
		return "", fmt.Errorf("trevniio: %s: %w", final, err)
	}
	return name, nil
}

// finalizeFn renames the committed temporary files to their shard names,
// writes the shards that received nothing, and removes the temporary
// files of attempts that were not committed.
type finalizeFn struct {
	Prefix string
	Shards int
	Schema string
	Codec  string
}

// ProcessElement runs once, on the impulse, with the committed temporary
// names as side input, and emits the final names in order.
func (fn *finalizeFn) ProcessElement(_ []byte, temps func(*string) bool, emit func(string)) error {
	committed := make(map[string]bool)
	done := make([]bool, fn.Shards)
	var t string
	for temps(&t) {
		committed[t] = true
	}
	names := make([]string, 0, len(committed))
	for t := range committed {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		final, _, ok := strings.Cut(t, tempMarker)
		i := shardIndex(fn.Prefix, fn.Shards, final)
		if !ok || i < 0 {
			return fmt.Errorf("trevniio: %s is not a temporary shard of %s", t, fn.Prefix)
		}
		if done[i] {
			// Two committed outputs of one shard cannot happen (each key of
			// a GroupByKey is processed once); keep the first.
			os.Remove(t)
			continue
		}
		if err := os.Rename(t, final); err != nil {
			// A retried finalization finds the shard already renamed.
			if _, serr := os.Stat(final); serr != nil || !os.IsNotExist(err) {
				return fmt.Errorf("trevniio: %w", err)
			}
		}
		done[i] = true
	}
	for i, d := range done {
		if d {
			continue
		}
		final := ShardName(fn.Prefix, i, fn.Shards)
		t, err := writeTemp(fn.Prefix, i, fn.Shards, fn.Schema, fn.Codec, func(*shred.AvroWriter) error { return nil })
		if err != nil {
			return err
		}
		if err := os.Rename(t, final); err != nil {
			return fmt.Errorf("trevniio: %w", err)
		}
	}
	// Temporary files left by failed or retried bundles.
	left, err := filepath.Glob(globQuote(fn.Prefix) + "-*-of-*.trv" + tempMarker + "*")
	if err != nil {
		return fmt.Errorf("trevniio: %w", err)
	}
	for _, l := range left {
		if final, _, _ := strings.Cut(l, tempMarker); shardIndex(fn.Prefix, fn.Shards, final) >= 0 {
			os.Remove(l)
		}
	}
	for i := range fn.Shards {
		emit(ShardName(fn.Prefix, i, fn.Shards))
	}
	return nil
}

// shardIndex returns i if name is ShardName(prefix, i, n), else -1.
func shardIndex(prefix string, n int, name string) int {
	for i := range n {
		if ShardName(prefix, i, n) == name {
			return i
		}
	}
	return -1
}

// globQuote escapes the characters filepath.Match treats specially.
func globQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '*', '?', '[', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
