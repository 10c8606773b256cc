// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A CPU model of the hash set's probes (key_set, 8-byte slots, groups of 4 read at once):
// how many group reads a lookup needs, and the most of 128 lookups (a warp's trip of 4 keys
// a thread, which lasts as long as its slowest key), for a set of 2^B slots holding a fraction
// of keys, with the home slot anywhere in its group (before 2026-12-04) or at its first slot.
//   g++ -O2 -o probe_model probe_model.cpp && ./probe_model
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

static std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

static void model(unsigned log_slots, double load, bool aligned, const char* what) {
  const std::uint64_t slots = 1ull << log_slots, mask = slots - 1;
  std::vector<std::uint32_t> table(slots + 4, 0);
  const std::uint64_t keys = std::uint64_t(load * double(slots));
  auto key_of = [](std::uint64_t k) { return std::uint32_t(mix64(k * 7 + 1) | 1); };
  auto reads = [&](std::uint32_t s, bool insert) {  // group reads to find s, or to place it
    std::uint64_t at = mix64(s) & mask;
    if (aligned) at &= ~3ull;
    for (int r = 1;; ++r) {
      const std::uint64_t g = at & ~3ull;
      for (std::uint64_t j = at - g; j < 4; ++j) {
        if (table[g + j] == s) return r;
        if (table[g + j] == 0) {
          if (insert) table[g + j] = s;
          return r;
        }
      }
      at = (g + 4) & mask;
    }
  };
  for (std::uint64_t k = 1; k <= keys; ++k) reads(key_of(k), true);
  std::mt19937_64 g(1);
  const int trips = 20000;
  double all = 0, slowest = 0;
  for (int t = 0; t < trips; ++t) {
    int most = 0;
    for (int i = 0; i < 128; ++i) {
      const int r = reads(key_of(g() % keys + 1), false);
      all += r;
      most = std::max(most, r);
    }
    slowest += most;
  }
  std::printf("%-44s 2^%u slots, %5.1f%% full, home %-13s: %.3f reads a key, %.3f a trip\n", what, log_slots, 100 * load,
              aligned ? "group-aligned" : "anywhere", all / (128.0 * trips), slowest / trips);
}

int main() {
  struct { unsigned log_slots; double load; const char* what; } cases[] = {
      {23, 0.02, "2^24 keys, 1% distinct, 64 MB first set"},
      {21, 0.08, "2^24 keys, 1% distinct, set sized by sketch"},
      {23, 0.33, "2^28 keys, 1% distinct, 64 MB first set"},
      {23, 0.375, "first set at its give-up load (3/8)"},
      {13, 0.5, "a piece's set in shared memory (half full)"}};
  for (const auto& c : cases)
    for (bool aligned : {false, true}) model(c.log_slots, c.load, aligned, c.what);
}
