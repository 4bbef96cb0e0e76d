// Package limitfile reads a whole small file (a schema, a descriptor set, a
// .proto source) with a bound on its size, so that a path such as
// /dev/zero or a huge file fails at once instead of filling memory.
package limitfile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// DefaultLimit is the bound the project's readers of schemas, descriptor
// sets and .proto sources use.
const DefaultLimit = 64 << 20

// ErrTooLarge is wrapped by the error of a file over the limit.
var ErrTooLarge = errors.New("file too large")

// ReadFile reads the file at path, failing with an error wrapping
// ErrTooLarge, and naming the limit, if it holds more than limit bytes.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s: is a directory", path)
	}
	return Read(f, path, limit)
}

// Read reads r to its end, as ReadFile reads a file; name says what r is,
// for the error.
func Read(r io.Reader, name string, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: %w: more than %s", name, ErrTooLarge, Size(limit))
	}
	return b, nil
}

// Size writes a byte count in the largest binary unit that divides it
// ("64 MiB"), or in bytes.
func Size(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n > 0 && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
