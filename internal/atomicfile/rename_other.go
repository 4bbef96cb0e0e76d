//go:build !linux

package atomicfile

// renameNoReplace renames from to to unless to exists, atomically, by a
// hard link (which fails on an existing name) and the removal of from.
func renameNoReplace(from, to string) error { return linkNoReplace(from, to) }
