package azblob

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"gocloud.dev/blob"
	"gocloud.dev/blob/azureblob"

	"github.com/trevni-go/trevni/stores/internal/stallhttp"
	"github.com/trevni-go/trevni/stores/objstore"
)

// provider is what package objstore needs of the Azure SDK.
var provider = objstore.Provider{
	Scheme:     Scheme,
	OpenBucket: openAzure,
	NoRetries:  noRetries,
	HTTPStatus: httpStatus,
	// gocloud.dev's Azure driver's Writer (v0.47) dereferences a nil
	// pipe in Close after an upload that failed while it was written.
	StreamUploads: true,
}

// noRetries returns ctx telling the Azure SDK to make no retries, for the
// requests objstore retries itself.
func noRetries(ctx context.Context) context.Context {
	return policy.WithRetryOptions(ctx, policy.RetryOptions{MaxRetries: -1})
}

// httpStatus returns the HTTP status of the Azure SDK's error err
// carries, or 0.
func httpStatus(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}

// openAzure opens an azblob:// bucket as azureblob's URL opener does
// (the same query parameters, environment and credentials), with the
// SDK's transport under a stall bound.
func openAzure(ctx context.Context, u *url.URL, stall time.Duration) (*blob.Bucket, func(), error) {
	svc := azureblob.NewDefaultServiceURLOptions()
	if svc.AccountName == "" {
		// A connection string names its account (the service URL is
		// then its BlobEndpoint, see azureClient).
		svc.AccountName = connAccount(azureConnectionString())
	}
	home := ""
	if svc.SASToken != "" {
		// The SAS token goes with the service URL: a URL's parameters
		// may not send it elsewhere.
		s, err := azureblob.NewServiceURL(svc)
		if err != nil {
			return nil, nil, err
		}
		home = origin(string(s))
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12, Renegotiation: tls.RenegotiateFreelyAsClient}
	o := &azureblob.URLOpener{ServiceURLOptions: *svc, MakeClient: func(s azureblob.ServiceURL, name azureblob.ContainerName) (*container.Client, error) {
		if home != "" && !strings.EqualFold(origin(string(s)), home) {
			return nil, errors.New("azureblob: the bucket URL may not change the service's address when AZURE_STORAGE_SAS_TOKEN is set")
		}
		return azureClient(s, name, stall, tr)
	}}
	b, err := o.OpenBucketURL(ctx, u)
	return b, tr.CloseIdleConnections, err
}

// origin returns the scheme and host of a URL.
func origin(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return u.Scheme + "://" + u.Host
}

// azureClient returns the client of the container name of the service s,
// with the credentials of the environment as azureblob finds them (an
// account and its key, a SAS token, a connection string, or Azure's
// default credentials), its requests bounded by stall.
func azureClient(s azureblob.ServiceURL, name azureblob.ContainerName, stall time.Duration, tr *http.Transport) (*container.Client, error) {
	opts := &container.ClientOptions{}
	opts.Telemetry = policy.TelemetryOptions{ApplicationID: "trevni-go"}
	opts.Transport = &http.Client{Transport: stallhttp.Wrap(tr, stall)}
	curl, err := url.JoinPath(string(s), string(name))
	if err != nil {
		return nil, err
	}
	account, key := os.Getenv("AZURE_STORAGE_ACCOUNT"), os.Getenv("AZURE_STORAGE_KEY")
	conn := azureConnectionString()
	switch {
	case account != "" && key != "":
		cred, err := container.NewSharedKeyCredential(account, key)
		if err != nil {
			return nil, fmt.Errorf("azureblob: the account's key: %w", err)
		}
		return container.NewClientWithSharedKeyCredential(curl, cred, opts)
	case os.Getenv("AZURE_STORAGE_SAS_TOKEN") != "":
		return container.NewClientWithNoCredential(curl, opts)
	case conn != "":
		return container.NewClientFromConnectionString(conn, string(name), opts)
	}
	cred, err := azidentity.NewDefaultAzureCredential(nil)
	if err != nil {
		return nil, fmt.Errorf("azureblob: Azure's default credentials: %w", err)
	}
	return container.NewClient(curl, cred, opts)
}

// The account and key of Azure's storage emulators (Azurite), public and
// the same for every installation, and the address of its blob service.
const (
	devAccount  = "devstoreaccount1"
	devKey      = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
	devEndpoint = "http://127.0.0.1:10000/" + devAccount
)

// developmentStorage expands the connection string
// "UseDevelopmentStorage=true" (with an optional
// DevelopmentStorageProxyUri, the emulator's address: http://host, for
// its blob service at port 10000, or http://host:port) into the one it
// stands for, which the Azure SDK does not parse; other connection strings
// are returned as they are.
func developmentStorage(conn string) string {
	use, proxy := false, ""
	for _, kv := range strings.Split(conn, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		switch {
		case strings.EqualFold(k, "UseDevelopmentStorage"):
			use, _ = strconv.ParseBool(v)
		case strings.EqualFold(k, "DevelopmentStorageProxyUri"):
			proxy = v
		}
	}
	if !use {
		return conn
	}
	endpoint := devEndpoint
	if proxy != "" {
		if u, err := url.Parse(proxy); err == nil && u.Host != "" {
			host := u.Host // the emulator's port, or its blob service's usual one
			if u.Port() == "" {
				host += ":10000"
			}
			endpoint = u.Scheme + "://" + host + "/" + devAccount
		}
	}
	return "DefaultEndpointsProtocol=http;AccountName=" + devAccount + ";AccountKey=" + devKey + ";BlobEndpoint=" + endpoint + ";"
}

// azureConnectionString returns the connection string of the environment
// (AZURE_STORAGE_CONNECTION_STRING, or AZURE_STORAGEBLOB_CONNECTIONSTRING
// as gocloud.dev names it), UseDevelopmentStorage=true expanded, or "".
func azureConnectionString() string {
	conn := os.Getenv("AZURE_STORAGE_CONNECTION_STRING")
	if conn == "" {
		conn = os.Getenv("AZURE_STORAGEBLOB_CONNECTIONSTRING")
	}
	return developmentStorage(conn)
}

// connAccount returns the AccountName of a connection string, or "".
func connAccount(conn string) string {
	for _, kv := range strings.Split(conn, ";") {
		if k, v, _ := strings.Cut(strings.TrimSpace(kv), "="); strings.EqualFold(k, "AccountName") {
			return v
		}
	}
	return ""
}
