package cluster

import (
	"context"
	"fmt"

	"github.com/braidsearch/braid/opensearch"
)

// Finding is one result of Doctor, the engine's Check in this package's
// terms.
type Finding struct {
	Name   string
	OK     bool
	Detail string
	// Warning marks a finding that limits the index without making it
	// unhealthy.
	Warning bool
}

// Doctor checks the cluster side: the cluster's health for the index, its
// mapping (opensearch.Open checked the version), the model of its vectors
// against the engine's, and what it holds.
func (c *Cluster) Doctor(ctx context.Context) ([]Finding, error) {
	h, err := c.x.Health(ctx)
	if err != nil {
		return nil, err
	}
	health := Finding{Name: "cluster", OK: h.Status != "red", Detail: fmt.Sprintf("%s: %s, %d node(s), index %s", c.cfg.URL, h.Status, h.Nodes, c.x.Name())}
	switch h.Status {
	case "yellow":
		health.Warning = true
		health.Detail += fmt.Sprintf("; %d replica shard(s) unassigned: fewer nodes than replicas need, so losing a node may lose data (add nodes, or set the index's replicas lower)", h.Unassigned)
	case "red":
		health.Detail += fmt.Sprintf("; %d shard(s) unassigned: some chunks cannot be searched until the nodes holding them return", h.Unassigned)
	}
	checks := []Finding{health, {Name: "mapping", OK: true, Detail: fmt.Sprintf("braid mapping version %d", opensearch.MappingVersion)}}
	model := Finding{Name: "embeddings", OK: true}
	switch m := c.ModelName(); {
	case m == "":
		model.Detail, model.Warning = "the index holds no vectors yet: search is BM25 only until an index run with a model", true
	case c.OtherModel() != "":
		model.Detail, model.Warning = fmt.Sprintf("the index's vectors are of %s, not of the model in use, %s: searches run BM25 only", m, c.cfg.Model), true
	default:
		model.Detail = "vectors of " + m
	}
	chunks, docs, err := c.x.Count(ctx)
	if err != nil {
		return nil, err
	}
	srcs, err := c.Sources(ctx)
	if err != nil {
		return nil, err
	}
	return append(checks, model, Finding{Name: "contents", OK: true, Detail: fmt.Sprintf("%d documents, %d chunks, %d source(s)", docs, chunks, len(srcs))}), nil
}

// Count counts the cluster index's chunks and documents.
func (c *Cluster) Count(ctx context.Context) (chunks, docs int, err error) {
	return c.x.Count(ctx)
}
