package objstore

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

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	gcaws "gocloud.dev/aws"
	"gocloud.dev/blob"
	"gocloud.dev/blob/azureblob"
	"gocloud.dev/blob/s3blob"

	"github.com/trevni-go/trevni/internal/stallhttp"
)

// How buckets are opened.
//
// Every request of a bucket goes through a stallhttp.Transport that
// bounds its time without progress to Options.Stall: a request whose
// connection, answer header, body (taken by the connection) or answer
// body makes no progress for that long fails with an error wrapping
// ErrStalled, a timeout, which the SDKs retry as they retry a dropped
// connection (the AWS SDK up to 3 tries, the Azure SDK up to 4, the GCS
// driver the steps of uploads up to 9; reads are retried by Object).
// gocloud.dev's URL openers of S3 and Azure take no HTTP client, so the
// buckets of s3:// and azblob:// are opened here, with the query
// parameters and environment their openers read; gs:// URLs are opened
// by the GCS driver's opener, told the stall by its stall parameter.

// openBucket opens the bucket of bucketURL (a Location's Bucket) with
// every request bounded by stall (0: none), and returns it with the
// function that closes the idle connections of its own client (nil where
// it has none of its own: GCS's client is shared by all its buckets).
// Buckets are opened through acquireBucket, which shares them.
func openBucket(ctx context.Context, bucketURL string, stall time.Duration) (*blob.Bucket, func(), error) {
	u, err := url.Parse(bucketURL)
	if err != nil {
		return nil, nil, err
	}
	switch u.Scheme {
	case "s3":
		return openS3(ctx, u, stall)
	case "azblob":
		return openAzure(ctx, u, stall)
	case "gs":
		if stall > 0 {
			q := u.Query()
			if q.Get("stall") == "" {
				q.Set("stall", stall.String())
				u.RawQuery = q.Encode()
			}
		}
	}
	b, err := blob.OpenBucket(ctx, u.String())
	return b, nil, err
}

// openS3 opens an s3:// bucket as s3blob's URL opener does (the same
// query parameters: those of gocloud.dev/aws.V2ConfigFromURLParams and
// ssetype, kmskeyid, accelerate, disable_https, use_path_style and
// s3ForcePathStyle), with the SDK's HTTP client under a stall bound.
func openS3(ctx context.Context, u *url.URL, stall time.Duration) (*blob.Bucket, func(), error) {
	q := u.Query()
	take := func(k string) string {
		v := q.Get(k)
		q.Del(k)
		return v
	}
	flag := func(k string, set func(bool)) error {
		v := take(k)
		if v == "" {
			return nil
		}
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("open bucket %s: %s=%q is not a boolean", u.Host, k, v)
		}
		set(b)
		return nil
	}
	var bo s3blob.Options
	var so []func(*s3.Options)
	if v := take("ssetype"); v != "" {
		for _, t := range types.ServerSideEncryptionAes256.Values() {
			if strings.EqualFold(string(t), v) {
				bo.EncryptionType = t
			}
		}
		if bo.EncryptionType == "" {
			return nil, nil, fmt.Errorf("open bucket %s: ssetype=%q is not a server-side encryption", u.Host, v)
		}
	}
	bo.KMSEncryptionID = take("kmskeyid")
	for _, f := range []struct {
		key string
		set func(o *s3.Options, b bool)
	}{
		{"accelerate", func(o *s3.Options, b bool) { o.UseAccelerate = b }},
		{"disable_https", func(o *s3.Options, b bool) { o.EndpointOptions.DisableHTTPS = b }},
		{"use_path_style", func(o *s3.Options, b bool) { o.UsePathStyle = b }},
		{"s3ForcePathStyle", func(o *s3.Options, b bool) { o.UsePathStyle = b }},
	} {
		if err := flag(f.key, func(b bool) { so = append(so, func(o *s3.Options) { f.set(o, b) }) }); err != nil {
			return nil, nil, err
		}
	}
	cfg, err := gcaws.V2ConfigFromURLParams(ctx, q)
	if err != nil {
		return nil, nil, fmt.Errorf("open bucket %s: %w", u.Host, err)
	}
	// The SDK makes an HTTP client of its own only when its
	// configuration needs one (AWS_CA_BUNDLE); otherwise its clients
	// make their default one each. The bucket's client is made here, so
	// that its requests are bounded by stall and its connections closed
	// with the bucket.
	bc, ok := cfg.HTTPClient.(*awshttp.BuildableClient)
	switch {
	case cfg.HTTPClient == nil:
		bc = awshttp.NewBuildableClient()
	case !ok:
		return nil, nil, fmt.Errorf("open bucket %s: the AWS configuration's HTTP client is a %T, not the SDK's own", u.Host, cfg.HTTPClient)
	}
	c, ok := bc.Freeze().(*http.Client)
	if !ok {
		return nil, nil, fmt.Errorf("open bucket %s: the AWS SDK's HTTP client is a %T", u.Host, bc.Freeze())
	}
	closeIdle := idleCloser(c.Transport)
	if stall > 0 {
		c.Transport = stallhttp.Wrap(c.Transport, stall)
	}
	cfg.HTTPClient = c
	// gocloud.dev gives the configuration a retryer of its own, and the
	// SDK then ignores the tries a user sets in AWS_MAX_ATTEMPTS: they are
	// applied to the client here.
	env, err := config.NewEnvConfig()
	if err != nil {
		return nil, nil, fmt.Errorf("open bucket %s: %w", u.Host, err)
	}
	if n := env.RetryMaxAttempts; n > 0 {
		so = append(so, func(o *s3.Options) { o.RetryMaxAttempts = n })
	}
	bo.RequestChecksumCalculation = cfg.RequestChecksumCalculation
	b, err := s3blob.OpenBucket(ctx, s3.NewFromConfig(cfg, so...), u.Host, &bo)
	return b, closeIdle, err
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

// idleCloser returns the function that closes the idle connections of
// tr, or nil where it has none.
func idleCloser(tr http.RoundTripper) func() {
	if c, ok := tr.(interface{ CloseIdleConnections() }); ok {
		return c.CloseIdleConnections
	}
	return nil
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
