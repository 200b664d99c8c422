#!/usr/bin/env bash
# Builds PushBench for machines without Swift (docs/install.md): into dist/,
#   pushbench-VERSION-linux-ARCH.tar.gz   bin/pushbench, share/man/man1/pushbench.1, completions for bash,
#                                         zsh and fish, README, LICENSE, CHANGELOG and examples/
#   pushbench_VERSION_DEBARCH.deb         the same laid out as Debian does, Depends from dpkg-shlibdeps
# The binary links the Swift standard library and Foundation statically (--static-swift-stdlib),
# so it needs only Debian's shared libraries; its debug information is stripped, its symbol table
# kept (perf and `hotpath --instructions` still name PushBench's functions). The man page and the
# completions come from the command definitions themselves (swift-argument-parser's generate-manual
# plugin and --generate-completion-script), so they cannot drift from --help.
#
# Usage: Scripts/dist.sh          (needs Swift and the build packages; dpkg-dev for the .deb)
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(cat VERSION)
arch=$(uname -m)
debarch=$(dpkg --print-architecture)
build=.build-dist
stage=$build/stage
rm -rf "$stage" dist
mkdir -p "$stage" dist

echo "building pushbench $version with the Swift runtime linked statically" >&2
swift build -c release --product pushbench --static-swift-stdlib --build-path "$build" >&2
binary=$(swift build -c release --static-swift-stdlib --build-path "$build" --show-bin-path)/pushbench
# One tree, laid out as a prefix (the tarball) and as Debian wants it (the package).
tree=$stage/pushbench-$version-linux-$arch
install -D -m 755 "$binary" "$tree/bin/pushbench"
strip --strip-debug "$tree/bin/pushbench"

# The plugin builds the package's products in release its own way (Swift linked dynamically), so
# in the usual build folder, which `make run` shares, not in the static one.
echo "generating the man page from the command definitions" >&2
rm -rf .build/plugins/outputs/*/pushbench/destination/GenerateManual
swift package plugin generate-manual --section 1 --authors "PushBench contributors" >&2
generated=$(find .build/plugins -name pushbench.1 -path '*GenerateManual*' | head -n 1)
[[ -s $generated ]] || { echo "error: generate-manual wrote no pushbench.1" >&2; exit 1; }
# generate-manual keeps the help's blank lines between paragraphs, which mdoc reads as errors
# (groff: "empty input line"); .Pp is mdoc's paragraph break.
manual=$stage/pushbench.1
sed 's/^$/.Pp/' "$generated" >"$manual"
install -D -m 644 "$manual" "$tree/share/man/man1/pushbench.1"
"$tree/bin/pushbench" --generate-completion-script bash >"$stage/bash"
"$tree/bin/pushbench" --generate-completion-script zsh >"$stage/zsh"
"$tree/bin/pushbench" --generate-completion-script fish >"$stage/fish"
install -D -m 644 "$stage/bash" "$tree/share/bash-completion/completions/pushbench"
install -D -m 644 "$stage/zsh" "$tree/share/zsh/site-functions/_pushbench"
install -D -m 644 "$stage/fish" "$tree/share/fish/vendor_completions.d/pushbench.fish"
install -m 644 README.md LICENSE CHANGELOG.md "$tree/"
cp -r examples "$tree/examples"
install -m 644 Scripts/dist-README.txt "$tree/INSTALL.txt"
tar -C "$stage" --owner=0 --group=0 --numeric-owner -czf "dist/pushbench-$version-linux-$arch.tar.gz" \
    "pushbench-$version-linux-$arch"

# The Debian package: /usr/bin, the completions where bash-completion, zsh and fish look, the man
# page in section 1, the copyright and changelog where Debian policy puts them.
package=$stage/deb
install -D -m 755 "$tree/bin/pushbench" "$package/usr/bin/pushbench"
install -D -m 644 "$manual" "$package/usr/share/man/man1/pushbench.1"
gzip -9n "$package/usr/share/man/man1/pushbench.1"
# A completion is sourced, not run: Debian wants no #! line in it.
sed '1{/^#!/d}' "$stage/bash" >"$stage/bash-sourced"
install -D -m 644 "$stage/bash-sourced" "$package/usr/share/bash-completion/completions/pushbench"
install -D -m 644 "$stage/zsh" "$package/usr/share/zsh/vendor-completions/_pushbench"
install -D -m 644 "$stage/fish" "$package/usr/share/fish/vendor_completions.d/pushbench.fish"
docs=$package/usr/share/doc/pushbench
install -D -m 644 Scripts/debian/copyright "$docs/copyright"
install -D -m 644 Scripts/debian/lintian-overrides "$package/usr/share/lintian/overrides/pushbench"
install -m 644 README.md "$docs/README.md"
cp -r examples "$docs/examples"
chmod 644 "$docs"/examples/*
# A native package's changelog, from CHANGELOG.md's first entry.
{
  echo "pushbench ($version) unstable; urgency=medium"
  echo
  sed -n '/^## /,$p' CHANGELOG.md | sed '1d;/^## /,$d' | sed -n 's/^- \(.*\)/  * \1/p' | fold -s -w 72 \
      | sed 's/^\([^ ]\)/    \1/'
  echo
  echo " -- PushBench contributors <pushbench@example.org>  $(date -R -d "$(git log -1 --format=%cI 2>/dev/null || date -R)")"
} | gzip -9n >"$docs/changelog.gz"

# dpkg-shlibdeps reads the binary's NEEDED libraries and the shlibs of the packages that ship them.
work=$stage/shlibdeps
mkdir -p "$work/debian"
printf 'Source: pushbench\n\nPackage: pushbench\nArchitecture: any\n' >"$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O -e "$OLDPWD/$package/usr/bin/pushbench" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[[ -n $depends ]] || { echo "error: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
size=$(du -k -s "$package" | cut -f1)
mkdir -p "$package/DEBIAN"
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$debarch/" -e "s/@DEPENDS@/$depends/" -e "s/@SIZE@/$size/" \
    Scripts/debian/control >"$package/DEBIAN/control"
find "$package" -type d -exec chmod 755 {} +
dpkg-deb --root-owner-group -Zxz --build "$package" "dist/pushbench_${version}_$debarch.deb" >&2

ls -l dist/
echo "binary: $(stat -c %s "$tree/bin/pushbench") bytes; Depends: $depends"
