package cli

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
)

// loadAWS loads the AWS configuration s3:// sources are read with, the
// way the AWS CLI does: the environment (AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY, AWS_PROFILE, AWS_REGION, AWS_ENDPOINT_URL_S3...)
// and the shared config and credentials files. The engine calls it only
// when it indexes an S3 source; --s3-endpoint overrides the endpoint.
func loadAWS(ctx context.Context) (aws.Config, error) {
	return config.LoadDefaultConfig(ctx)
}
