#!/usr/bin/env bash
# embed-sweep.sh VAULT MODEL BUDGET... — index VAULT from scratch with the
# embedding MODEL once per token budget and print, per budget, the chunks
# and tokens embedded per second and the process's peak memory (from
# braid index --json). The default --token-budget was chosen from this.
set -euo pipefail
braid=${BRAID:-bin/braid}
vault=$1 model=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-8s %8s %10s %10s %10s\n' budget chunks chunks/s tokens/s peak_MB
for b in "$@"; do
	rm -rf "$tmp/idx"
	"$braid" --model "$model" --token-budget "$b" --index "$tmp/idx" --json index "$vault" |
		python3 -c 'import json,sys; s=json.load(sys.stdin); t=s["embed_ms"]/1000; print("%-8s %8d %10.1f %10.0f %10.0f" % (sys.argv[1], s["embedded"], s["embedded"]/t, s.get("embed_tokens",0)/t, s["peak_rss_bytes"]/2**20))' "$b"
done
