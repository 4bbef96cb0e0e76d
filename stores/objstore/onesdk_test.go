package objstore_test

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// sdks are the import path prefixes of each store's SDK (and of this
// module's own GCS driver and its Google credentials).
var sdks = map[string][]string{
	"aws": {"github.com/aws/"},
	"azure": {
		"github.com/Azure/", "github.com/AzureAD/",
	},
	"google": {
		"github.com/trevni-go/trevni/stores/gcs", "golang.org/x/oauth2/google",
		"cloud.google.com/", "google.golang.org/api/option", "google.golang.org/api/transport",
	},
}

// Each driver links its own store's SDK and no other's: a program that
// imports stores/s3 builds and links no Azure or Google code, and so on
// (before, package objstore named all three SDKs' types, and any one
// driver linked all three: 630 packages each). objstore, their shared
// machinery, links none. Checked with go list -deps, which lists what a
// program importing the package compiles and links.
//
// stores/azblob, besides, links nothing of Google's, of gRPC or of
// OpenTelemetry beyond what objstore (gocloud.dev/blob) links already:
// gocloud.dev's azureblob, which it used before, linked Google's
// credentials and API client (its user agent package) into every
// program that reads Azure (528 packages; now its own driver, 456).
func TestEachDriverLinksOnlyItsSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list (seconds); skipped with -short")
	}
	deps := map[string][]string{}
	for _, c := range []struct {
		pkg string
		own string // "" for none
	}{
		{"./s3", "aws"},
		{"./gs", "google"},
		{"./azblob", "azure"},
		{"./objstore", ""},
	} {
		cmd := exec.Command("go", "list", "-deps", c.pkg)
		cmd.Dir = ".." // the stores module's root
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", c.pkg, err, stderr.Bytes())
		}
		deps[c.pkg] = strings.Fields(string(out))
		count := map[string]int{}
		for _, d := range deps[c.pkg] {
			for sdk, prefixes := range sdks {
				for _, p := range prefixes {
					if strings.HasPrefix(d, p) || d == strings.TrimSuffix(p, "/") {
						count[sdk]++
						if sdk != c.own {
							t.Errorf("%s links %s, of the %s SDK", c.pkg, d, sdk)
						}
					}
				}
			}
		}
		if c.own != "" && count[c.own] == 0 {
			t.Errorf("%s links nothing of the %s SDK: the check lists the wrong packages", c.pkg, c.own)
		}
		t.Logf("%s: %d packages, %v", c.pkg, len(deps[c.pkg]), count)
	}
	shared := map[string]bool{}
	for _, d := range deps["./objstore"] {
		shared[d] = true
	}
	for _, d := range deps["./azblob"] {
		if shared[d] {
			continue
		}
		for _, p := range []string{
			"google.golang.org/", "cloud.google.com/", "github.com/googleapis/", "golang.org/x/oauth2",
			"go.opentelemetry.io/", "go.opencensus.io/", "gocloud.dev/",
		} {
			if strings.HasPrefix(d, p) {
				t.Errorf("./azblob links %s, which objstore does not", d)
			}
		}
	}
}
