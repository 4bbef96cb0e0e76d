// Trevni reads, checks and converts Trevni column files.
//
// Usage:
//
//	trevni COMMAND [flags] ARGS
//
// The commands are:
//
//	meta      print a file's metadata, columns and block descriptors as JSON
//	dump      print every row as a JSON object, one per line
//	validate  check a file's structure and every checksum
//	help      explain a command
//
// A file argument of "-" means standard input or standard output. Output
// files are written to a temporary file in the same directory and renamed
// into place only when complete, so a failed or interrupted run leaves no
// partial file and leaves an existing file untouched.
//
// Errors are reported as one line, "trevni: COMMAND: what went wrong", with
// exit status 1; usage errors exit with status 2; a run interrupted by
// SIGINT or SIGTERM exits with 128 plus the signal number. Long runs show
// their progress on standard error when it is a terminal, unless --quiet is
// given.
//
// Run "trevni help COMMAND" for the details of a command.
package main
