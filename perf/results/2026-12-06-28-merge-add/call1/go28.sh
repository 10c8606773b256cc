# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# 28th session, call 1: as go27c (merge-add gate vs main, 3 rounds, tests, all four sanitizers; whole perf/run of main on an H200),
# with gpu_device_histogram rebuilt from b411257 itself (the bundle's was c8a5336's).
mkdir -p .devr/bin && tar -xJf .devr/bin.tar.xz -C .devr/bin && mv .devr/bin.tar.xz .devr/bin.tar.xz.done
xz -dc .devr/hist_b411257.xz > .devr/bin/gpu_device_histogram && chmod +x .devr/bin/gpu_device_histogram
bash .devr/go27c.sh
