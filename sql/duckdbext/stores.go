package main

// The extension reads every object store the project has a driver for
// (s3://, gs://, azblob://): each registers its scheme on package
// remote/store; and http(s) URLs, through remote/httpread.
import (
	_ "github.com/trevni-go/trevni/remote/httpread" // http://, https://
	_ "github.com/trevni-go/trevni/stores/azblob"   // azblob://
	_ "github.com/trevni-go/trevni/stores/gs"       // gs://
	_ "github.com/trevni-go/trevni/stores/s3"       // s3://
)
