#!/usr/bin/env bash
# gpu-check.sh [OUT] — issue 33's checks on a machine with an NVIDIA GPU:
# braid built, the GPU runtime installed (make ort-gpu), braid bench on
# cuda beside cpu, the embeddings of the two compared (cosine >= 0.999),
# and SciFact hybrid nDCG@10 on cuda within 0.003 of the CPU's.
#
# Unrun so far: it was written on a machine without a GPU. Results go to
# OUT (default $OUT, else gpu-check.out): bench-cpu.json, bench-cuda.json,
# parity.log, eval-cuda.json (eval-cpu.json with CPU_EVAL=1) and a summary.
# It stops at the first failed step, saying which.
#
# Needs, on that machine: Go (or bin/braid built already), the wheels of
# make ort-gpu (PyPI, or already in WHEELS: on a machine without network,
# copy $TMPDIR/braid-wheels there first), the fp32 bge-small in the models
# directory (make models; its fp16 copy is made by make ort-gpu), the
# CPU runtime (make ort) and DATA=path/to/shared/data for SciFact.
#
# Knobs: CHUNKS (bench sizes, default 1000,10000), CPU_EVAL=1 re-runs the
# SciFact eval on the CPU (several minutes) instead of comparing with the
# recorded CPU figure CPU_HYBRID (0.7393: bge-small fp32, docs/benchmarks.md).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="${1:-${OUT:-gpu-check.out}}"
mkdir -p "$out"
summary="$out/summary.txt"
: >"$summary"
say() { echo "gpu-check: $*" | tee -a "$summary" >&2; }
fail() {
	say "FAILED: $*"
	exit 1
}

CHUNKS="${CHUNKS:-1000,10000}"
DATA="${DATA:-../shared/data}"
CPU_HYBRID="${CPU_HYBRID:-0.7393}"
MODEL="BAAI/bge-small-en-v1.5" # fp32 (fp16 on the GPU when make ort-gpu made it)
CPU_LIB="$PWD/.tools/onnxruntime/libonnxruntime.so.1"
GPU_LIB="$PWD/.tools/onnxruntime-gpu/libonnxruntime.so.1"

say "step 0: the GPU"
nvidia-smi -L 2>&1 | tee -a "$summary" >&2 || fail "nvidia-smi: no driver or no GPU here"

say "step 1: build"
if command -v go >/dev/null; then
	go build -o bin/braid ./cmd/braid || fail "go build"
elif [[ ! -x bin/braid ]]; then
	fail "neither go nor bin/braid"
fi

say "step 2: runtimes (make ort, make ort-gpu)"
make -s ort || fail "make ort (the CPU runtime, for the CPU bench)"
make -s ort-gpu || fail "make ort-gpu (WHEELS=${WHEELS:-\$TMPDIR/braid-wheels} holds the wheels offline)"
models_dir="$(bin/braid models path "$MODEL" 2>/dev/null || true)"
[[ -n "$models_dir" && -f "$models_dir/model.onnx" ]] || fail "no fp32 $MODEL installed (make models)"
if [[ -f "$models_dir/model-fp16.onnx" ]]; then say "fp16 weights: $models_dir/model-fp16.onnx"; else say "no fp16 weights: the GPU runs fp32"; fi

say "step 3: where auto puts the models"
BRAID_ORT_LIB="$GPU_LIB" bin/braid --model "$MODEL" --device auto doctor 2>&1 | grep -E '^(ok|warn|FAIL) +(runtime|device)' | tee -a "$summary" >&2 || true

say "step 4: bench, cpu (CPU runtime) then cuda (GPU runtime)"
BRAID_ORT_LIB="$CPU_LIB" bin/braid --model "$MODEL" --device cpu bench --chunks "$CHUNKS" --queries 100 \
	--model-ingest 1000 --rerank-runs 3 --json >"$out/bench-cpu.json" || fail "bench on cpu"
BRAID_ORT_LIB="$GPU_LIB" bin/braid --model "$MODEL" --device cuda bench --chunks "$CHUNKS" --queries 100 \
	--model-ingest 1000 --rerank-runs 3 --json >"$out/bench-cuda.json" || fail "bench on cuda"
python3 - "$out/bench-cpu.json" "$out/bench-cuda.json" <<'EOF' | tee -a "$summary" >&2
import json, sys
cpu, gpu = (json.load(open(p)) for p in sys.argv[1:3])
print("device cpu: ", cpu.get("device")); print("device cuda:", gpu.get("device"))
for c, g in zip(cpu["sizes"], gpu["sizes"]):
    for k in sorted(c["metrics"]):
        if k.endswith("p50_ms") or k.endswith("chunks_per_s"):
            print(f'{c["chunks"]:>7} {k:40} cpu {c["metrics"][k]:10.3f}  cuda {g["metrics"].get(k, float("nan")):10.3f}')
for c, g in zip(cpu.get("rerank") or [], gpu.get("rerank") or []):
    print(f'rerank {c["model"]} window {c["window"]}: p50 cpu {c["p50_ms"]:.2f} ms, cuda {g["p50_ms"]:.2f} ms')
EOF

say "step 5: embeddings, GPU against CPU (cosine >= 0.999)"
corpus="$DATA/scifact/corpus.jsonl"
[[ -f "$corpus" ]] || corpus=""
BRAID_GPU_PARITY=1 BRAID_ORT_LIB="$GPU_LIB" BRAID_PARITY_CORPUS="$corpus" \
	go test ./model -run '^TestGPUParity$' -count=1 -v >"$out/parity.log" 2>&1 || {
	tail -5 "$out/parity.log" >&2
	fail "embedding parity (see $out/parity.log)"
}
grep -E 'cosine|cuda:0' "$out/parity.log" | tee -a "$summary" >&2

say "step 6: SciFact hybrid on cuda within 0.003 of the CPU"
[[ -d "$DATA/scifact" ]] || fail "no $DATA/scifact; set DATA=path/to/shared/data"
BRAID_ORT_LIB="$GPU_LIB" bin/braid --model "$MODEL" --device cuda --reranker none eval --beir "$DATA/scifact" \
	--split test --modes hybrid --json >"$out/eval-cuda.json" || fail "eval on cuda"
if [[ "${CPU_EVAL:-0}" == 1 ]]; then
	BRAID_ORT_LIB="$CPU_LIB" bin/braid --model "$MODEL" --device cpu --reranker none eval --beir "$DATA/scifact" \
		--split test --modes hybrid --json >"$out/eval-cpu.json" || fail "eval on cpu"
	CPU_HYBRID="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["ndcg@10"])' "$out/eval-cpu.json")"
fi
python3 - "$out/eval-cuda.json" "$CPU_HYBRID" <<'EOF' | tee -a "$summary" >&2 || fail "SciFact hybrid on cuda is more than 0.003 from the CPU"
import json, sys
gpu = json.load(open(sys.argv[1]))[0]["ndcg@10"]
cpu = float(sys.argv[2])
print(f"SciFact test hybrid nDCG@10: cuda {gpu:.4f}, cpu {cpu:.4f}, difference {gpu - cpu:+.4f}")
sys.exit(0 if abs(gpu - cpu) <= 0.003 else 1)
EOF
say "all steps passed; results in $out"
