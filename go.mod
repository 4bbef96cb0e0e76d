module github.com/trevni-go/trevni

go 1.26.0

require (
	github.com/bufbuild/protocompile v0.14.1
	github.com/dsnet/compress v0.0.1
	github.com/golang/snappy v1.0.0
	github.com/klauspost/compress v1.20.3
	github.com/linkedin/goavro/v2 v2.15.0
	github.com/ulikunitz/xz v0.5.17
	go.opentelemetry.io/proto/otlp v1.11.1
	golang.org/x/sys v0.49.0
	golang.org/x/term v0.47.0
	google.golang.org/protobuf v1.36.12
)

require golang.org/x/sync v0.8.0 // indirect
