# PushBench: the two commands of the README, and the checks CI runs.
SWIFT ?= swift

PREFIX ?= /usr/local

.PHONY: deps build-deps run test ci-recipes instructions-gate rehearse-kubernetes dist check-dist lint format build install clean conformance-matrix flags-doc image image-check

## Install the Debian packages the tests, benchmarks and release need too (only the missing ones).
deps:
	@Scripts/install-deps.sh test

## Install only what building and running pushbench needs (only the missing ones).
build-deps:
	@Scripts/install-deps.sh build

## Build release and run the main job: a football final for 1,000 activities (107,000 pushes) against the embedded mock.
run: build-deps
	$(SWIFT) build -c release --product pushbench
	.build/release/pushbench run

## Check formatting and the CI recipes, then build (warnings are errors) and run every test.
test: deps lint ci-recipes
	$(SWIFT) test --disable-swift-testing

## Validate examples/ci/ against GitHub's and GitLab's published schemas, and deploy/compose/ against the
## Compose specification's (check-jsonschema, from PyPI).
ci-recipes: deps
	@test -x .build-venv/bin/check-jsonschema || { python3 -m venv .build-venv && .build-venv/bin/pip install -q check-jsonschema; }
	.build-venv/bin/check-jsonschema --builtin-schema vendor.github-workflows examples/ci/github-actions.yml
	.build-venv/bin/check-jsonschema --builtin-schema vendor.gitlab-ci examples/ci/gitlab-ci.yml
	.build-venv/bin/check-jsonschema --builtin-schema vendor.compose-spec deploy/compose/compose.yaml

## Count the sender's instructions per push under Valgrind and judge them against the committed baseline.
instructions-gate: deps
	$(SWIFT) build -c release --product pushbench
	Benchmarks/instructions-gate.sh

## As root: run deploy/kubernetes/ pod by pod in network namespaces and check its books (docs/kubernetes-rehearsal.md).
rehearse-kubernetes: deps
	$(SWIFT) build -c release --product pushbench
	Scripts/rehearse-kubernetes.sh

## Write docs/flags.md, every command and option in full, from the parser's description of them.
flags-doc:
	$(SWIFT) build --product pushbench
	python3 Scripts/flags-doc.py .build/debug/pushbench docs/flags.md

## Run the client conformance suite and write its matrix into docs/client-conformance.md.
conformance-matrix: deps
	PUSHBENCH_WRITE_CONFORMANCE_MATRIX=1 $(SWIFT) test --disable-swift-testing \
		--filter ConformanceSuiteTests/testEveryClientCaseGetsAppleDocumentedAnswer

## Fail on any formatting difference from .swift-format, and on a function in Sources/ over 60 lines.
lint:
	$(SWIFT) format lint --strict --recursive Package.swift Plugins Sources Tests
	python3 Scripts/function-length.py --limit 60 Sources

## Rewrite sources in the committed style.
format:
	$(SWIFT) format --in-place --recursive Package.swift Plugins Sources Tests

build: build-deps
	$(SWIFT) build -c release --product pushbench

## The release for machines without Swift: dist/pushbench-VERSION-linux-ARCH.tar.gz and dist/pushbench_VERSION_ARCH.deb, checked by lintian.
dist: deps
	Scripts/dist.sh
	lintian --info dist/pushbench_*.deb

## As root: install dist/'s .deb and tarball in a bare Debian 12 (debootstrap) and run pushbench there.
check-dist: dist
	Scripts/check-dist.sh

## Build release and install pushbench into $(PREFIX)/bin (PREFIX=~/.local for a user's own).
install: build
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 755 .build/release/pushbench "$(DESTDIR)$(PREFIX)/bin/pushbench"

## Build the container image (needs Docker or a compatible builder): pushbench:<version>.
image:
	docker build -t pushbench:$$(cat VERSION) .

## Without Docker: build as the image does and check its runtime stage has every library.
image-check: deps
	Scripts/check-image.sh

clean:
	rm -rf .build .build-image .build-dist .build-venv dist
