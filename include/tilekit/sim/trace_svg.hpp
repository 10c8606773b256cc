// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/sim/trace_svg.hpp - the picture form of the simulator's trace: the
// collective steps and barriers of one launch as one self-contained SVG file
// (options.trace_svg or TILEKIT_SIM_TRACE_SVG=<path>).
//
// Layout: lanes are columns, each collective step is a row of two lines: the
// values the lanes put in (top) and the values they got out (bottom). For a
// shuffle an arrow runs from the source lane's input to the reading lane's
// output. Lanes outside the step's mask are grey. Barriers are full-width rows.
// Every arrow carries data-row / data-from / data-to and every row data-row,
// data-kind, data-mask, data-block and data-warp, so tools and tests can read
// the picture back.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace tilekit::sim::detail {

/// One collective step as both traces show it: the same strings the text trace prints.
struct trace_step {
  std::string where;      // "block (0,0,0), warp 0"
  std::uint64_t block = 0;  // the block's linear index
  unsigned warp = 0;
  std::string kind;       // "shfl_xor", "ballot", "reduce_add (redux.sync)", ...
  std::string operand;    // "lane mask 1", "delta 4", "src lane 3"; empty if none
  unsigned mask = 0, width = 0;
  bool shuffle = false;
  std::vector<unsigned> lanes;        // the lanes of the mask, ascending
  std::vector<std::string> in, out;   // per entry of lanes
  std::vector<unsigned> from;         // per entry of lanes: the lane read (shuffles)
};

/// Text escaped for XML content and quoted attributes. Control characters become
/// spaces and bytes that are not well-formed UTF-8 become '?', so any printed value
/// keeps the file well-formed.
inline std::string xml_escape(const std::string& s) {
  std::string r;
  r.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '&': r += "&amp;"; continue;
      case '<': r += "&lt;"; continue;
      case '>': r += "&gt;"; continue;
      case '"': r += "&quot;"; continue;
      case '\'': r += "&apos;"; continue;
      default: break;
    }
    if (c < 0x20 || c == 0x7f) { r += ' '; continue; }
    if (c < 0x80) { r += char(c); continue; }
    // A multi-byte sequence: a lead byte and 1 to 3 continuation bytes.
    const std::size_t n = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    bool ok = n > 0 && c < 0xf5 && i + n <= s.size();
    for (std::size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
    if (!ok) { r += '?'; continue; }
    r.append(s, i, n);
    i += n - 1;
  }
  return r;
}

/// Collects the rows of one launch and writes them as one SVG file.
class svg_trace {
 public:
  /// path: the file to write; title: the first line of the picture; at most max_steps rows are drawn.
  svg_trace(std::string path, std::string title, std::size_t max_steps)
      : path_(std::move(path)), title_(std::move(title)), max_steps_(max_steps) {}

  const std::string& path() const { return path_; }

  /// True once max_steps rows are drawn: later rows are only counted.
  bool full() const { return rows_.size() >= max_steps_; }

  /// Counts a collective step of this block and warp that is not drawn (the picture is full).
  void omit(std::uint64_t block, unsigned warp) {
    ++omitted_steps_;
    if (!drawn_warps_.count({block, warp})) omitted_warps_.insert({block, warp});
  }

  /// A completed collective step.
  void step(trace_step s) {
    if (full()) return omit(s.block, s.warp);
    drawn_warps_.insert({s.block, s.warp});
    row r;
    r.step = std::move(s);
    rows_.push_back(std::move(r));
  }

  /// A barrier row; label says which (the text trace's words); grid: a grid barrier,
  /// cluster: a cluster barrier (cluster.sync()), neither: a block barrier.
  void barrier(std::string label, bool grid, bool cluster = false) {
    if (full()) {
      ++omitted_barriers_;
      return;
    }
    row r;
    r.barrier = true;
    r.grid = grid;
    r.cluster = cluster;
    r.label = std::move(label);
    rows_.push_back(std::move(r));
  }

  /// Writes the file. failure: the error that ended the launch (empty if it completed).
  /// Returns false if the file cannot be written.
  bool write(const std::string& failure) const {
    std::ofstream f(path_, std::ios::binary | std::ios::trunc);
    if (!f) return false;
    f << render(failure);
    f.close();
    return bool(f);
  }

