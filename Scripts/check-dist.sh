#!/usr/bin/env bash
# Proves the release works where Swift is not installed: makes a minimal Debian 12 with
# debootstrap in a folder of its own (from the mirror the machine's apt sources name; no Swift,
# no -dev packages), installs dist/'s .deb there with `apt-get install ./pushbench_….deb` so apt
# resolves its Depends, and runs inside it: `pushbench run --requests 20000` (its books must
# balance), `pushbench profile -- pushbench run …` (the profile contract), `pushbench budget`,
# `man pushbench` and the bash completion. Then it removes the package and everything it pulled
# in, installs only the libraries the tarball's INSTALL.txt names, and does the same from the
# tarball. Each step is bounded; the folder is removed at the end, also on Ctrl-C.
#
# Usage: Scripts/check-dist.sh   (after Scripts/dist.sh; needs root, debootstrap and the network
#        to Debian's mirror)
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '%s\n' "$*"; }
fail() { say "check-dist: FAILED: $*" >&2; exit 1; }
if [[ $(id -u) != 0 ]]; then
  say "check-dist: needs root (debootstrap, chroot and mounts); run it as root or with sudo" >&2
  exit 1
fi
command -v debootstrap >/dev/null || fail "debootstrap is missing (apt-get install debootstrap)"
deb=$(ls dist/pushbench_*.deb 2>/dev/null | head -n 1)
tarball=$(ls dist/pushbench-*-linux-*.tar.gz 2>/dev/null | head -n 1)
[[ -n $deb && -n $tarball ]] || fail "no dist/ to check: run Scripts/dist.sh (make dist) first"

mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
[[ -n $mirror ]] || mirror=$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list 2>/dev/null)
[[ -n $mirror ]] || fail "no Debian mirror in the machine's apt sources"

root=$(mktemp -d /var/tmp/pushbench-bare-debian.XXXXXX)
cleanup() {
  for mount in proc dev/pts dev; do
    mountpoint -q "$root/$mount" 2>/dev/null && umount -l "$root/$mount"
  done
  rm -rf --one-file-system "$root"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
started=$SECONDS

step() { # step SECONDS TITLE COMMAND...: runs COMMAND inside the Debian, bounded, and says how it went
  local limit=$1 title=$2 began=$SECONDS
  shift 2
  if ! timeout "$limit" chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
      LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@" >"$root/tmp/step.log" 2>&1; then
    tail -n 30 "$root/tmp/step.log" >&2
    fail "$title"
  fi
  say "ok   $title ($((SECONDS - began)) s)"
}

say "== a bare Debian 12 from $mirror (debootstrap --variant=minbase bookworm)"
timeout 900 debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
  { tail -n 20 "$root.debootstrap.log" >&2; rm -f "$root.debootstrap.log"; fail "debootstrap"; }
rm -f "$root.debootstrap.log"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
cp /etc/resolv.conf "$root/etc/resolv.conf"
say "made in $((SECONDS - started)) s: $(du -sh --one-file-system "$root" | cut -f1);" \
  "swift: $(chroot "$root" sh -c 'command -v swift || echo none');" \
  "-dev packages: $(chroot "$root" dpkg-query -W -f '${Package}\n' | grep -c -- '-dev$' || true)"

# The checks, for a pushbench at $1 (the package's or the tarball's).
exercise() {
  local bin=$1 label=$2
  say "     $bin --version: $(chroot "$root" "$bin" --version | head -n 1)"
  step 300 "[$label] pushbench run --requests 20000" \
    "$bin" run --requests 20000 --reports-dir "/tmp/$label-run"
  python3 - "$root/tmp/$label-run" <<'EOF' || fail "[$label] the run's books"
import glob, json, sys
summary = json.load(open(glob.glob(sys.argv[1] + "/*/summary.json")[0]))
counts = summary["counts"]
assert summary["accounting_balanced"] and counts["sent"] == 20000, counts
assert counts["sent"] == counts["succeeded"] + counts["rejected"] + counts["errored"] + counts["timed_out"]
print(f"     sent {counts['sent']} = succeeded {counts['succeeded']} + rejected {counts['rejected']}"
      f" + errored {counts['errored']} + timed out {counts['timed_out']}: balanced")
EOF
  step 300 "[$label] pushbench profile --requests 20000 -- pushbench run … (the profile contract)" \
    "$bin" profile --requests 20000 --reports-dir "/tmp/$label-profile" -- sh -c \
    "$bin"' run --endpoint "$PUSHBENCH_APNS_URL" --ca-file "$PUSHBENCH_CA_FILE" --auth-key "$PUSHBENCH_AUTH_KEY" --key-id "$PUSHBENCH_KEY_ID" --team-id "$PUSHBENCH_TEAM_ID" --requests 20000 --no-budget'
  python3 - "$root/tmp/$label-profile" <<'EOF' || fail "[$label] the profile's books"
import glob, json, sys
summary = json.load(open(glob.glob(sys.argv[1] + "/*/summary.json")[0]))
sender = summary["sender"]
assert sender["pushes"] == 20000 and sender["accepted"] == 20000, sender
print(f"     the sender's {sender['pushes']} pushes reached the mock, {sender['accepted']} accepted;"
      f" its CPU {sender['cpu_us_per_push']:.1f} µs a push")
EOF
  step 120 "[$label] pushbench budget --activities 1000" "$bin" budget --activities 1000 --reports-dir "/tmp/$label-budget"
}

say "== the Debian package: apt-get install ./$(basename "$deb")"
cp "$deb" "$root/tmp/"
installed() { chroot "$root" dpkg-query -W -f '${Package}\n' | sort; }
step 300 "apt-get update" apt-get update -qq
step 300 "apt-get install man-db" apt-get install -y -qq man-db
before=$(installed)
step 600 "apt-get install ./$(basename "$deb")" sh -c "cd /tmp && apt-get install -y -qq ./$(basename "$deb")"
say "     apt resolved its Depends to: $(comm -13 <(echo "$before") <(installed) | grep -v '^pushbench$' | tr '\n' ' ')"
exercise /usr/bin/pushbench deb
step 60 "man pushbench" sh -c 'MANPAGER=cat man pushbench | grep -q "pushbench run"'
say "     $(chroot "$root" env MANPAGER=cat MANWIDTH=100 man pushbench 2>/dev/null | sed -n '/^NAME/{n;p;q}' | sed 's/^ *//')"
step 60 "bash completion" bash -c '. /usr/share/bash-completion/completions/pushbench && complete -p pushbench'

say "== the tarball: the package purged, only INSTALL.txt's libraries installed"
step 300 "apt-get purge pushbench && apt-get autoremove" sh -c \
  'apt-get purge -y -qq pushbench && apt-get autoremove -y -qq --purge'
libraries=$(tar -xzOf "$tarball" --wildcards '*/INSTALL.txt' | sed -n 's/^ *apt-get install //p' | head -n 1)
[[ -n $libraries ]] || fail "the tarball's INSTALL.txt names no libraries"
step 300 "apt-get install $libraries" sh -c "apt-get install -y -qq $libraries"
tar -xzf "$tarball" -C "$root/opt"
bin=/opt/$(basename "$tarball" .tar.gz)/bin/pushbench
step 30 "ldd $bin: every library found" sh -c "! ldd $bin | grep 'not found'"
exercise "$bin" tarball
step 60 "man -l …/share/man/man1/pushbench.1" sh -c \
  "MANPAGER=cat man -l /opt/$(basename "$tarball" .tar.gz)/share/man/man1/pushbench.1 | grep -q 'pushbench run'"
say "check-dist passed in $((SECONDS - started)) s"
