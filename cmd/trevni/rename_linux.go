package main

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames from to to, failing with an error that wraps
// fs.ErrExist if to exists: atomically with renameat2's RENAME_NOREPLACE,
// or, on a file system or kernel without it, by linking and unlinking
// (link fails if to exists).
func renameNoReplace(from, to string) error {
	err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.ENOTSUP):
		return linkNoReplace(from, to)
	}
	return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
}
