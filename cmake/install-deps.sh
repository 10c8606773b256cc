#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Installs what building tilekit needs and the machine lacks (Debian, as root), and checks
# that CMake is new enough (3.25). The CUDA toolkit is used where it is installed; without
# it the simulator side builds.
#   cmake/install-deps.sh [tests|examples]
#     tests (default): a C++17 compiler, make, CMake, Boost.Test, Boost.Context, Google Benchmark,
#                      Doxygen (the API reference check)
#     examples:        a C++17 compiler, make, CMake, Boost.Context (the simulator)
set -euo pipefail
what=${1:-tests}

need=()
command -v g++ >/dev/null || need+=(g++)
command -v make >/dev/null || need+=(make)
command -v cmake >/dev/null || need+=(cmake)
[ -f /usr/include/boost/context/fiber.hpp ] || need+=(libboost-context-dev)
if [ "$what" = tests ]; then
  [ -f /usr/include/boost/test/unit_test.hpp ] || need+=(libboost-test-dev)
  [ -f /usr/include/benchmark/benchmark.h ] || need+=(libbenchmark-dev)
  command -v doxygen >/dev/null || need+=(doxygen)
fi
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "tilekit: missing ${need[*]}; run as root (or install them) first" >&2
    exit 1
  fi
  echo "tilekit: installing ${need[*]} (apt-get)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q "${need[@]}" >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q "${need[@]}" >/dev/null; }
fi
version=$(cmake --version | sed -n 's/^cmake version \([0-9]*\.[0-9]*\).*/\1/p')
if [ "$(printf '%s\n3.25\n' "$version" | sort -V | head -1)" != 3.25 ]; then
  echo "tilekit: CMake $version is older than the 3.25 tilekit needs (Debian 12's is 3.25; or pip install cmake)" >&2
  exit 1
fi
