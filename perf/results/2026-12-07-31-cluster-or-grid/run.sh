#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Device runner: bash .devr/run.sh CMDFILE DEADLINE_S
# CMDFILE lines: name|timeout_s|command (run in .devr/bin; $ROOT, $OUT, $R available); names
# starting h200_ run only on an H200.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd); export ROOT
R=$OUT/r; export R; mkdir -p "$R"
cmdfile=$(readlink -f "$1"); start=$SECONDS; deadline=${2:-560}
export LD_LIBRARY_PATH=$ROOT/.devr/bin/lib/x86_64-linux-gnu:$ROOT/.gpu-deps/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
mkdir -p "$ROOT/.devr/bin"; cd "$ROOT/.devr/bin"
for t in "$ROOT"/.devr/*.tar.xz; do tar -xJf "$t"; done
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$R/gpu.txt" 2>&1
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "gpu: $gpu; setup $((SECONDS - start)) s" | tee "$R/summary.txt"
pack() { tar -cJf "$OUT/r.tar.xz" -C "$OUT" r 2>/dev/null; }
while IFS= read -r line; do
  [ -z "$line" ] && continue
  case "$line" in \#*) continue ;; esac
  name=${line%%|*}; rest=${line#*|}; to=${rest%%|*}; cmd=${rest#*|}
  case "$name:$gpu" in h200_*:*H200*) ;; h200_*) echo "$name skipped (not an H200)" >> "$R/summary.txt"; continue ;; esac
  left=$((deadline - (SECONDS - start)))
  if [ $left -lt $((to / 2)) ] || [ $left -lt 5 ]; then echo "$name skipped ($left s left)" | tee -a "$R/summary.txt"; continue; fi
  [ $to -gt $left ] && to=$left
  t0=$SECONDS
  timeout -k 5 $to bash -c "$cmd" > "$R/$name.txt" 2>&1 < /dev/null
  rc=$?
  echo "$name rc=$rc $((SECONDS - t0)) s" | tee -a "$R/summary.txt"
  pack
done < "$cmdfile"
echo "total $((SECONDS - start)) s" | tee -a "$R/summary.txt"
pack
