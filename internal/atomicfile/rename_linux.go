//go:build linux

package atomicfile

import (
	"errors"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames from to to unless to exists, atomically: with
// renameat2's RENAME_NOREPLACE where the system has it, and otherwise by a
// hard link (which fails on an existing name) and the removal of from.
func renameNoReplace(from, to string) error {
	err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EEXIST):
		return ErrAppeared
	case !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOTSUP):
		return err
	}
	return linkNoReplace(from, to)
}
