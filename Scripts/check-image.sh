#!/usr/bin/env bash
# Checks, without Docker, what the Dockerfile's runtime stage must hold: builds pushbench the
# way its build stage does (the command between its build-command markers, into .build-image),
# lists the shared libraries the binary loads (ldd), finds the Debian package of each (dpkg -S)
# and says whether the runtime stage has it: installed by name (between the runtime-packages
# markers), pulled in as a dependency of one of those, or part of every Debian (the packages of
# Priority: required and what they depend on, which bookworm-slim holds). Exits 1 when a library would be missing, or when the
# binary still loads the Swift runtime.
#
# Usage: Scripts/check-image.sh
set -euo pipefail
cd "$(dirname "$0")/.."

build=$(sed -n '/BEGIN build-command/,/END build-command/p' Dockerfile | grep '^RUN ' | sed 's/^RUN //')
[[ $build == "swift build "* ]] || { echo "error: no build command between the Dockerfile's markers" >&2; exit 1; }
echo "building as the Dockerfile does: $build --build-path .build-image" >&2
$build --build-path .build-image >&2
binary=$(${build/swift build/swift build --show-bin-path} --build-path .build-image 2>/dev/null)/pushbench

runtime=$(sed -n '/BEGIN runtime-packages/,/END runtime-packages/p' Dockerfile | grep -o 'no-install-recommends [^&]*' \
    | sed 's/no-install-recommends //')
[[ -n $runtime ]] || { echo "error: no packages between the Dockerfile's runtime markers" >&2; exit 1; }

# The packages an installation of $@ brings: them and their dependencies, from dpkg's records.
closure() {
    local -A seen=()
    local queue=("$@") package
    while ((${#queue[@]})); do
        package=${queue[0]}
        queue=("${queue[@]:1}")
        [[ -n ${seen[$package]:-} ]] && continue
        seen[$package]=1
        for dependency in $(dpkg-query -W -f='${Depends} ${Pre-Depends}\n' "$package" 2>/dev/null \
            | tr ',|' '\n\n' | sed 's/([^)]*)//g; s/:any//g' | awk '{print $1}' | sort -u); do
            [[ -n ${seen[$dependency]:-} ]] || queue+=("$dependency")
        done
    done
    printf '%s\n' "${!seen[@]}"
}
mapfile -t brought < <(closure $runtime)
mapfile -t required < <(closure $(dpkg-query -W -f='${Package} ${Priority}\n' | awk '$2 == "required" {print $1}'))

status=0
printf '%-28s %-24s %s\n' library package "in the runtime stage because"
while read -r library path; do
    package=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1) || true
    [[ -n $package ]] || package=$(dpkg -S "$path" 2>/dev/null | head -1 | cut -d: -f1) || true
    if [[ $library == libswift* || $library == libFoundation* || $library == libdispatch* ]]; then
        why="MISSING: the Swift runtime should be linked statically"
        status=1
    elif [[ " $runtime " == *" $package "* ]]; then
        why="installed by name"
    elif printf '%s\n' "${required[@]}" | grep -qx "$package"; then
        why="in every Debian (required, or needed by it)"
    elif printf '%s\n' "${brought[@]}" | grep -qx "$package"; then
        why="a dependency of the packages installed"
    else
        why="MISSING"
        status=1
    fi
    printf '%-28s %-24s %s\n' "$library" "${package:-?}" "$why"
done < <(ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3} $1 ~ /^\// {print $1, $1}')
exit $status
