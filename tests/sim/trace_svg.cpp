// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The picture trace (options.trace_svg, TILEKIT_SIM_TRACE_SVG): a well-formed SVG
// file whose arrows name the lanes each shuffle read, barrier rows, the note on
// rows left out, what a failed launch leaves, and the text trace beside it.
#include <tilekit/sim.cuh>

#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace sim = tilekit::sim;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A strict check of well-formed XML, enough for what the simulator writes: one root
// element, tags balanced and nested, attribute values quoted, no attribute twice, only
// the five predefined entities and numeric references, no '<' or '&' loose in text.
// Returns what is wrong, or an empty string.
class xml_checker {
 public:
  explicit xml_checker(const std::string& doc) : d_(doc) {}

  std::string check() {
    if (d_.compare(0, 5, "<?xml") == 0) {
      const auto e = d_.find("?>");
      if (e == std::string::npos) return "unterminated XML declaration";
      p_ = e + 2;
    }
    std::vector<std::string> open;
    bool root_seen = false;
    while (p_ < d_.size()) {
      if (d_[p_] != '<') {
        if (open.empty() && !is_space(d_[p_])) return at("text outside the root element");
        if (d_[p_] == '>') return at("'>' in text");  // legal XML, but the writer escapes it
        if (d_[p_] != '&') ++p_;
        else if (!entity()) return at("bad entity");
        continue;
      }
      if (d_.compare(p_, 4, "<!--") == 0) {
        const auto e = d_.find("-->", p_);
        if (e == std::string::npos) return at("unterminated comment");
        p_ = e + 3;
        continue;
      }
      if (d_.compare(p_, 2, "</") == 0) {
        p_ += 2;
        const std::string n = name();
        if (n.empty() || open.empty() || open.back() != n) return at("closing tag </" + n + "> does not match");
        open.pop_back();
        skip_space();
        if (p_ >= d_.size() || d_[p_] != '>') return at("bad closing tag");
        ++p_;
        continue;
      }
      ++p_;
      const std::string n = name();
      if (n.empty()) return at("bad tag name");
      if (open.empty() && root_seen) return at("a second root element");
      root_seen = true;
      std::set<std::string> attrs;
      for (;;) {
        const bool spaced = skip_space();
        if (p_ >= d_.size()) return at("unterminated tag");
        if (d_.compare(p_, 2, "/>") == 0) { p_ += 2; break; }
        if (d_[p_] == '>') { ++p_; open.push_back(n); break; }
        if (!spaced) return at("attributes need a space before them");
        const std::string a = name();
        if (a.empty()) return at("bad attribute name");
        if (!attrs.insert(a).second) return at("attribute " + a + " twice");
        skip_space();
        if (p_ >= d_.size() || d_[p_] != '=') return at("attribute " + a + " without '='");
        ++p_;
        skip_space();
        if (p_ >= d_.size() || (d_[p_] != '"' && d_[p_] != '\'')) return at("attribute " + a + " not quoted");
        const char q = d_[p_++];
        while (p_ < d_.size() && d_[p_] != q) {
          if (d_[p_] == '<') return at("'<' in an attribute value");
          if (d_[p_] == '&') {
            if (!entity()) return at("bad entity in an attribute value");
          } else {
            ++p_;
          }
        }
        if (p_ >= d_.size()) return at("unterminated attribute value");
        ++p_;
      }
    }
    if (!root_seen) return "no root element";
    if (!open.empty()) return "element <" + open.back() + "> not closed";
    return {};
  }

