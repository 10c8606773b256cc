// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// main() of every simulator test program (Boost.Test's own).
#define BOOST_TEST_MODULE tilekit simulator tests
#include <boost/test/unit_test.hpp>
