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
	azblobblob "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"gocloud.dev/blob"

	"github.com/trevni-go/trevni/stores/internal/stallhttp"
	"github.com/trevni-go/trevni/stores/objstore"
)

// provider is what package objstore needs of the Azure SDK.
var provider = objstore.Provider{
	Scheme:     Scheme,
	OpenBucket: openAzure,
	NoRetries:  noRetries,
	HTTPStatus: httpStatus,
	BeforeRead: beforeRead,
	Answered:   answered,
}

// beforeRead makes a read ask for the ETag opened only (If-Match: an
// object replaced since fails the read with 412, which objstore reports
// as changed).
func beforeRead(as func(any) bool, v objstore.Version) error {
	var do *azblobblob.DownloadStreamOptions
	if v.ETag == "" || !as(&do) {
		return nil
	}
	etag := azcore.ETag(v.ETag)
	if do.AccessConditions == nil {
		do.AccessConditions = &azblobblob.AccessConditions{}
	}
	if do.AccessConditions.ModifiedAccessConditions == nil {
		do.AccessConditions.ModifiedAccessConditions = &azblobblob.ModifiedAccessConditions{}
	}
	do.AccessConditions.ModifiedAccessConditions.IfMatch = &etag
	return nil
}

// answered returns the ETag a read's answer carries, for a store that
// ignores If-Match.
func answered(as func(any) bool) objstore.Version {
	var resp *azblobblob.DownloadStreamResponse
	if as(&resp) && resp.ETag != nil {
		return objstore.Version{ETag: string(*resp.ETag)}
	}
	return objstore.Version{}
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

// openAzure opens an azblob:// bucket with the query parameters,
// environment and credentials gocloud.dev's azureblob takes (see
// serviceOptions), with the SDK's transport under a stall bound.
func openAzure(ctx context.Context, u *url.URL, stall time.Duration) (*blob.Bucket, func(), error) {
	env := envServiceOptions()
	home := ""
	if env.sas != "" {
		// The SAS token goes with the service URL: a URL's parameters
		// may not send it elsewhere.
		s, err := env.serviceURL()
		if err != nil {
			return nil, nil, err
		}
		home = origin(s)
	}
	so, err := env.withParams(u.Query())
	if err != nil {
		return nil, nil, fmt.Errorf("azblob: %s: %w", u.Redacted(), err)
	}
	s, err := so.serviceURL()
	if err != nil {
		return nil, nil, err
	}
	if home != "" && !strings.EqualFold(origin(s), home) {
		return nil, nil, errors.New("azblob: the bucket URL may not change the service's address when AZURE_STORAGE_SAS_TOKEN is set")
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12, Renegotiation: tls.RenegotiateFreelyAsClient}
	c, err := azureClient(s, u.Host, stall, tr)
	if err != nil {
		return nil, nil, err
	}
	return OpenBucket(c), tr.CloseIdleConnections, nil
}

// serviceOptions say where an account's blob service is, as
// gocloud.dev's azureblob.ServiceURLOptions do: from the environment
// (AZURE_STORAGE_ACCOUNT, AZURE_STORAGE_SAS_TOKEN, AZURE_STORAGE_DOMAIN,
// AZURE_STORAGE_PROTOCOL, AZURE_STORAGE_IS_CDN,
// AZURE_STORAGE_IS_LOCAL_EMULATOR, and a connection string's AccountName
// and DefaultEndpointsProtocol), overridden by a bucket URL's parameters
// (storage_account, domain, protocol, cdn, localemu).
type serviceOptions struct {
	account, sas, domain, protocol string
	cdn, emulator                  bool
}

// envServiceOptions returns the service options of the environment.
func envServiceOptions() serviceOptions {
	o := serviceOptions{
		account:  os.Getenv("AZURE_STORAGE_ACCOUNT"),
		sas:      os.Getenv("AZURE_STORAGE_SAS_TOKEN"),
		domain:   os.Getenv("AZURE_STORAGE_DOMAIN"),
		protocol: os.Getenv("AZURE_STORAGE_PROTOCOL"),
	}
	o.cdn, _ = strconv.ParseBool(os.Getenv("AZURE_STORAGE_IS_CDN"))
	o.emulator, _ = strconv.ParseBool(os.Getenv("AZURE_STORAGE_IS_LOCAL_EMULATOR"))
	conn := azureConnectionString()
	if o.account == "" {
		o.account = connField(conn, "AccountName")
	}
	if o.protocol == "" {
		o.protocol = connField(conn, "DefaultEndpointsProtocol")
	}
	return o
}

// withParams returns o overridden by a bucket URL's query parameters.
func (o serviceOptions) withParams(q url.Values) (serviceOptions, error) {
	for k, vs := range q {
		if len(vs) > 1 {
			return o, fmt.Errorf("the parameter %s is given %d times", k, len(vs))
		}
		v := vs[0]
		var err error
		switch k {
		case "domain":
			o.domain = v
		case "protocol":
			o.protocol = v
		case "storage_account":
			o.account = v
		case "cdn":
			o.cdn, err = strconv.ParseBool(v)
		case "localemu":
			o.emulator, err = strconv.ParseBool(v)
		default:
			return o, fmt.Errorf("unknown query parameter %q (azblob:// takes domain, protocol, storage_account, cdn and localemu)", k)
		}
		if err != nil {
			return o, fmt.Errorf("%s=%q is not a boolean", k, v)
		}
	}
	return o, nil
}

// serviceURL returns the address of the blob service:
// protocol://account.domain (domain blob.core.windows.net, protocol
// https by default); protocol://domain/account for an emulator (a domain
// at localhost or 127.0.0.1, or localemu); protocol://domain for a CDN;
// the SAS token as its query.
func (o serviceOptions) serviceURL() (string, error) {
	if o.account == "" {
		return "", errors.New("azblob: no storage account: set AZURE_STORAGE_ACCOUNT, a connection string or the URL's storage_account")
	}
	domain, protocol := o.domain, o.protocol
	if domain == "" {
		domain = "blob.core.windows.net"
	}
	switch protocol {
	case "":
		protocol = "https"
	case "http", "https":
	default:
		return "", fmt.Errorf("azblob: protocol %q is neither http nor https", protocol)
	}
	var s string
	switch {
	case o.emulator || strings.HasPrefix(domain, "127.0.0.1") || strings.HasPrefix(domain, "localhost"):
		s = protocol + "://" + domain + "/" + o.account
	case o.cdn:
		s = protocol + "://" + domain
	default:
		s = protocol + "://" + o.account + "." + domain
	}
	if o.sas != "" {
		s += "?" + o.sas
	}
	return s, nil
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
func azureClient(s, name string, stall time.Duration, tr *http.Transport) (*container.Client, error) {
	opts := &container.ClientOptions{}
	opts.Telemetry = policy.TelemetryOptions{ApplicationID: "trevni-go"}
	opts.Transport = &http.Client{Transport: stallhttp.Wrap(tr, stall)}
	curl, err := containerURL(s, name)
	if err != nil {
		return nil, err
	}
	account, key := os.Getenv("AZURE_STORAGE_ACCOUNT"), os.Getenv("AZURE_STORAGE_KEY")
	conn := azureConnectionString()
	switch {
	case account != "" && key != "":
		cred, err := container.NewSharedKeyCredential(account, key)
		if err != nil {
			return nil, fmt.Errorf("azblob: the account's key: %w", err)
		}
		return container.NewClientWithSharedKeyCredential(curl, cred, opts)
	case os.Getenv("AZURE_STORAGE_SAS_TOKEN") != "":
		return container.NewClientWithNoCredential(curl, opts)
	case conn != "":
		return container.NewClientFromConnectionString(conn, name, opts)
	}
	cred, err := azidentity.NewDefaultAzureCredential(nil)
	if err != nil {
		return nil, fmt.Errorf("azblob: Azure's default credentials: %w", err)
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

// connField returns the value of the field key of a connection string,
// or "".
func connField(conn, key string) string {
	for _, kv := range strings.Split(conn, ";") {
		if k, v, _ := strings.Cut(strings.TrimSpace(kv), "="); strings.EqualFold(k, key) {
			return v
		}
	}
	return ""
}

// containerURL returns the address of the container name of the blob
// service s, the service's query (a SAS token) kept.
func containerURL(s, name string) (string, error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", err
	}
	return u.JoinPath(name).String(), nil
}