  /// The whole SVG document.
  std::string render(const std::string& failure) const {
    // Geometry in pixels. Cells are wide enough for the longest value drawn.
    constexpr int label_w = 200, margin = 10, head_h = 54, step_h = 78, barrier_h = 26, line_h = 20;
    constexpr std::size_t max_chars = 12;  // longer values are cut, ending in "..."
    unsigned cols = 0;
    std::size_t chars = 2;
    for (const auto& r : rows_) {
      if (r.barrier) continue;
      if (r.step.mask) cols = std::max(cols, 32u - unsigned(__builtin_clz(r.step.mask)));
      for (const auto* v : {&r.step.in, &r.step.out})
        for (const auto& t : *v) chars = std::max(chars, std::min(t.size(), max_chars + 3));
    }
    const int cell_w = std::max(26, int(chars) * 7 + 10);
    const int grid_w = int(cols) * cell_w;
    const int width = std::max(label_w + grid_w + 2 * margin, 640);
    int height = head_h;
    for (const auto& r : rows_) height += r.barrier ? barrier_h : step_h;
    std::vector<std::string> notes;
    if (omitted_steps_ + omitted_barriers_ > 0) {
      std::ostringstream n;
      n << omitted_steps_ + omitted_barriers_ << " more rows not drawn (trace_svg_max_steps = " << max_steps_
        << "): " << omitted_steps_ << " collective steps, " << omitted_barriers_ << " barriers";
      if (!omitted_warps_.empty()) n << "; " << omitted_warps_.size() << " warps appear only in those steps";
      notes.push_back(n.str());
    }
    if (!failure.empty()) notes.push_back("the launch ended with an error: " + failure);
    height += 12 + 18 * int(notes.size()) + margin;
    auto cell_x = [&](unsigned lane) { return margin + label_w + int(lane) * cell_w; };
    auto center = [&](unsigned lane) { return cell_x(lane) + cell_w / 2; };
    auto shown = [&](const std::string& t) { return xml_escape(t.size() > max_chars + 3 ? t.substr(0, max_chars) + "..." : t); };

    std::ostringstream o;
    o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << " " << height << "\" font-family=\"monospace\" font-size=\"11\">\n"
      << "<defs>\n"
      << "<marker id=\"arrow\" viewBox=\"0 0 8 8\" refX=\"7\" refY=\"4\" markerWidth=\"6\" markerHeight=\"6\" "
         "orient=\"auto\"><path d=\"M0,0 L8,4 L0,8 z\" fill=\"#1f5fa8\"/></marker>\n"
      << "<marker id=\"arrow-own\" viewBox=\"0 0 8 8\" refX=\"7\" refY=\"4\" markerWidth=\"6\" markerHeight=\"6\" "
         "orient=\"auto\"><path d=\"M0,0 L8,4 L0,8 z\" fill=\"#999999\"/></marker>\n"
      << "</defs>\n"
      << "<rect width=\"" << width << "\" height=\"" << height << "\" fill=\"#ffffff\"/>\n"
      << "<text x=\"" << margin << "\" y=\"18\" font-size=\"13\" font-weight=\"bold\">" << xml_escape(title_)
      << "</text>\n"
      << "<text x=\"" << margin << "\" y=\"34\" fill=\"#555555\">each step: lanes&apos; values in (top), out (bottom); "
         "arrow: the lane read; grey: outside the mask</text>\n";
    // Lane numbers and column lines.
    o << "<g text-anchor=\"middle\" fill=\"#555555\">";
    for (unsigned l = 0; l < cols; ++l) o << "<text x=\"" << center(l) << "\" y=\"" << head_h - 6 << "\">" << l << "</text>";
    o << "</g>\n<text x=\"" << margin << "\" y=\"" << head_h - 6 << "\" fill=\"#555555\">lane</text>\n";

    int y = head_h;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      const row& r = rows_[i];
      if (r.barrier) {
        o << "<g data-row=\"" << i << "\" data-kind=\"" << (r.grid ? "grid barrier" : r.cluster ? "cluster barrier" : "barrier") << "\">"
          << "<rect x=\"" << margin << "\" y=\"" << y + 3 << "\" width=\"" << width - 2 * margin << "\" height=\""
          << barrier_h - 6 << "\" fill=\"" << (r.grid ? "#f4c7c3" : r.cluster ? "#e4d4f4" : "#fde8c8") << "\"/>"
          << "<text x=\"" << width / 2 << "\" y=\"" << y + barrier_h / 2 + 4 << "\" text-anchor=\"middle\">"
          << xml_escape(r.label) << "</text></g>\n";
        y += barrier_h;
        continue;
      }
      const trace_step& s = r.step;
      const int in_y = y + 6, out_y = y + step_h - 6 - line_h;
      o << "<g data-row=\"" << i << "\" data-kind=\"" << xml_escape(s.kind) << "\" data-mask=\"" << hex(s.mask)
        << "\" data-width=\"" << s.width << "\" data-block=\"" << s.block << "\" data-warp=\"" << s.warp << "\">\n";
      o << "<line x1=\"" << margin << "\" y1=\"" << y << "\" x2=\"" << width - margin << "\" y2=\"" << y
        << "\" stroke=\"#dddddd\"/>\n";
      // The label: kind, operand (shuffles), mask and width (shuffles) or lane count, where.
      std::ostringstream mask;
      mask << "mask " << hex(s.mask);
      if (s.shuffle) mask << ", width " << s.width;
      else mask << ", " << s.lanes.size() << (s.lanes.size() == 1 ? " lane" : " lanes");
      std::vector<std::string> label = {s.kind};
      if (!s.operand.empty()) label.push_back(s.operand);
      label.push_back(mask.str());
      label.push_back(s.where);
      for (std::size_t k = 0; k < label.size(); ++k)
        o << "<text x=\"" << margin << "\" y=\"" << y + 16 + 15 * int(k) << "\""
          << (k == 0 ? " font-weight=\"bold\"" : k + 1 == label.size() ? " fill=\"#555555\"" : "") << ">"
          << xml_escape(label[k]) << "</text>";
      o << "\n";
      // Cells: one rectangle per run of lanes inside (in: blue, out: green) or outside the mask (grey),
      // cut into cells by white lines.
      for (int k = 0; k < 2; ++k) {
        const int top = k ? out_y : in_y;
        for (unsigned l = 0; l < cols;) {
          const bool active = (s.mask >> l) & 1;
          unsigned e = l + 1;
          while (e < cols && bool((s.mask >> e) & 1) == active) ++e;
          o << "<rect x=\"" << cell_x(l) << "\" y=\"" << top << "\" width=\"" << int(e - l) * cell_w << "\" height=\""
            << line_h << "\" fill=\"" << (!active ? "#e4e4e4" : k ? "#e3f3e1" : "#e1ecf8") << "\"/>";
          l = e;
        }
      }
      o << "<path stroke=\"#ffffff\" stroke-width=\"2\" d=\"";
      for (unsigned l = 1; l < cols; ++l)
        o << "M" << cell_x(l) << "," << in_y << "v" << line_h << "M" << cell_x(l) << "," << out_y << "v" << line_h;
      o << "\"/>";
      o << "\n<g text-anchor=\"middle\">";
      for (std::size_t j = 0; j < s.lanes.size(); ++j) {
        if (s.lanes[j] >= cols) continue;
        o << "<text x=\"" << center(s.lanes[j]) << "\" y=\"" << in_y + 14 << "\">" << shown(s.in[j]) << "</text>"
          << "<text x=\"" << center(s.lanes[j]) << "\" y=\"" << out_y + 14 << "\">" << shown(s.out[j]) << "</text>";
      }
      o << "</g>\n";
      if (s.shuffle) {
        // From the source lane's input to the reading lane's output; a lane that keeps its own value in grey.
        for (const bool own : {false, true}) {
          bool any = false;
          for (std::size_t j = 0; j < s.lanes.size(); ++j) any = any || (s.from[j] == s.lanes[j]) == own;
          if (!any) continue;
          o << "<g stroke-width=\"1.2\" stroke=\"" << (own ? "#999999\" stroke-dasharray=\"3,2" : "#1f5fa8")
            << "\" marker-end=\"url(#" << (own ? "arrow-own" : "arrow") << ")\">";
          for (std::size_t j = 0; j < s.lanes.size(); ++j) {
            const unsigned to = s.lanes[j], from = s.from[j];
            if ((from == to) != own) continue;
            o << "<line data-row=\"" << i << "\" data-from=\"" << from << "\" data-to=\"" << to << "\" x1=\""
              << center(from) << "\" y1=\"" << in_y + line_h << "\" x2=\"" << center(to) << "\" y2=\"" << out_y - 1
              << "\"/>";
          }
          o << "</g>\n";
        }
      }
      o << "</g>\n";
      y += step_h;
    }
    y += 12;
    for (const auto& n : notes) {
      o << "<text x=\"" << margin << "\" y=\"" << y + 4 << "\" fill=\"#b00020\" data-note=\"1\">" << xml_escape(n)
        << "</text>\n";
      y += 18;
    }
    o << "</svg>\n";
    return o.str();
  }

 private:
  struct row {
    bool barrier = false, grid = false, cluster = false;
    std::string label;
    trace_step step;
  };

  static std::string hex(unsigned m) {
    std::ostringstream s;
    s << "0x";
    s.width(8);
    s.fill('0');
    s << std::hex << m;
    return s.str();
  }

  std::string path_, title_;
  std::size_t max_steps_;
  std::vector<row> rows_;
  std::size_t omitted_steps_ = 0, omitted_barriers_ = 0;
  std::set<std::pair<std::uint64_t, unsigned>> drawn_warps_, omitted_warps_;
};

}  // namespace tilekit::sim::detail
