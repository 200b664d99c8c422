#!/usr/bin/env bash
# Installs the Debian packages PushBench needs, if any is missing.
#
#   Scripts/install-deps.sh build   what building and running pushbench needs (make run, make build,
#                                   make install, make dist): nothing else
#   Scripts/install-deps.sh test    that, and what the tests, the benchmarks and the optional flags
#                                   need (make test and CI); the default
#
# To build and run:
#   libcurl4-openssl-dev  HTTP/2 client (libcurl multi, nghttp2 inside)
#   libssl-dev            libcrypto: ES256 signing and verification, certificates; libssl: TLS
#   libnghttp2-dev        HTTP/2 framing for the nghttp2 transport (batched TLS writes)
#   pkg-config            how the build finds the three above
# To test, benchmark, package, and for the optional flags:
#   libjemalloc-dev       the allocator the sender core is measured with (against glibc's)
#   nghttp2-client        h2load, the reference HTTP/2 load generator we compare against
#   curl, openssl         independent clients the tests check the mock and our signatures with
#   time, procps          /usr/bin/time and pgrep: what profile's CPU is checked against, and that it
#                         leaves no process of a sender behind
#   python3-h2            a third HTTP/2 client library for the mock's tests (host without :authority)
#   python3-httpx, python3-cryptography, nodejs, default-jdk-headless
#                         the Python, Node and Java senders with Apple's host hard-coded, profiled under
#                         --as-apple (the Go one builds with golang-go)
#   python3-venv          the virtual environments the client conformance suite installs PyPI's APNs
#                         clients into, and the CI recipes' schema check (check-jsonschema)
#   chromium              renders the HTML reports headless, as a reader sees them (Scripts/render-report.sh)
#   prometheus            scrapes a run's --metrics-port in the tests and runs the Grafana dashboard's queries
#   valgrind, binutils    count instructions per push (hotpath --instructions: callgrind, on a copy made by strip)
#   linux-perf            samples call stacks for --perf (run, profile): the flame graph and the CPU's shares
#   golang-go             a Go program for --perf's test of what perf names in a Go sender, and the
#                         Go Netmera-shaped service of the lifecycle tests and lifecycle-kickoff.sh
#   nginx-light           a C HTTP/2 server that answers before reading a body, then resets the stream with
#                         NO_ERROR: the transports' test of that, and h2load-compare.sh's target
#   iproute2, dnsmasq-base, python3-yaml
#                         the Kubernetes rehearsal (make rehearse-kubernetes): network namespaces and their
#                         links, the cluster DNS for the headless Service, and reading the manifests
#   dpkg-dev, lintian, debootstrap, man-db
#                         the release (make dist, make check-dist): dpkg-shlibdeps computes the .deb's
#                         Depends, lintian checks it, debootstrap makes the bare Debian it is tried on,
#                         man renders the man page
set -euo pipefail

build=(libcurl4-openssl-dev libssl-dev libnghttp2-dev pkg-config)
test=(libjemalloc-dev nghttp2-client curl openssl time procps python3-h2 python3-httpx python3-cryptography
  nodejs default-jdk-headless python3-venv chromium prometheus
  valgrind binutils linux-perf golang-go nginx-light iproute2 dnsmasq-base python3-yaml dpkg-dev lintian
  debootstrap man-db)
case ${1:-test} in
  build) packages=("${build[@]}") ;;
  test) packages=("${build[@]}" "${test[@]}") ;;
  *) echo "usage: Scripts/install-deps.sh [build|test]" >&2; exit 64 ;;
esac
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
((${#missing[@]} == 0)) && exit 0

echo "installing: ${missing[*]}" >&2
sudo=""
if [[ $(id -u) != 0 ]]; then
  command -v sudo >/dev/null || { echo "error: need root (or sudo) to install ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
