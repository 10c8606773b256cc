#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# focused staged-scan bench variants + scan tests + sanitizers
set -u
L=$OUT/logs; mkdir -p $L
t0=$(date +%s)
NV="nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -Ialgorithms"
declare -A V=( [A]="-DTILEKIT_STAGED_SCAN_ITEMS_4=47 -DTILEKIT_STAGED_SCAN_ITEMS_8=23 -DTILEKIT_STAGED_SCAN_BLOCKS_PER_SM=3"
  [B]="" [C]="-DTILEKIT_STAGED_SCAN_THREADS=256 -DTILEKIT_STAGED_SCAN_BLOCKS_PER_SM=2"
  [D]="-DTILEKIT_STAGED_SCAN_ITEMS_4=47 -DTILEKIT_STAGED_SCAN_ITEMS_8=23 -DTILEKIT_STAGED_SCAN_BLOCKS_PER_SM=3 -DTILEKIT_STAGED_SCAN_LOOK_ITEMS=16"
  [E]="-DTILEKIT_STAGED_SCAN_ITEMS_4=63 -DTILEKIT_STAGED_SCAN_ITEMS_8=31 -DTILEKIT_STAGED_SCAN_BLOCKS_PER_SM=2" )
for k in "${!V[@]}"; do ( $NV ${V[$k]} .devscripts/sbench.cu -o /tmp/sbench_$k > $L/nvcc_$k.log 2>&1 ) & done
[ -d .gpu-deps/cccl/include ] && ( $NV -I.gpu-deps/cccl/include .devscripts/sbench.cu -o /tmp/sbench_latest > $L/nvcc_latest.log 2>&1 ) &
( cmake -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$PWD/.gpu-deps -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DTILEKIT_ENABLE_SIM=OFF -DTILEKIT_BUILD_TESTS=ON -DTILEKIT_BUILD_EXAMPLES=OFF -DTILEKIT_BUILD_PERF=OFF -DTILEKIT_WARNINGS_AS_ERRORS=ON > $L/configure.log 2>&1 \
  && cmake --build build -j8 --target gpu_device_scan > $L/build.log 2>&1 ) &
wait
echo "builds done at $(( $(date +%s)-t0 ))s"; ls /tmp/sbench_* build/tests/gpu_device_scan
for k in A B C D E $([ -d .gpu-deps/cccl/include ] && echo latest); do echo "== $k"; timeout 120 /tmp/sbench_$k ${LOGS:-} 2>&1 | tee $L/sbench_$k.log; done
echo "bench done at $(( $(date +%s)-t0 ))s"
build/tests/gpu_device_scan > $L/test_scan.log 2>&1; echo "gpu_device_scan rc=$?"; tail -3 $L/test_scan.log
for tool in memcheck racecheck; do
  TILEKIT_TEST_SMALL=1 timeout 150 compute-sanitizer --tool $tool --report-api-errors no build/tests/gpu_device_scan --run_test=device_scan/staged_kernel > $L/san_$tool.log 2>&1
  echo "$tool rc=$? $(grep 'ERROR SUMMARY' $L/san_$tool.log | tail -1) at $(( $(date +%s)-t0 ))s"
done
tar czf $OUT/logs.tgz -C $OUT logs
echo "total $(( $(date +%s)-t0 ))s"
