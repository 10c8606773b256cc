// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Every C++/CUDA code block in README.md appears verbatim in a file under
// examples/ or tests/, where it is compiled (and mostly run): no README snippet can rot.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {
std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

BOOST_AUTO_TEST_CASE(readme_code_blocks_are_compiled_sources) {
  const fs::path root = TILEKIT_SOURCE_DIR;
  std::vector<std::string> sources;
  for (const char* dir : {"examples", "tests"})
    for (const auto& e : fs::recursive_directory_iterator(root / dir))
      if (e.is_regular_file() && e.path().filename() != "readme_snippets.cpp") sources.push_back(read(e.path()));

  std::istringstream readme(read(root / "README.md"));
  std::string line, block, language;
  bool inside = false;
  int checked = 0;
  while (std::getline(readme, line)) {
    if (!inside && line.rfind("```", 0) == 0) {
      inside = true;
      language = line.substr(3);
      block.clear();
    } else if (inside && line.rfind("```", 0) == 0) {
      inside = false;
      if (language != "cpp" && language != "cuda") continue;
      ++checked;
      bool found = false;
      for (const auto& s : sources) found = found || s.find(block) != std::string::npos;
      BOOST_TEST(found, "README block not found verbatim in examples/ or tests/:\n" << block);
    } else if (inside) {
      block += line + "\n";
    }
  }
  BOOST_TEST(checked >= 2);
}
