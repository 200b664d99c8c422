#!/usr/bin/env bash
# Rehearses deploy/kubernetes/ pod by pod on this machine, as Kubernetes would run it: each pod a
# network namespace with its own address on a bridge of its own, the Services' names resolving in
# every pod, the Secret, ConfigMap and results volume bind-mounted at the manifest's mountPaths,
# the Job's env and args as written (scaled down by one documented override), Prometheus scraping
# the pods with deploy/prometheus/'s job, then `pushbench merge` checked against the mock's books;
# and again with one pod killed part-way. docs/kubernetes-rehearsal.md says what it checks.
#
# Usage: Scripts/rehearse-kubernetes.sh [--keep]    (PUSHBENCH=path picks the binary; default
#        .build/release/pushbench, built if missing). Needs root; bounded to 5 minutes; removes
#        every namespace, link, mount and file it made, also when interrupted.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $(id -u) != 0 ]]; then
  echo "rehearse-kubernetes: needs root (network and mount namespaces); run it as root or with sudo" >&2
  exit 1
fi
for tool in ip unshare dnsmasq prometheus curl openssl; do
  command -v "$tool" >/dev/null || { echo "rehearse-kubernetes: $tool is missing (Scripts/install-deps.sh installs it)" >&2; exit 1; }
done
/usr/bin/python3 -c 'import yaml' 2>/dev/null || { echo "rehearse-kubernetes: python3-yaml is missing" >&2; exit 1; }
export PUSHBENCH=${PUSHBENCH:-.build/release/pushbench}
[[ -x $PUSHBENCH ]] || swift build -c release --product pushbench
exec timeout --signal=INT --kill-after=30 300 /usr/bin/python3 Scripts/kubernetes_rehearsal.py "$@"
