package main

import "os"

// linkNoReplace gives the file from the name to, failing with an error
// that wraps fs.ErrExist if to exists, and removes the name from. It is
// renameNoReplace where the system has no rename that refuses to replace.
func linkNoReplace(from, to string) error {
	if err := os.Link(from, to); err != nil {
		return err
	}
	os.Remove(from) // the temporary directory is removed after anyway
	return nil
}