 private:
  static bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
  static bool is_name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == ':' || c == '.';
  }
  bool skip_space() {
    const auto s = p_;
    while (p_ < d_.size() && is_space(d_[p_])) ++p_;
    return p_ > s;
  }
  std::string name() {
    const auto s = p_;
    if (p_ < d_.size() && ((d_[p_] >= '0' && d_[p_] <= '9') || d_[p_] == '-' || d_[p_] == '.')) return {};
    while (p_ < d_.size() && is_name_char(d_[p_])) ++p_;
    return d_.substr(s, p_ - s);
  }
  // At '&': one of the five predefined entities or a numeric reference; moves past it.
  bool entity() {
    const auto e = d_.find(';', p_);
    if (e == std::string::npos || e - p_ > 10) return false;
    const std::string ent = d_.substr(p_ + 1, e - p_ - 1);
    bool ok = ent == "amp" || ent == "lt" || ent == "gt" || ent == "quot" || ent == "apos";
    if (!ok && ent.size() > 1 && ent[0] == '#') {
      const bool hex = ent[1] == 'x';
      const std::string digits = ent.substr(hex ? 2 : 1);
      ok = !digits.empty() && digits.find_first_not_of(hex ? "0123456789abcdefABCDEF" : "0123456789") == std::string::npos;
    }
    p_ = e + 1;
    return ok;
  }
  std::string at(const std::string& what) const { return what + " at offset " + std::to_string(p_); }

  const std::string& d_;
  std::size_t p_ = 0;
};

std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// A file in the temporary folder, removed at the end of the test.
struct temp_svg {
  std::filesystem::path path;
  explicit temp_svg(const std::string& name)
      : path(std::filesystem::temp_directory_path() / ("tilekit_trace_svg_" + name + ".svg")) {
    std::filesystem::remove(path);
  }
  ~temp_svg() { std::filesystem::remove(path); }
  std::string text() const { return read_file(path); }
};

// The drawn rows: data-row -> (kind, mask), and per row the arrows: reading lane -> lane read.
struct picture {
  std::map<int, std::pair<std::string, std::string>> rows;
  std::map<int, std::map<unsigned, unsigned>> arrows;

  explicit picture(const std::string& svg) {
    const std::regex row_re("<g data-row=\"(\\d+)\" data-kind=\"([^\"]*)\"(?: data-mask=\"(0x[0-9a-f]{8})\")?");
    for (std::sregex_iterator i(svg.begin(), svg.end(), row_re), end; i != end; ++i)
      rows[std::stoi((*i)[1])] = {(*i)[2], (*i)[3]};
    const std::regex arrow_re("<line data-row=\"(\\d+)\" data-from=\"(\\d+)\" data-to=\"(\\d+)\"");
    for (std::sregex_iterator i(svg.begin(), svg.end(), arrow_re), end; i != end; ++i) {
      auto& row = arrows[std::stoi((*i)[1])];
      const unsigned to = unsigned(std::stoul((*i)[3]));
      BOOST_TEST(!row.count(to), "one arrow per reading lane");
      row[to] = unsigned(std::stoul((*i)[2]));
    }
  }
  // The one row with this mask.
  int row_of(const std::string& mask) const {
    int found = -1, count = 0;
    for (const auto& [r, km] : rows)
      if (km.second == mask) found = r, ++count;
    BOOST_TEST(count == 1, "one row with mask " << mask);
    return found;
  }
};

