// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/core/version.hpp - the library's version: the one place it is written
// (CMakeLists.txt reads it from here; CHANGELOG.md says what each version holds).
#pragma once

#define TILEKIT_VERSION_MAJOR 0
#define TILEKIT_VERSION_MINOR 1
#define TILEKIT_VERSION_PATCH 0
/// MAJOR * 10000 + MINOR * 100 + PATCH (100 for 0.1.0, 200 for 0.2.0), for `#if TILEKIT_VERSION >= ...`.
#define TILEKIT_VERSION (TILEKIT_VERSION_MAJOR * 10000 + TILEKIT_VERSION_MINOR * 100 + TILEKIT_VERSION_PATCH)
