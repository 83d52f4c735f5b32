package braid

import (
	"context"
	"crypto/sha256"
	"fmt"

	"github.com/braidsearch/braid/settings"
)

// Organization is the index's own identity, as knowledge-stack clients
// ask for their tenant's (get_organization_info): its id, kept in the
// index since a writer first opened it (for an older index opened
// read-only, one derived from its directory until a writer opens it),
// and its name, language and timezone settings, else the folder's name
// and the machine's (settings.Values.Organization).
func (c *Config) Organization(ctx context.Context) (*settings.Organization, error) {
	e := c.e
	srcs, err := e.ret.Sources(ctx)
	if err != nil {
		return nil, err
	}
	docs, _, err := e.st.Counts()
	if err != nil {
		return nil, err
	}
	id, err := e.st.ID()
	if err != nil {
		return nil, err
	}
	if id == "" {
		h := sha256.Sum256([]byte("braid index\x00" + e.realDir))
		id = fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
	}
	v := e.currentSettings()
	return v.Organization(id, e.dir, docs, len(srcs)), nil
}
