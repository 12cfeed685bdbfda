# authbench: two commands do all set-up on a fresh machine.
#   make demo   runs the main job on the local lab
#   make test   passes the tests (unit, then integration against real components)
# Tools are cached outside the repo, keyed by version: ~/.cache/authbench/tools/NAME-VERSION.

SHELL      := /bin/bash
GO         ?= go
BIN        := bin/authbench
VERSION    ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS    := -X github.com/authbench/authbench/pkg/cli.Version=$(VERSION)
# The demo's closed-loop load, stacks and lab platform; override on the
# command line: make demo N=5000 C=100 ITER=5 STACKS=2x,3x,3x-oauth PLATFORM=kube
N          ?= 2000
C          ?= 50
ITER       ?= 3
STACKS     ?= 2x,3x
PLATFORM   ?= processes
TEST_FLAGS ?=

.PHONY: all build lab demo test test-deps unit integration vet bench bench-soak clean

all: build

build:
	@echo "==> building $(BIN) ($(VERSION))"
	@$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/authbench

# lab installs everything the lab needs (apt packages, pinned Go tools, Keycloak).
lab: build
	@$(BIN) lab install

demo: lab
	@$(BIN) demo -n $(N) -c $(C) --iterations $(ITER) --stack $(STACKS) --platform $(PLATFORM)

vet:
	@echo "==> go vet"
	@$(GO) vet ./...
	@$(GO) vet -tags integration ./...

unit: build
	@echo "==> unit tests"
	@$(GO) test -count=1 $(TEST_FLAGS) ./...

# test-deps adds the optional tools the tests need (Chromium for the HTML report check).
test-deps: build
	@$(BIN) lab install --optional

integration: test-deps
	@echo "==> integration tests (real components)"
	@$(GO) test -count=1 -tags integration -timeout 40m -p 1 $(TEST_FLAGS) ./...

test: vet unit integration

bench: build
	@bench/compare.sh

# bench-soak: a ten-minute staged run through 60 s OIDC tokens (memory
# flat, no expired token sent); separate from bench for its length.
bench-soak: build
	@$(GO) run ./bench/soak_stages -bin $(BIN)

clean:
	rm -rf bin
