package download

import (
	"net/url"
	"path"
	"strings"
)

// Name names the page after its URL, for a store: web/HOST/PATH, with the
// extension its content calls for (.md for markdown, HTML converted
// included; .txt for other text without one), a folder URL's page as
// index, and at most 1000 bytes. The name is not checked as a store's
// name would be; an error is the URL's that does not parse.
func (p *Page) Name() (string, error) {
	u, err := url.Parse(p.URL)
	if err != nil {
		return "", err
	}
	host := strings.NewReplacer(":", "_", "[", "", "]", "").Replace(u.Host)
	clean := strings.Trim(path.Clean("/"+u.Path), "/")
	if clean == "" || strings.HasSuffix(u.Path, "/") {
		clean = path.Join(clean, "index")
	}
	ext := strings.ToLower(path.Ext(clean))
	switch {
	case p.Markdown() && ext != ".md":
		if ext == ".html" || ext == ".htm" || ext == ".xhtml" || ext == ".markdown" {
			clean = strings.TrimSuffix(clean, path.Ext(clean))
		}
		clean += ".md"
	case !p.Markdown() && ext == "":
		clean += ".txt"
	}
	name := path.Join("web", host, clean)
	if len(name) > 1000 {
		name = name[:1000]
	}
	return name, nil
}