void check_well_formed(const std::string& svg) {
  BOOST_TEST_REQUIRE(!svg.empty());
  const std::string problem = xml_checker(svg).check();
  BOOST_TEST(problem.empty(), "well-formed XML: " << problem);
  BOOST_TEST(contains(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
  BOOST_TEST(contains(svg, "<defs>\n<marker id=\"arrow\""));
  for (const char* external : {"<script", "<style", "href=", "@import", "<image"})
    BOOST_TEST(!contains(svg, external), "self-contained: no " << external);
}

// The "from" row of the text trace, as numbers.
std::vector<unsigned> text_from(const std::string& trace) {
  std::vector<unsigned> from;
  std::istringstream lines(trace);
  for (std::string line; std::getline(lines, line);) {
    if (line.compare(0, 7, "  from ") != 0) continue;
    std::istringstream nums(line.substr(7));
    for (unsigned v; nums >> v;) from.push_back(v);
  }
  return from;
}

// A value whose printed form needs escaping.
struct odd {
  int v;
};
std::ostream& operator<<(std::ostream& os, const odd& o) { return os << "<&\"" << o.v << "'>"; }

}  // namespace

BOOST_AUTO_TEST_SUITE(trace_svg)

BOOST_AUTO_TEST_CASE(the_checker_rejects_broken_xml) {
  BOOST_TEST(xml_checker("<a><b x=\"1\"/>t&amp;&#65;&#x41;</a>").check().empty());
  for (const char* bad : {"<a><b></a></b>", "<a x=1/>", "<a>&nbsp;</a>", "<a>x</a><b/>", "<a>1 < 2</a>", "<a",
                          "<a x=\"1\" x=\"2\"/>", "<a>&amp</a>", "<a x=\"<\"/>"})
    BOOST_TEST(!xml_checker(bad).check().empty(), bad);
}

BOOST_AUTO_TEST_CASE(xml_escape_keeps_any_text_well_formed) {
  using sim::detail::xml_escape;
  BOOST_TEST(xml_escape("a<b&\"c'>") == "a&lt;b&amp;&quot;c&apos;&gt;");
  BOOST_TEST(xml_escape(std::string("x\x01\ny")) == "x  y");
  BOOST_TEST(xml_escape("\xc2\xb5s") == "\xc2\xb5s");  // UTF-8 passes
  BOOST_TEST(xml_escape("\xff\xc2") == "??");          // broken UTF-8 does not
}

// shfl_xor by 1: lane i reads lane i ^ 1.
BOOST_AUTO_TEST_CASE(butterfly_arrows_pair_neighbours) {
  temp_svg f("butterfly");
  sim::options opt;
  opt.trace_svg = f.path.string();
  sim::launch(1, 32, [](auto&) { (void)sim::shfl_xor_sync(~0u, int(sim::lane_id()), 1); }, opt);
  const std::string svg = f.text();
  check_well_formed(svg);
  const picture p(svg);
  BOOST_TEST(p.rows.size() == 1u);
  BOOST_TEST(p.rows.at(0).first == "shfl_xor");
  BOOST_TEST(p.arrows.at(0).size() == 32u);
  for (unsigned l = 0; l < 32; ++l) BOOST_TEST(p.arrows.at(0).at(l) == (l ^ 1u));
  BOOST_TEST(contains(svg, ">lane mask 1</text>"));
  BOOST_TEST(contains(svg, ">mask 0xffffffff, width 32</text>"));
}

// shfl_up by 1 in tiles of 8: the first lane of each tile keeps its own value, so it
// reads itself, as the text trace's "from" row says; both traces are on at once.
BOOST_AUTO_TEST_CASE(shfl_up_at_a_tile_edge_reads_itself) {
  temp_svg f("shfl_up");
  std::ostringstream text;
  sim::options opt;
  opt.trace = true;
  opt.trace_stream = &text;
  opt.trace_svg = f.path.string();
  sim::launch(1, 32, [](auto& ctx) {
    auto tile = tilekit::tiled_partition<8>(ctx.block());
    (void)tile.shfl_up(int(tile.thread_rank()), 1);
  }, opt);
  const std::string svg = f.text();
  check_well_formed(svg);
  const picture p(svg);
  const std::vector<unsigned> from = text_from(text.str());
  BOOST_TEST(p.rows.size() == 4u);  // one shuffle per tile of 8
  unsigned arrows = 0;
  for (const auto& [row, lanes] : p.arrows) {
    BOOST_TEST(p.rows.at(row).first == "shfl_up");
    for (const auto& [to, src] : lanes) {
      ++arrows;
      BOOST_TEST(src == (to % 8 == 0 ? to : to - 1), "lane " << to);
      BOOST_TEST(src == from.at(to), "the text trace agrees for lane " << to);
    }
  }
  BOOST_TEST(arrows == 32u);
  BOOST_TEST(from.size() == 32u);
  BOOST_TEST(p.arrows.at(p.row_of("0x000000ff")).at(0) == 0u);
  BOOST_TEST(contains(svg, ">mask 0x000000ff, width 8</text>"));
}

// Two half-warps in different shuffles: two rows, each with the other half greyed.
BOOST_AUTO_TEST_CASE(divergent_half_warps_draw_two_rows) {
  temp_svg f("divergent");
  sim::options opt;
  opt.trace_svg = f.path.string();
  sim::launch(1, 32, [](auto&) {
    const unsigned l = sim::lane_id();
    if (l < 16) (void)sim::shfl_xor_sync(0x0000ffffu, int(l), 1, 16);
    else (void)sim::shfl_down_sync(0xffff0000u, int(l), 2, 16);
  }, opt);
  const std::string svg = f.text();
  check_well_formed(svg);
  const picture p(svg);
  BOOST_TEST(p.rows.size() == 2u);
  const int low = p.row_of("0x0000ffff"), high = p.row_of("0xffff0000");
  BOOST_TEST(p.rows.at(low).first == "shfl_xor");
  BOOST_TEST(p.rows.at(high).first == "shfl_down");
  BOOST_TEST(p.arrows.at(low).size() == 16u);
  BOOST_TEST(p.arrows.at(high).size() == 16u);
  for (unsigned l = 0; l < 16; ++l) BOOST_TEST(p.arrows.at(low).at(l) == (l ^ 1u));
  for (unsigned l = 16; l < 32; ++l) BOOST_TEST(p.arrows.at(high).at(l) == (l % 16 + 2 < 16 ? l + 2 : l));
  // The lanes outside a row's mask are grey: one grey run per line (in, out) of each row.
  std::size_t grey = 0;
  for (auto at = svg.find("fill=\"#e4e4e4\""); at != std::string::npos; at = svg.find("fill=\"#e4e4e4\"", at + 1)) ++grey;
  BOOST_TEST(grey == 4u);
}

// Barriers are rows; past trace_svg_max_steps the rows are counted in a note.
BOOST_AUTO_TEST_CASE(barriers_and_the_note_on_rows_left_out) {
  auto body = [](auto& ctx) {
    int v = int(ctx.block().thread_rank());
    for (int i = 0; i < 6; ++i) {
      v += sim::shfl_xor_sync(~0u, v, 1);
      if (i % 3 == 2) ctx.block().sync();
    }
  };
  {  // 2 blocks x 2 warps x 6 shuffles + 2 x 2 barriers = 28 rows: all drawn
    temp_svg f("all_rows");
    sim::options opt;
    opt.trace_svg = f.path.string();
    sim::launch(2, 64, body, opt);
    const std::string svg = f.text();
    check_well_formed(svg);
    const picture p(svg);
    BOOST_TEST(p.rows.size() == 28u);
    BOOST_TEST(contains(svg, "data-kind=\"barrier\""));
    BOOST_TEST(contains(svg, ">block (1,0,0): barrier, 64 threads</text>"));
    BOOST_TEST(contains(svg, ">block (1,0,0), warp 1</text>"));
    BOOST_TEST(!contains(svg, "not drawn"));
  }
  {  // at most 10 rows: 18 left out, the barriers among them
    temp_svg f("some_rows");
    sim::options opt;
    opt.trace_svg = f.path.string();
    opt.trace_svg_max_steps = 10;
    sim::launch(2, 64, body, opt);
    const std::string svg = f.text();
    check_well_formed(svg);
    BOOST_TEST(picture(svg).rows.size() == 10u);
    BOOST_TEST(contains(svg, ">18 more rows not drawn (trace_svg_max_steps = 10): 14 collective steps, 4 barriers</text>"));
  }
  {  // 8 warps with one shuffle each, 2 drawn: 6 warps only in the rows left out
    temp_svg f("warps");
    sim::options opt;
    opt.trace_svg = f.path.string();
    opt.trace_svg_max_steps = 2;
    sim::launch(1, 256, [](auto&) { (void)sim::shfl_sync(~0u, 1, 0); }, opt);
    const std::string svg = f.text();
    check_well_formed(svg);
    BOOST_TEST(contains(svg, "6 more rows not drawn (trace_svg_max_steps = 2): 6 collective steps, 0 barriers; "
                             "6 warps appear only in those steps"));
  }
}

BOOST_AUTO_TEST_CASE(grid_barriers_are_rows) {
  temp_svg f("grid");
  sim::options opt;
  opt.trace_svg = f.path.string();
  sim::launch_cooperative(2, 32, [](auto& ctx) { ctx.grid().sync(); }, opt);
  const std::string svg = f.text();
  check_well_formed(svg);
  BOOST_TEST(contains(svg, "data-kind=\"grid barrier\""));
  BOOST_TEST(contains(svg, ">grid barrier, 64 threads</text>"));
}

// Printed values are escaped; the file stays well-formed.
BOOST_AUTO_TEST_CASE(values_are_escaped) {
  temp_svg f("escaped");
  sim::options opt;
  opt.trace_svg = f.path.string();
  sim::launch(1, 4, [](auto&) { (void)sim::shfl_sync(0xfu, odd{int(sim::lane_id())}, 2); }, opt);
  const std::string svg = f.text();
  check_well_formed(svg);
  BOOST_TEST(contains(svg, ">&lt;&amp;&quot;2&apos;&gt;</text>"));
}

// A launch that fails still leaves the rows collected so far, and the error.
BOOST_AUTO_TEST_CASE(a_failed_launch_writes_what_it_collected) {
  temp_svg f("failed");
  sim::options opt;
  opt.trace_svg = f.path.string();
  BOOST_CHECK_THROW(sim::launch(1, 32, [](auto&) {
    (void)sim::shfl_xor_sync(~0u, 1, 1);
    if (sim::lane_id() < 16) (void)sim::shfl_sync(0x0000ffffu, 1, 20);  // lane 20 is not in the mask
  }, opt), sim::error);
  const std::string svg = f.text();
  check_well_formed(svg);
  BOOST_TEST(picture(svg).rows.size() == 1u);
  BOOST_TEST(contains(svg, "the launch ended with an error: tilekit::sim: block (0,0,0), warp 0: lane 0 reads lane 20"));
}

// TILEKIT_SIM_TRACE_SVG selects the picture as options.trace_svg does.
BOOST_AUTO_TEST_CASE(the_environment_variable_selects_it) {
  temp_svg f("environment");
  setenv("TILEKIT_SIM_TRACE_SVG", f.path.c_str(), 1);
  sim::launch(1, 32, [](auto&) { (void)sim::ballot_sync(~0u, sim::lane_id() % 3 == 0); });
  unsetenv("TILEKIT_SIM_TRACE_SVG");
  const std::string svg = f.text();
  check_well_formed(svg);
  BOOST_TEST(contains(svg, ">ballot</text>"));
  BOOST_TEST(contains(svg, ">0x49249249</text>"));
}

// The text trace is the same with the picture on or off.
BOOST_AUTO_TEST_CASE(the_text_trace_does_not_change) {
  auto body = [](auto& ctx) {
    auto block = ctx.template block<64>();
    auto& storage = ctx.template shared<tilekit::reduce_storage<int, 64>>();
    (void)tilekit::reduce(block, int(block.thread_rank()), tilekit::plus{}, storage);
  };
  std::ostringstream plain, with_svg;
  temp_svg f("text");
  sim::options opt;
  opt.trace = true;
  opt.shared_bytes = sizeof(tilekit::reduce_storage<int, 64>);
  opt.trace_stream = &plain;
  sim::launch(1, 64, body, opt);
  opt.trace_stream = &with_svg;
  opt.trace_svg = f.path.string();
  sim::launch(1, 64, body, opt);
  BOOST_TEST(plain.str() == with_svg.str());
  BOOST_TEST(contains(plain.str(), "[sim] block (0,0,0): barrier, 64 threads\n"));
  check_well_formed(f.text());
}

BOOST_AUTO_TEST_SUITE_END()
