#!/usr/bin/env bash
# PTX tooling for backend-cuda.
#   ptx.sh generate <module-dir>  compile src/main/cuda/*.cu to the committed PTX and rewrite sources.sha256
#   ptx.sh check <module-dir>     recompile into target/ptx and fail if the committed PTX differs (needs nvcc)
#   ptx.sh validate <module-dir>  assemble the committed PTX with ptxas -v for every SASS target (needs ptxas);
#                                 writes target/ptxas-report.txt and prints it
set -euo pipefail

mode=${1:?usage: ptx.sh generate|check|validate <module-dir>}
module=$(cd "${2:-.}" && pwd)
src=$module/src/main/cuda
committed=$module/src/main/resources/org/attn4j/backend/cuda/ptx
target=$module/target
arch=compute_75
sass_targets="sm_75 sm_80 sm_90"

compile_all() {
    local out=$1
    mkdir -p "$out"
    for cu in "$src"/*.cu; do
        nvcc -ptx -arch=$arch -I"$src" "$cu" -o "$out/$(basename "${cu%.cu}").ptx"
    done
}

# nvcc writes its build id and release into // comments; everything else is deterministic for one release.
release_of() { grep -m1 '^// Cuda compilation tools' "$1" || true; }
strip_comments() { grep -v '^//' "$1"; }

case $mode in
generate)
    compile_all "$committed"
    (cd "$src" && sha256sum $(ls *.cu *.cuh | LC_ALL=C sort)) > "$committed/sources.sha256"
    echo "PTX written to $committed"
    ;;
check)
    if ! command -v nvcc > /dev/null; then
        echo "[ptx] nvcc not on PATH: PTX regeneration check skipped (the source checksum test still runs)"
        exit 0
    fi
    fresh=$target/ptx
    rm -rf "$fresh"
    compile_all "$fresh"
    stale=0
    for ptx in "$fresh"/*.ptx "$committed"/*.ptx; do
        name=$(basename "$ptx")
        if [[ ! -f $fresh/$name || ! -f $committed/$name ]]; then
            echo "[ptx] $name exists only in $(dirname "$ptx")" >&2; stale=1; continue
        fi
        [[ $ptx == "$fresh/$name" ]] || continue
        if [[ $(release_of "$ptx") != "$(release_of "$committed/$name")" ]]; then
            echo "[ptx] $name: committed by '$(release_of "$committed/$name")', this nvcc is" \
                 "'$(release_of "$ptx")': body comparison skipped"
            continue
        fi
        if ! diff -q <(strip_comments "$ptx") <(strip_comments "$committed/$name") > /dev/null; then
            echo "[ptx] $name is stale: src/main/cuda changed since it was generated" >&2; stale=1
        fi
    done
    if [[ $stale != 0 ]]; then
        echo "[ptx] run: bash src/build/ptx.sh generate ." >&2
        exit 1
    fi
    echo "[ptx] committed PTX matches src/main/cuda"
    ;;
validate)
    if ! command -v ptxas > /dev/null; then
        echo "[ptxas] ptxas not on PATH: SASS validation skipped"
        exit 0
    fi
    ptxas_major=$(ptxas --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
    if [[ -z $ptxas_major || $ptxas_major -lt 13 ]]; then
        echo "[ptxas] $(command -v ptxas) is release ${ptxas_major:-unknown}; PTX ISA 9.0 needs CUDA 13: validation skipped"
        exit 0
    fi
    mkdir -p "$target"
    report=$target/ptxas-report.txt
    log=$target/ptxas-verbose.log
    : > "$log"
    for sm in $sass_targets; do
        for ptx in "$committed"/*.ptx; do
            ptxas -arch="$sm" -v "$ptx" -o /dev/null 2>> "$log"
        done
    done
    awk '
        /Compiling entry function/ { split($0, q, "\047"); kernel = q[2]; sm = q[4] }
        /bytes stack frame/ { stack = $1; spill = $5 + $9 }
        /Used [0-9]+ registers/ {
            regs = $5; smem = 0
            for (i = 1; i <= NF; i++) if ($i == "smem," || $i == "smem") smem = $(i - 2)
            printf "%-6s %-28s %5d %10d %7d %7d\n", sm, kernel, regs, smem, stack, spill
        }' "$log" | sort -k1,1 -k2,2 > "$report.rows"
    { printf "%-6s %-28s %5s %10s %7s %7s\n" arch kernel regs smem_B stack_B spill_B; cat "$report.rows"; } > "$report"
    rm "$report.rows"
    echo "[ptxas] report ($report; dynamic shared memory of the attention kernel is not included):"
    cat "$report"
    ;;
*)
    echo "unknown mode: $mode" >&2; exit 2
    ;;
esac
