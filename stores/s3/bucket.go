package s3

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	gcaws "gocloud.dev/aws"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"

	"github.com/trevni-go/trevni/stores/internal/stallhttp"
	"github.com/trevni-go/trevni/stores/objstore"
)

// provider is what package objstore needs of the AWS SDK.
var provider = objstore.Provider{
	Scheme:     Scheme,
	OpenBucket: openS3,
	// The AWS SDK retries the look at an object itself (3 tries).
	LookRetried: true,
	Answered:    answered,
	BeforeRead:  beforeRead,
	AbortUpload: abortUpload,
	// HTTPStatus: the SDK's errors have an HTTPStatusCode method, which
	// objstore reads.
}

// answered returns the ETag a read's answer carries.
func answered(as func(any) bool) objstore.Version {
	var out s3.GetObjectOutput
	if as(&out) && out.ETag != nil {
		return objstore.Version{ETag: *out.ETag}
	}
	return objstore.Version{}
}

// beforeRead makes a read ask for the ETag opened only (If-Match), and
// leaves retrying to objstore (one policy, and every request counted).
func beforeRead(as func(any) bool, v objstore.Version) error {
	var in *s3.GetObjectInput
	if as(&in) && v.ETag != "" {
		in.IfMatch = aws.String(v.ETag)
	}
	var opts *[]func(*s3.Options)
	if as(&opts) {
		*opts = append(*opts, func(o *s3.Options) { o.RetryMaxAttempts = 1 })
	}
	return nil
}

// abortUpload aborts the multipart upload id through b's client.
func abortUpload(ctx context.Context, b *blob.Bucket, bucket, key, id string) (string, error) {
	command := fmt.Sprintf("aws s3api abort-multipart-upload --bucket %s --key %s --upload-id %s", bucket, key, id)
	var client *s3.Client
	if !b.As(&client) {
		return command, errors.New("the bucket has no S3 client")
	}
	_, err := client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{
		Bucket: aws.String(bucket), Key: aws.String(key), UploadId: aws.String(id),
	})
	var api smithy.APIError
	if err == nil || errors.As(err, &api) && api.ErrorCode() == "NoSuchUpload" {
		return command, nil
	}
	return command, err
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

// idleCloser returns the function that closes the idle connections of
// tr, or nil where it has none.
func idleCloser(tr http.RoundTripper) func() {
	if c, ok := tr.(interface{ CloseIdleConnections() }); ok {
		return c.CloseIdleConnections
	}
	return nil
}
