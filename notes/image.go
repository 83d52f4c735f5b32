package notes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"path"
	"strings"

	"github.com/braidsearch/braid/extract"
	"github.com/braidsearch/braid/index"
)

// ErrNoImage is the error of Image for a chunk of a text document,
// which has no image to show.
var ErrNoImage = errors.New("not an image chunk")

// MaxImage is the largest image Image returns, in bytes.
const MaxImage = 8 << 20

// Image is what Reader.Image returns: the bytes and their media type.
type Image struct {
	Data []byte `json:"-"`
	MIME string `json:"mime"`
	// Path is the document's path; Page the PDF page rendered (0 for an
	// image file).
	Path string `json:"path"`
	Page int    `json:"page,omitempty"`
}

// imageTypes are the media types of the image files braid indexes.
var imageTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".svg": "image/svg+xml",
}

// Image returns the image behind a chunk (a search hit's chunk_id):
// for a chunk of an image document, the image file as it is now; for a
// chunk of a PDF, its page rendered as a PNG at 100 dpi. Any other chunk
// gives ErrNoImage, and an image over MaxImage bytes an error saying so.
func (r *Reader) Image(ctx context.Context, chunkID string) (*Image, error) {
	ct, err := r.Cite(ctx, chunkID)
	if err != nil {
		return nil, err
	}
	c, err := r.Get(ctx, ct.Document)
	if err != nil {
		return nil, err
	}
	d := c.Doc
	switch {
	case d.Kind == index.KindImage:
		mime := imageTypes[strings.ToLower(path.Ext(d.Path))]
		if len(c.Raw) > MaxImage {
			return nil, fmt.Errorf("%s is %s, over the %s an image may be; open the file itself", d.Path, index.FormatBytes(int64(len(c.Raw))), index.FormatBytes(MaxImage))
		}
		return &Image{Data: c.Raw, MIME: mime, Path: d.Path}, nil
	case d.Kind == index.KindPDF && ct.Page > 0 && c.Raw != nil:
		img, err := extract.RenderPDFPage(ctx, c.Raw, ct.Page, 100, nil)
		if err != nil {
			return nil, fmt.Errorf("render page %d of %s: %w", ct.Page, d.Path, err)
		}
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			return nil, err
		}
		if b.Len() > MaxImage {
			return nil, fmt.Errorf("page %d of %s renders to %s, over the %s an image may be", ct.Page, d.Path, index.FormatBytes(int64(b.Len())), index.FormatBytes(MaxImage))
		}
		return &Image{Data: b.Bytes(), MIME: "image/png", Path: d.Path, Page: ct.Page}, nil
	}
	return nil, fmt.Errorf("%w: chunk %s is text of %s (a %s document); read its text with read or cite", ErrNoImage, chunkID, d.Path, d.Kind)
}
