# PushBench: the two commands of the README, and the checks CI runs.
SWIFT ?= swift

PREFIX ?= /usr/local

.PHONY: deps run test instructions-gate rehearse-kubernetes lint format build install clean conformance-matrix image image-check

## Install the Debian packages PushBench needs (only the missing ones).
deps:
	@Scripts/install-deps.sh

## Build release and run the main job: a football final for 1,000 activities (107,000 pushes) against the embedded mock.
run: deps
	$(SWIFT) build -c release --product pushbench
	.build/release/pushbench run

## Check formatting, then build (warnings are errors) and run every test.
test: deps lint
	$(SWIFT) test --disable-swift-testing

## Count the sender's instructions per push under Valgrind and judge them against the committed baseline.
instructions-gate: deps
	$(SWIFT) build -c release --product pushbench
	Benchmarks/instructions-gate.sh

## As root: run deploy/kubernetes/ pod by pod in network namespaces and check its books (docs/kubernetes-rehearsal.md).
rehearse-kubernetes: deps
	$(SWIFT) build -c release --product pushbench
	Scripts/rehearse-kubernetes.sh

## Run the client conformance suite and write its matrix into docs/client-conformance.md.
conformance-matrix: deps
	PUSHBENCH_WRITE_CONFORMANCE_MATRIX=1 $(SWIFT) test --disable-swift-testing \
		--filter ConformanceSuiteTests/testEveryClientCaseGetsAppleDocumentedAnswer

## Fail on any formatting difference from .swift-format.
lint:
	$(SWIFT) format lint --strict --recursive Package.swift Plugins Sources Tests

## Rewrite sources in the committed style.
format:
	$(SWIFT) format --in-place --recursive Package.swift Plugins Sources Tests

build: deps
	$(SWIFT) build -c release --product pushbench

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
	rm -rf .build .build-image
