// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Stands in for a GPU test program in a build without a GPU (TILEKIT_GPU_COMPILE_ONLY):
// the program was not built, so the test reports itself skipped (exit code 77,
// ctest's SKIP_RETURN_CODE), never passed.
#include <cstdio>

int main(int argc, char* argv[]) {
  std::printf("%s: not built (TILEKIT_GPU_COMPILE_ONLY, no GPU on the build machine): skipped\n",
              argc > 1 ? argv[1] : "GPU test");
  return 77;
}
