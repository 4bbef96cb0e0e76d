package main

// The command reads and writes every object store the project has a
// driver for: each registers its scheme on package remote/store; and
// http(s) URLs, through remote/httpread.
import (
	_ "github.com/trevni-go/trevni/remote/httpread" // http://, https://
	_ "github.com/trevni-go/trevni/stores/azblob"   // azblob://
	_ "github.com/trevni-go/trevni/stores/gs"       // gs://
	_ "github.com/trevni-go/trevni/stores/s3"       // s3://
)
