# braid — build, test and demo targets. Everything a target needs it installs itself.
SHELL := /bin/bash
GO ?= go
BIN := bin/braid
DATA ?= ../shared/data
DEMO_INDEX ?= .braid-demo

.PHONY: build test test-short demo bench lint tools clean

build:
	$(GO) build -o $(BIN) ./cmd/braid

# The test command (README, .ci/run): vet, then every test with the race detector.
test: tools
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

test-short:
	$(GO) test -short ./...

# Index a real markdown vault and answer a hybrid query.
demo: build
	@test -d $(DATA)/markdown/silverbullet/docs || { echo "demo: $(DATA)/markdown/silverbullet/docs is missing; set DATA=path/to/shared/data"; exit 1; }
	rm -rf $(DEMO_INDEX)
	$(BIN) --index $(DEMO_INDEX) index $(DATA)/markdown/silverbullet/docs
	$(BIN) --index $(DEMO_INDEX) search --vector-weight 0.5 --limit 5 "how do I write a space script"
	$(BIN) --index $(DEMO_INDEX) stats

bench: tools
	$(GO) test -run='^$$' -bench=. -benchmem ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# ripgrep is the reference the grep tests compare against.
tools:
	@command -v rg >/dev/null || { echo "installing ripgrep (apt-get)"; (apt-get update -qq && apt-get install -y -qq ripgrep) >/dev/null 2>&1 || sudo apt-get install -y -qq ripgrep >/dev/null 2>&1 || echo "warning: could not install ripgrep; the ripgrep agreement tests will skip"; }

clean:
	rm -rf bin $(DEMO_INDEX)
