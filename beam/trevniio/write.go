package trevniio

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/remote/store"
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
	// "bzip2", "zstd", as package format names them); "" means the front
	// door's default, deflate (trevni.WriteOptions), with CRC-32 checksums.
	Codec string
	// Replace lets Write replace shards that exist under the final names;
	// without it an existing shard fails the pipeline, before any shard
	// is put in place, and is left untouched (as the command line's
	// outputs without --force).
	Replace bool
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
// (N from WriteOptions.Shards). Records go to shards by a hash of their
// bytes. prefix is a local path or an object store's URL
// (s3://bucket/out/part, gs://...; the program imports the store's
// driver, github.com/trevni-go/trevni/stores/s3 and the like), written
// through the front door (trevni.Create): each shard is written under a temporary name (in the
// directory of prefix, which Write creates if need be; beside it in the
// bucket), which appears only once complete, and is moved to its final
// name when the pipeline has committed it, so a retried bundle leaves no
// duplicate or partial shard; shards that receive no record are written
// empty, so the set is always complete. Existing shards are replaced only
// with WriteOptions.Replace: Write checks them while the pipeline is
// built, and panics (as beam.ParDo does) if one exists or cannot be
// checked, so that a refused Write runs nothing; the finalizing step
// checks again before moving any shard, and if it refuses it removes the
// shards' temporary files. Write returns the PCollection of the final
// file names. TryWrite returns the refusal as an error instead.
func Write(s beam.Scope, prefix string, schemaText string, col beam.PCollection, opts *WriteOptions) beam.PCollection {
	out, err := TryWrite(s, prefix, schemaText, col, opts)
	if err != nil {
		panic(err)
	}
	return out
}

// TryWrite is Write returning an error where Write panics: a negative
// Shards, or, without WriteOptions.Replace, a shard that exists under its
// final name (an error wrapping trevni.ErrExists) or that cannot be
// checked (a store that cannot be reached, or whose driver the program
// does not link). The check is made where the pipeline is built: a path
// that only the workers see (a file system mounted on them alone) is
// checked by the finalizing step only.
func TryWrite(s beam.Scope, prefix string, schemaText string, col beam.PCollection, opts *WriteOptions) (beam.PCollection, error) {
	s = s.Scope("trevniio.Write")
	var cfg WriteOptions
	if opts != nil {
		cfg = *opts
	}
	if cfg.Shards < 0 {
		return beam.PCollection{}, fmt.Errorf("trevniio: Shards %d is negative", cfg.Shards)
	}
	if cfg.Shards == 0 {
		cfg.Shards = 1
	}
	if !cfg.Replace {
		if err := refuseExisting(context.Background(), prefix, cfg.Shards); err != nil {
			return beam.PCollection{}, err
		}
	}
	keyed := beam.ParDo(s, &shardFn{Shards: cfg.Shards}, col)
	grouped := beam.GroupByKey(s, keyed)
	temps := beam.ParDo(s, &writeShardFn{Prefix: prefix, Shards: cfg.Shards, Schema: schemaText, Codec: cfg.Codec}, grouped)
	return beam.ParDo(s, &finalizeFn{Prefix: prefix, Shards: cfg.Shards, Schema: schemaText, Codec: cfg.Codec, Replace: cfg.Replace},
		beam.Impulse(s), beam.SideInput{Input: temps}), nil
}

