module github.com/trevni-go/trevni

go 1.26.0

require (
	github.com/bufbuild/protocompile v0.14.1 // indirect
	github.com/dsnet/compress v0.0.1 // indirect
	github.com/golang/snappy v1.0.0 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/linkedin/goavro/v2 v2.15.0 // indirect
	github.com/ulikunitz/xz v0.5.17 // indirect
	go.opentelemetry.io/proto/otlp v1.11.1 // indirect
	golang.org/x/sync v0.8.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
