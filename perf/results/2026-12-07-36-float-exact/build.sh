#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# build.sh NAME SRCROOT [FLAGS...]
name=$1; src=$2; shift 2
/usr/local/cuda/bin/nvcc -I$src/include -I$src/algorithms -I/work/main/perf -isystem=/work/main/.gpu-deps/include -O3 -DNDEBUG \
  --generate-code=arch=compute_90,code=[compute_90,sm_90] --extended-lambda -std=c++17 "$@" \
  /tmp/rv/reduce_variants.cu -o /tmp/rv/$name \
  -L/work/main/.gpu-deps/lib/x86_64-linux-gnu -l:libbenchmark.so.1.7.1 -lcudart_static -lrt -lpthread -ldl
