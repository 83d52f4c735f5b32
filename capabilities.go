package braid

// Capabilities says which retrievers this engine's searches can use, and
// why one is missing, so a front end can tell its user before a search
// comes back lexical only.
type Capabilities struct {
	// Dir is the index directory, "" on the OpenSearch backend (left out
	// of the JSON, where Stats has it).
	Dir      string `json:"-"`
	ReadOnly bool   `json:"read_only"`
	// Vectors is true when the engine has an embedding model; Model names
	// it and Embedded counts the chunks in its vector index.
	Vectors  bool   `json:"vectors"`
	Model    string `json:"model,omitempty"`
	Embedded int    `json:"embedded,omitempty"`
	// NoVectors says why searches cannot use vectors now (no embedding
	// model, no embeddings indexed yet, or embeddings of another model),
	// or "" when they can.
	NoVectors string `json:"no_vectors,omitempty"`
	// Rerank is true when the engine has a cross-encoder; NoRerank says
	// why not.
	Rerank   bool   `json:"rerank"`
	NoRerank string `json:"no_rerank,omitempty"`
	// Device says where the models run and why ("cpu (auto: …)",
	// "cuda:0"), "" when none is loaded.
	Device string `json:"device,omitempty"`
	// Tightened says, once, which permissions a writer's Open took off an
	// older index (indexdir.Tighten); "" when none, and for a reader.
	Tightened string `json:"tightened,omitempty"`
}

// Capabilities describes the models the engine was opened with.
func (e *Engine) Capabilities() Capabilities {
	c := Capabilities{Dir: e.dir, ReadOnly: e.opt.ReadOnly, Rerank: e.opt.Reranker != nil,
		NoVectors: e.availability().Unavailable(), NoRerank: e.rerankUnavailable(), Device: e.opt.Device, Tightened: e.tightened}
	if e.vec != nil {
		c.Vectors, c.Model, c.Embedded = true, e.opt.Model, e.vec.Len()
	}
	if e.cl != nil && e.opt.Embedder != nil {
		c.Vectors, c.Model = true, e.opt.Model
	}
	return c
}
