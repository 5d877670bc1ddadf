# voxlab: `make run` and `make test` set up a fresh Debian 12 machine.
SHELL := /bin/bash
GO    ?= go
BIN   := bin/voxlab
DEMO  ?= demo-data
# Debian packages the build and tests need (cgo: libhdf5, OpenGL/X11 for
# Fyne, OpenBLAS linked statically for distance's and svd's products,
# processing/internal/hostblas; Xvfb for the tests that open real
# windows, and ImageMagick's import to grab their screen; Debian's HDF5
# filter plugins (LZ4, BZip2, Blosc, LZF with
# the liblzf it leaves to its host, ZFP) and liblz4 for voxlab's own
# bitshuffle decoder, for compressed detector files; libblosc for Zarr's
# Blosc chunks). voxlab decodes gzip, BZip2, LZF, LZ4, Blosc, Zstd and
# bitshuffle itself, bounded by the chunk's size, over zlib, libbz2,
# liblzf, liblz4, libblosc and libzstd (processing/volume/h5/codecs.c).
# libfftw3-dev: FFTW's single-precision transforms for gridrec
# (processing/reconstruct/internal/fftw).
APT_PKGS := libhdf5-dev libblosc-dev libgl1-mesa-dev xorg-dev pkg-config libopenblas-dev xvfb xauth imagemagick \
	hdf5-filter-plugin hdf5-filter-plugin-blosc-serial hdf5-plugin-lzf liblzf1 hdf5-filter-plugin-zfp-serial liblz4-dev \
	libzstd-dev zlib1g-dev libbz2-dev liblzf-dev libfftw3-dev
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Debian packages of the one-node SLURM that `make test-cluster` runs.
SLURM_PKGS := slurmctld slurmd munge slurm-client
export CGO_ENABLED := 1

.PHONY: all deps deps-slurm deps-bench build build-cuda run test fuzz bench bench-scale bench-memory cuda-check gpu-check package test-cluster test-cluster-optional clean

all: build

# deps installs only the packages that are missing, so it is quick when
# everything is already there.
# apt_install installs the Debian packages of $(1) that are missing.
define apt_install
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi
endef

deps:
	$(call apt_install,$(APT_PKGS))

build: deps
	$(GO) build -o $(BIN) ./app

# The CUDA variant links gorgonia.org/cu; it needs the toolkit to build and
# a GPU to run (without one it hands over to the CPU binary beside it, so
# both are built).
build-cuda: deps
	@command -v nvcc >/dev/null && [ -e /usr/include/cuda.h ] || scripts/install-cuda.sh
	$(GO) build -o $(BIN) ./app
	$(GO) build -tags cuda -o $(BIN)-cuda ./app

run: build
	@[ -e $(DEMO)/.complete ] || $(BIN) demo $(DEMO)
	@if nvidia-smi -L 2>/dev/null | grep -q '^GPU' && command -v nvcc >/dev/null; then \
	  $(MAKE) --no-print-directory build-cuda && exe=$(BIN)-cuda; else exe=$(BIN); fi; \
	if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ]; then \
	  $$exe gui --demo $(DEMO); \
	else \
	  echo "No display: running the headless demo instead of the viewer."; \
	  $$exe demo $(DEMO) --headless; \
	fi

# test is scripts/test.sh (its comment says how): go vet, every
# package's tests once as built and once under -race -short, side by side
# under X displays of their own, then the pipelines on a real one-node
# SLURM (test-cluster-optional) beside the race pass's tail. PKGS narrows
# it (make test PKGS=./viewer/...); CI runs every package.
# APP_RACE_APART: app's heaviest command-line tests, which the race pass
# runs in a process of their own beside app's other tests.
APP_RACE_APART := ^(TestTrainResume|TestTrainAugments|TestDezingTasksMerge|TestDistanceTasksMerge|TestDetectTasksMerge|TestRerunRemovesKilledRunsParts|TestClassifyCommand|TestDemoHeadlessRunsThePipelines)$$
test: deps
	@GO='$(GO)' PKGS='$(PKGS)' APP_RACE_APART='$(APP_RACE_APART)' scripts/test.sh

# fuzz runs every fuzz target of the repository (each `func Fuzz...` of
# a _test.go file, found anew each time) for FUZZTIME each, one after the
# other, and stops at the first that fails (its input is then under the
# package's testdata/fuzz). Go's fuzzer is coverage-guided over Go code
# only: targets that call C (processing/volume/h5's FuzzChunkRead, which
# reads mutated chunks through libhdf5's filter callbacks) mutate their
# seeds blind. A new input the fuzzer finds interesting is minimised for
# up to FUZZMINTIME, during which no executions are counted.
FUZZTIME    ?= 30s
FUZZMINTIME ?= 10s
fuzz: deps
	@set -e; for f in $$(grep -rl --include='*_test.go' '^func Fuzz' . | sort); do \
	  for t in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$f); do \
	    echo "== $$(dirname $$f) $$t for $(FUZZTIME)"; \
	    $(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINTIME) $$(dirname $$f); \
	  done; \
	done

