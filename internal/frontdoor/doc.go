// Package frontdoor is the plumbing of the front door (package trevni)
// that the trevni command and the bridges (trevniarrow, beam's trevniio)
// need and a library user does not: the expansion of a data set's names,
// the one way an output file or object is created and committed, batches
// of records for columnar bridges, a part's candidate rows, a filter's
// fields, a part read as Trevni 2 columns, and concat over data sets
// opened on their own.
//
// It sits below the root package, which calls down into it. What needs the
// root's unexported state (a Reader's parallel machinery, a File's cached
// source reader, a Part's header) cannot be written here without an import
// cycle: for those the root hands this package its implementation when it
// is initialized (the functions in hooks.go), and this package's functions
// call it. Nothing outside the module's import path can import this
// package, so the front door's exported API stays the tour that go doc
// shows; the command (module github.com/trevni-go/trevni/cmd/trevni) and
// beam (github.com/trevni-go/trevni/beam) are under that path and may.
package frontdoor
