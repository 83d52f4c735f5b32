package braid

import (
	"context"

	"github.com/braidsearch/braid/settings"
)

// Organization is the index's own identity, as knowledge-stack clients
// ask for their tenant's (get_organization_info): its id, kept in the
// index since a writer first opened it (settings.Values.Organization
// derives one for an older index opened read-only),
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
	v := e.currentSettings()
	return v.Organization(id, e.realDir, e.dir, docs, len(srcs)), nil
}