bench: deps
	$(GO) test -run '^$$' -bench . -benchmem -timeout 60m ./...

# bench-scale runs every pipeline's command at the field's sizes
# (scripts/bench-scale.sh: generated data, /usr/bin/time -v, peak RSS
# against the plan, outputs checked against NumPy/SciPy references).
# SCALE=1 is the field's size (about 30 GB of temporary files, an hour);
# SCALE=0.05 takes a few minutes.
SCALE ?= 1
BENCH_PKGS := python3-numpy python3-scipy python3-h5py python3-tifffile time
deps-bench:
	$(call apt_install,$(BENCH_PKGS))

bench-scale: build deps-bench
	scripts/bench-scale.sh --scale $(SCALE)

# bench-memory runs dezinging with --host-memory 256MiB on the four
# compressed layouts of issue 23 (a one-chunk Zarr, gzip HDF5 of
# 400-frame chunks, Blosc and zstd Zarr of deep and cubic chunks; 3 GB
# written by zarr-python and h5py) under /usr/bin/time -v: peak RSS
# against the plan, outputs against SciPy (scripts/bench-memory.sh).
bench-memory: build deps-bench
	$(call apt_install,python3-zarr python3-numcodecs)
	scripts/bench-memory.sh

# cuda-check: what can be checked of the CUDA build without a GPU: the
# committed PTX is what the .cu sources compile to, vet and build with the
# tag, and the no-GPU hand-over (scripts/cuda-fallback-test.sh).
cuda-check: deps
	@command -v nvcc >/dev/null && [ -e /usr/include/cuda.h ] || scripts/install-cuda.sh
	scripts/build-ptx.sh --check
	$(GO) vet -tags cuda ./...
	$(GO) build -tags cuda ./...
	scripts/cuda-fallback-test.sh

# gpu-check: builds the CUDA test binaries into bin/gpu-check and, where a
# GPU answers, runs them (CPU-vs-CUDA parity, transfer figures). On a GPU
# machine without Go, with this checkout and bin/gpu-check copied over:
# scripts/gpu-check.sh run
gpu-check:
	@command -v nvcc >/dev/null && [ -e /usr/include/cuda.h ] || scripts/install-cuda.sh
	scripts/gpu-check.sh

# package: a Linux tar.gz holding the binary, the .desktop file and the
# icon, laid out by `fyne package` (fyne.io/tools) from FyneApp.toml, in a
# staging folder outside the module with the built binary (the tool wants
# a Go file beside FyneApp.toml even when it only packages: main.go is
# copied for that, never built). It runs with `go run …@version` so that its own dependencies
# (it wants a newer Fyne) stay out of voxlab's go.mod; the module cache is
# tried as a proxy first, so after one online run it also works offline.
FYNE_TOOL := fyne.io/tools/cmd/fyne@v1.7.4
VERSION   := $(shell sed -n 's/^ *Version *= *"\(.*\)"/\1/p' FyneApp.toml)
PKG       := dist/voxlab-$(VERSION)-linux-$(shell $(GO) env GOARCH).tar.gz
package: deps
	@set -e; stage=$$(mktemp -d); trap 'rm -rf "$$stage"' EXIT; \
	mkdir -p "$$stage/resources" dist; \
	$(GO) build -trimpath -ldflags "-s -w" -o "$$stage/voxlab" ./app; \
	cp FyneApp.toml "$$stage/"; cp resources/icon.png "$$stage/resources/"; \
	cp app/main.go "$$stage/"; \
	cache="file://$$($(GO) env GOMODCACHE)/cache/download,$$($(GO) env GOPROXY)"; \
	(cd "$$stage" && GOPROXY="$$cache" $(GO) run $(FYNE_TOOL) package --os linux --exe voxlab --release); \
	xz -dc "$$stage/voxlab.tar.xz" | gzip -9 > $(PKG)
	@tar tzf $(PKG) | grep -q 'usr/local/bin/voxlab$$' && tar tzf $(PKG) | grep -q '\.desktop$$' && \
	  tar tzf $(PKG) | grep -q 'pixmaps/.*\.png$$' || { echo "$(PKG) lacks the binary, .desktop or icon"; exit 1; }
	@echo "wrote $(PKG):"; tar tzf $(PKG) | grep -v '/$$' | sed 's/^/  /'

# deps-slurm installs the SLURM packages that are missing.
deps-slurm:
	$(call apt_install,$(SLURM_PKGS))

# test-cluster submits every demo pipeline to a real one-node SLURM on
# loopback (scripts/slurm-local.sh), checks the merged outputs against
# single-process runs, and stops the daemons (scripts/test-cluster.sh).
test-cluster: build deps-slurm
	scripts/test-cluster.sh

# test-cluster-optional is test-cluster where it can run: as root or with
# passwordless sudo (the packages are installed when missing); elsewhere
# the script prints SKIPPED with the reason.
test-cluster-optional:
	@if [ "$$(id -u)" = 0 ] || sudo -n true 2>/dev/null; then $(MAKE) --no-print-directory deps-slurm; fi
	scripts/test-cluster.sh --optional

clean:
	rm -rf bin dist
