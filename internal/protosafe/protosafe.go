// Package protosafe unmarshals protobuf wire data that may be hostile.
package protosafe

import (
	"fmt"

	"google.golang.org/protobuf/proto"
)

// Unmarshal is o.Unmarshal(b, m), except that protobuf-go's panic on some
// malformed input into dynamicpb messages (a map entry whose key is followed
// by a key of the wrong wire type, which generated code skips) is returned
// as an error: stored bytes come from files, which may be hostile.
func Unmarshal(o proto.UnmarshalOptions, b []byte, m proto.Message) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("proto.Unmarshal: %v", r)
		}
	}()
	return o.Unmarshal(b, m)
}
