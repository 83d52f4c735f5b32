package indexdir

// The files of an index directory.
const (
	LockFile    = "lock"
	StoreFile   = "meta.db"
	LexicalDir  = "lexical.bleve"
	VersionFile = "VERSION"
	// SettingsFile holds the index's settings (package settings).
	SettingsFile = "settings.json"
	// StoreDir holds the document store; its blobs are in StoreDir/blobs.
	StoreDir = "store"
	// PromptsDir holds the user's own MCP prompt files, when the user
	// makes it (package prompts); braid writes nothing there.
	PromptsDir = "prompts"
)

// StampSuffix names the stamp file beside a file or folder of the index
// (meta.db.verified, lexical.bleve.verified, vectors-*.hnsw.verified):
// see Stamps.
const StampSuffix = ".verified"
