# grind — build, test, demo.
#   make build   every program in bin/, their man pages and shell completions in share/
#   make install the programs to $GOBIN, share/ to $(PREFIX)/share
#   make demo    run the main pipeline on the data grind ships (and on ../shared/data when present)
#   make test    vet, format check and all tests
#   make test-simd  every test again, built as make builds the programs (GOEXPERIMENT=simd)
#   make bench   benchmarks with allocation counts
#   make fuzz    run every fuzz target for FUZZTIME each

GO       ?= go
BIN      := $(CURDIR)/bin
FUZZTIME ?= 10s
SHARED   ?= $(CURDIR)/../shared/data
export PATH := $(BIN):$(PATH)

# make install puts the programs where go install does and the man pages
# and completions in the share/ beside that bin/ (~/go/share), where man
# finds them for a bin/ on PATH.
GOBIN_DIR := $(or $(shell $(GO) env GOBIN),$(firstword $(subst :, ,$(shell $(GO) env GOPATH)))/bin)
PREFIX    ?= $(abspath $(GOBIN_DIR)/..)

.PHONY: all build docs install test test-simd bench fuzz demo clean

all: build

# urfave_cli_no_docs leaves out urfave/cli's man-page and Markdown
# writers, which grind never calls and whose markdown parser's package
# init cost every process start 0.4 ms (the shell loop starts two per
# iteration).
TAGS     ?= urfave_cli_no_docs

# The commit every binary was built from, for --version and run.json. Go
# stamps it itself (runtime/debug.ReadBuildInfo) in a git clone, which is
# what a plain go install ./cmd/... gets; a git worktree (whose .git is a
# file) or GOFLAGS=-buildvcs=false gets none, so make passes it too, used
# only when Go's is missing.
BUILDINFO := github.com/grind-nlp/grind/internal/buildinfo
# The version Go would give this commit (its pseudo-version), +dirty when
# the checkout has uncommitted changes.
PSEUDO    := $(shell TZ=UTC0 git log -1 --format=v0.0.0-%cd-%h --abbrev=12 --date=format-local:%Y%m%d%H%M%S 2>/dev/null)$(if $(shell git status --porcelain 2>/dev/null),+dirty)
STAMP     := -X $(BUILDINFO).version=$(PSEUDO) \
             -X $(BUILDINFO).commit=$(shell git rev-parse HEAD 2>/dev/null) \
             -X $(BUILDINFO).commitTime=$(shell TZ=UTC0 git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ 2>/dev/null) \
             -X $(BUILDINFO).modified=$(if $(shell git status --porcelain 2>/dev/null),true,false)

# The DMV's and the CCM's E-steps run 8 sentences at a time in AVX-512 registers when
# built with Go's simd experiment (GOEXPERIMENT=simd: Go ≥ 1.26 on amd64,
# internal/vec8), on the scalar chart otherwise and on a CPU
# without AVX-512; the HMM's forward–backward likewise runs over its
# states 8 at a time (stages/hmm/fbvec.go). make builds with it where the toolchain has it (found
# by asking go for the experiment's package; make SIMD= builds without);
# a plain go build or go install ./cmd/... does not. --version says which
# kernel a binary runs.
ifeq ($(origin SIMD),undefined)
SIMD := $(shell [ "$$($(GO) env GOARCH)" = amd64 ] && GOEXPERIMENT=simd $(GO) list simd/archsimd >/dev/null 2>&1 && echo simd)
endif
EXPERIMENT := $(if $(SIMD),GOEXPERIMENT=$(SIMD))

build: docs
	@mkdir -p $(BIN)
	$(EXPERIMENT) CGO_ENABLED=0 $(GO) build -tags '$(TAGS)' -trimpath -ldflags='-s -w $(STAMP)' -o $(BIN)/ ./cmd/...

# Man pages and bash, zsh and fish completions, from the programs' flags
# (internal/gendocs), in share/ beside bin/, where man finds them for a
# bin/ on PATH (README, "Install", says how each shell finds its own).
docs:
	rm -rf share
	$(GO) run ./internal/gendocs -o share

install: docs
	$(EXPERIMENT) CGO_ENABLED=0 $(GO) install -tags '$(TAGS)' -trimpath -ldflags='$(STAMP)' ./cmd/...
	mkdir -p $(PREFIX)/share
	cp -R share/. $(PREFIX)/share/

test:
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test ./...

# Every test again, built with the experiment as make build builds the
# programs (the lanes and the HMM's states in AVX-512 registers, on a CPU
# that has them); make test has tested them without.
test-simd:
ifeq ($(SIMD),)
	@echo "test-simd: this toolchain or machine has no GOEXPERIMENT=simd; make test covers the build there is"
else
	$(EXPERIMENT) $(GO) vet ./...
	$(EXPERIMENT) $(GO) test ./...
endif

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Every FuzzXxx function in the module, FUZZTIME each (go test takes one fuzz target at a time).
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
	  for f in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/^func //'); do \
	    echo "fuzz $$pkg $$f"; \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

demo: build
	@sh examples/demo.sh "$(SHARED)"

clean:
	rm -rf $(BIN) share
