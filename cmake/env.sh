# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Sourced by examples/run and tests/run: puts an installed CUDA toolkit on PATH
# and tells whether a GPU is usable here.
if ! command -v nvcc >/dev/null; then
  for d in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
    if [ -x "$d/nvcc" ]; then export PATH="$d:$PATH"; break; fi
  done
fi
tilekit_has_gpu() { command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }
