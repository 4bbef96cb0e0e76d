package atomicfile

import (
	"errors"
	"os"
)

// linkNoReplace renames from to to unless to exists: a hard link fails on
// an existing name, and from is then removed.
func linkNoReplace(from, to string) error {
	if err := os.Link(from, to); err != nil {
		if errors.Is(err, os.ErrExist) {
			return ErrAppeared
		}
		return err
	}
	return os.Remove(from)
}
