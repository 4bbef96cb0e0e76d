package main

import (
	"flag"
	"strings"
)

// joinedShortFlags rewrites arguments that join a one-letter flag and its
// value, as other tools take them (head -n2), into the form the flag
// package parses (-n=2): an argument -Xvalue whose X is a one-letter flag
// of fs taking a value, when -Xvalue names no flag itself. The others are
// kept; so is everything after "--".
func joinedShortFlags(fs *flag.FlagSet, args []string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			if out == nil {
				return args
			}
			return append(out, args[i:]...)
		}
		if len(a) > 2 && a[0] == '-' && a[1] != '-' && !strings.Contains(a, "=") && fs.Lookup(a[1:]) == nil {
			if f := fs.Lookup(a[1:2]); f != nil && !isBoolFlag(f) {
				if out == nil {
					out = append([]string(nil), args[:i]...)
				}
				out = append(out, a[:2]+"="+a[2:])
				continue
			}
		}
		if out != nil {
			out = append(out, a)
		}
	}
	if out == nil {
		return args
	}
	return out
}

// isBoolFlag reports whether f takes no value.
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