// refuseExisting returns an error wrapping trevni.ErrExists if a shard of
// prefix exists under its final name, or the error of checking.
func refuseExisting(ctx context.Context, prefix string, shards int) error {
	for i := range shards {
		final := ShardName(prefix, i, shards)
		there, err := exists(ctx, final)
		if err != nil {
			return fmt.Errorf("trevniio: checking %s: %w", final, err)
		}
		if there {
			return fmt.Errorf("trevniio: %s: %w: set WriteOptions.Replace to replace it", final, trevni.ErrExists)
		}
	}
	return nil
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
	name, err := writeTemp(fn.Prefix, shard, fn.Shards, fn.Schema, fn.Codec, func(aw *trevni.Writer) error {
		var rec []byte
		for records(&rec) {
			if err := aw.WriteBinary(rec); err != nil {
				return fmt.Errorf("record %d: %w", aw.Records(), err)
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

// writeTemp writes shard i of n under a temporary name of a random
// suffix, through the front door (trevni.Create: the file or object
// appears only once complete), with the records fill writes, and returns
// its name.
func writeTemp(prefix string, i, n int, schemaText, codec string, fill func(*trevni.Writer) error) (string, error) {
	final := ShardName(prefix, i, n)
	var r [8]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", fmt.Errorf("trevniio: %w", err)
	}
	name := final + tempMarker + hex.EncodeToString(r[:])
	if !frontdoor.IsURL(name, nil) {
		if err := os.MkdirAll(filepath.Dir(name), 0o777); err != nil {
			return "", fmt.Errorf("trevniio: %w", err)
		}
	}
	w, err := trevni.Create(context.Background(), name, schemaText, &trevni.WriteOptions{Codec: trevni.Codec(codec)})
	if err != nil {
		return "", fmt.Errorf("trevniio: %s: %w", final, err)
	}
	if err := fill(w); err != nil {
		w.Abort()
		return "", fmt.Errorf("trevniio: %s: %w", final, err)
	}
	if err := w.Close(); err != nil {
		return "", fmt.Errorf("trevniio: %s: %w", final, err)
	}
	return name, nil
}

// finalizeFn moves the committed temporary files to their shard names,
// writes the shards that received nothing, and removes the temporary
// files of attempts that were not committed.
type finalizeFn struct {
	Prefix  string
	Shards  int
	Schema  string
	Codec   string
	Replace bool
}

// ProcessElement runs once, on the impulse, with the committed temporary
// names as side input, and emits the final names in order. Without
// Replace it first checks that no shard it will put in place exists
// (one moved by an earlier attempt of this finalization, whose temporary
// file is gone, is its own), and fails before moving any.
func (fn *finalizeFn) ProcessElement(_ []byte, temps func(*string) bool, emit func(string)) (err error) {
	ctx := context.Background()
	defer func() {
		if err != nil {
			// A refused or failed finalization leaves no temporary
			// file: neither those committed, nor those of failed
			// bundles.
			fn.removeTemps(ctx)
		}
	}()
	committed := make(map[string]bool)
	var t string
	for temps(&t) {
		committed[t] = true
	}
	names := make([]string, 0, len(committed))
	for t := range committed {
		names = append(names, t)
	}
	sort.Strings(names)
	// The first committed temporary file of each shard (two cannot
	// happen: each key of a GroupByKey is processed once), and the
	// others, removed.
	first := make([]string, fn.Shards)
	var extra []string
	for _, t := range names {
		final, _, ok := strings.Cut(t, tempMarker)
		i := shardIndex(fn.Prefix, fn.Shards, final)
		if !ok || i < 0 {
			return fmt.Errorf("trevniio: %s is not a temporary shard of %s", t, fn.Prefix)
		}
		if first[i] != "" {
			extra = append(extra, t)
			continue
		}
		first[i] = t
	}
	pending := make([]bool, fn.Shards) // the shard is still to be put in place
	for i := range fn.Shards {
		final := ShardName(fn.Prefix, i, fn.Shards)
		finalThere, err := exists(ctx, final)
		if err != nil {
			return err
		}
		pending[i] = true
		if first[i] != "" {
			tempThere, err := exists(ctx, first[i])
			if err != nil {
				return err
			}
			// Moved by an earlier attempt: done.
			pending[i] = tempThere || !finalThere
		}
		if pending[i] && finalThere && !fn.Replace {
			return fmt.Errorf("trevniio: %s: %w: set WriteOptions.Replace to replace it", final, trevni.ErrExists)
		}
	}
	for _, t := range extra {
		remove(ctx, t)
	}
	for i := range fn.Shards {
		if !pending[i] {
			continue
		}
		final := ShardName(fn.Prefix, i, fn.Shards)
		t := first[i]
		if t == "" {
			var err error
			if t, err = writeTemp(fn.Prefix, i, fn.Shards, fn.Schema, fn.Codec, func(*trevni.Writer) error { return nil }); err != nil {
				return err
			}
		}
		if err := move(ctx, t, final, fn.Replace); err != nil {
			return fmt.Errorf("trevniio: %w", err)
		}
	}
	// Temporary files left by failed or retried bundles.
	if err := fn.removeTemps(ctx); err != nil {
		return err
	}
	for i := range fn.Shards {
		emit(ShardName(fn.Prefix, i, fn.Shards))
	}
	return nil
}

// removeTemps removes the temporary files of the shards of the prefix.
func (fn *finalizeFn) removeTemps(ctx context.Context) error {
	left, err := listTemps(ctx, fn.Prefix)
	if err != nil {
		return fmt.Errorf("trevniio: %w", err)
	}
	for _, l := range left {
		if final, _, _ := strings.Cut(l, tempMarker); shardIndex(fn.Prefix, fn.Shards, final) >= 0 {
			remove(ctx, l)
		}
	}
	return nil
}

// exists reports whether the file or object name exists.
func exists(ctx context.Context, name string) (bool, error) {
	if store.IsURL(name, nil) {
		st, err := store.For(name, nil)
		if err != nil {
			return false, err
		}
		return st.Exists(ctx, name, nil)
	}
	_, err := os.Stat(name)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, fmt.Errorf("trevniio: %w", err)
}

// remove removes the file or object name, if it exists.
func remove(ctx context.Context, name string) {
	if store.IsURL(name, nil) {
		if st, err := store.For(name, nil); err == nil {
			st.Remove(ctx, name, nil)
		}
		return
	}
	os.Remove(name)
}

// move puts the file or object from under the name to. Without replace a
// file at to is an error wrapping trevni.ErrExists: for local files the
// move is a hard link, which fails if to exists, and the removal of from
// (a rename where links are not supported, after a check); for objects a
// check, then the store's copy and the removal of from (see the store's
// Move).
func move(ctx context.Context, from, to string, replace bool) error {
	if store.IsURL(to, nil) {
		st, err := store.For(to, nil)
		if err != nil {
			return err
		}
		return st.Move(ctx, from, to, replace, nil)
	}
	if replace {
		return os.Rename(from, to)
	}
	err := os.Link(from, to)
	switch {
	case err == nil:
		return os.Remove(from)
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%s: %w", to, trevni.ErrExists)
	}
	if _, serr := os.Stat(to); serr == nil {
		return fmt.Errorf("%s: %w", to, trevni.ErrExists)
	}
	return os.Rename(from, to)
}

// listTemps returns the names of the temporary files of the shards of
// prefix that are left.
func listTemps(ctx context.Context, prefix string) ([]string, error) {
	pattern := globQuote(prefix) + "-*-of-*.trv" + tempMarker + "*"
	if store.IsURL(prefix, nil) {
		st, err := store.For(prefix, nil)
		if err != nil {
			return nil, err
		}
		return st.List(ctx, pattern, nil)
	}
	return filepath.Glob(pattern)
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
