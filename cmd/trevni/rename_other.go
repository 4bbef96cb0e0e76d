//go:build !linux

package main

// renameNoReplace renames from to to, failing with an error that wraps
// fs.ErrExist if to exists, by linking and unlinking (link fails if to
// exists).
func renameNoReplace(from, to string) error { return linkNoReplace(from, to) }
