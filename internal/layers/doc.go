// Package layers has no code: its test, layers_test.go, holds the module's
// architecture as a table of layers, bottom up, with what each layer is for,
// and fails on any import that points sideways or up, on any package the
// table does not place, and on heavy dependencies (the network, Beam,
// Arrow, DuckDB, cloud SDKs) outside the packages allowed them; its
// other test, layoutdoc_test.go, fails when docs/layout.md does not name
// every package (of the root module and of the modules beside it) or names
// one that does not exist; cirun_test.go holds .ci/run to what CI must
// do for every module (go mod tidy unchanged, every module's tests run,
// every go test with an explicit -timeout with room).
package layers
