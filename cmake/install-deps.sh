#!/usr/bin/env bash
# Installs what building tilekit needs and the machine lacks (Debian, as root):
# a C++17 compiler, CMake >= 3.25, Boost.Test, Boost.Context, Google Benchmark.
# The CUDA toolkit is used where it is installed; without it the simulator side builds.
set -euo pipefail

need=()
command -v g++ >/dev/null || need+=(g++)
command -v make >/dev/null || need+=(make)
command -v cmake >/dev/null || need+=(cmake)
[ -f /usr/include/boost/test/unit_test.hpp ] || need+=(libboost-test-dev)
[ -f /usr/include/boost/context/fiber.hpp ] || need+=(libboost-context-dev)
[ -f /usr/include/benchmark/benchmark.h ] || need+=(libbenchmark-dev)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "tilekit: missing ${need[*]}; run as root (or install them) first" >&2
    exit 1
  fi
  echo "tilekit: installing ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q "${need[@]}" >/dev/null 2>&1 || { apt-get update -q >/dev/null && apt-get install -y -q "${need[@]}" >/dev/null; }
fi
