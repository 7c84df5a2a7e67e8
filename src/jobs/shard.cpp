#include "jobs/shard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.hpp"
#include "core/input_file.hpp"

namespace collsim::jobs {
namespace {

bool parse_u32(std::string_view s, std::uint32_t& v) {
  if (s.empty()) return false;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

constexpr std::string_view kPrefix = "# collsim shard ";

struct Part {
  std::string file;
  std::uint32_t index = 0, count = 0;
  std::size_t first = 0, last = 0, total = 0;
  std::string fingerprint, header, rows;
};

Part parse_part(const std::string& file, const std::string& text) {
  Part p;
  p.file = file;
  const std::size_t eol = text.find('\n');
  const std::string first = text.substr(0, eol);
  // "# collsim shard I/N: blocks A-B of P, sweep F"
  char fp[64] = {};
  unsigned long long a = 0, b = 0, total = 0;
  unsigned i = 0, n = 0;
  if (first.rfind(kPrefix, 0) != 0 ||
      std::sscanf(first.c_str(), "# collsim shard %u/%u: blocks %llu-%llu of %llu, sweep %63s", &i,
                  &n, &a, &b, &total, fp) != 6) {
    throw core::InputError(fmt::format(
        "merge: \"{}\" is not a shard's CSV (its first line is not \"# collsim shard I/N: ...\"; "
        "write shards with --shard I/N --format csv)",
        file));
  }
  p.index = i, p.count = n, p.first = a, p.last = b, p.total = total, p.fingerprint = fp;
  const std::size_t header_end = eol == std::string::npos ? eol : text.find('\n', eol + 1);
  if (eol == std::string::npos || header_end == std::string::npos) {
    throw core::InputError(fmt::format("merge: \"{}\": no CSV header after the shard line", file));
  }
  p.header = text.substr(eol + 1, header_end - eol);
  p.rows = text.substr(header_end + 1);
  return p;
}

}  // namespace

Shard parse_shard(const std::string& text, const std::string& field) {
  Shard s;
  if (text.empty()) return s;
  const std::size_t slash = text.find('/');
  std::uint32_t i = 0, n = 0;
  if (slash == std::string::npos || !parse_u32(std::string_view(text).substr(0, slash), i) ||
      !parse_u32(std::string_view(text).substr(slash + 1), n) || n == 0 || i >= n) {
    throw core::InputError(fmt::format(
        "{}: expected I/N with 0 <= I < N (e.g. $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT "
        "with --array=0-7), got \"{}\"",
        field, text));
  }
  s.index = i, s.count = n;
  return s;
}

std::pair<std::size_t, std::size_t> shard_blocks(const std::vector<double>& cost, Shard s) {
  const std::size_t n = cost.size();
  std::vector<double> c(n);
  double remaining = 0;
  for (std::size_t b = 0; b < n; ++b) remaining += c[b] = std::max(0.0, cost[b]);
  if (remaining <= 0) {  // nothing known: every block the same
    std::fill(c.begin(), c.end(), 1.0);
    remaining = static_cast<double>(n);
  }
  // Shard by shard: blocks while the slice stays within half a block of an even share of what is
  // left, at least one block each while there are blocks for every shard left.
  std::size_t start = 0;
  for (std::uint32_t k = 0; k < s.count; ++k) {
    const std::uint32_t left = s.count - k;
    std::size_t end = start;
    double taken = 0;
    if (left == 1) {
      end = n;
    } else {
      const double target = remaining / left;
      while (end < n && n - end > left - 1) {
        if (end > start && taken + c[end] / 2 > target) break;
        taken += c[end++];
      }
    }
    if (k == s.index) return {start, end};
    remaining -= taken;
    start = end;
  }
  return {n, n};
}

std::string sweep_fingerprint(const std::vector<std::string>& points) {
  std::uint64_t h = 1469598103934665603ull;
  const auto mix = [&h](unsigned char c) {
    h ^= c;
    h *= 1099511628211ull;
  };
  for (const std::string& p : points) {
    for (char c : p) mix(static_cast<unsigned char>(c));
    mix('\n');
  }
  return fmt::format("{:016x}", h);
}

std::string shard_line(Shard s, std::size_t first, std::size_t last, std::size_t total,
                       const std::string& fingerprint) {
  return fmt::format("{}{}/{}: blocks {}-{} of {}, sweep {}\n", kPrefix, s.index, s.count, first,
                     last, total, fingerprint);
}

std::string merge_shards(const std::vector<std::string>& files) {
  if (files.empty()) throw core::InputError("merge: give the shards' CSV files");
  std::vector<ShardText> texts;
  for (const std::string& file : files) {
    texts.push_back(ShardText{file, core::read_input(file, "shard CSV")});
  }
  return merge_shard_texts(texts);
}

std::pair<std::string, std::string> shard_header_and_rows(const std::string& name,
                                                          const std::string& text) {
  Part p = parse_part(name, text);
  return {std::move(p.header), std::move(p.rows)};
}

std::string merge_shard_texts(const std::vector<ShardText>& texts) {
  if (texts.empty()) throw core::InputError("merge: give the shards' CSV files");
  std::map<std::uint32_t, Part> parts;
  std::uint32_t count = 0;
  std::string fingerprint, header, first_file;
  std::size_t total = 0;
  for (const ShardText& t : texts) {
    const std::string& f = t.name;
    Part p = parse_part(f, t.text);
    if (first_file.empty()) {
      first_file = f, count = p.count, fingerprint = p.fingerprint, header = p.header,
      total = p.total;
    } else if (p.count != count || p.fingerprint != fingerprint || p.total != total) {
      throw core::InputError(fmt::format(
          "merge: \"{}\" is shard {}/{} of sweep {}, but \"{}\" is of {} shards of sweep {}: "
          "shards of different sweeps",
          f, p.index, p.count, p.fingerprint, first_file, count, fingerprint));
    } else if (p.header != header) {
      throw core::InputError(
          fmt::format("merge: \"{}\": its CSV header differs from \"{}\"'s", f, first_file));
    }
    const std::uint32_t index = p.index;
    if (const auto it = parts.find(index); it != parts.end()) {
      throw core::InputError(fmt::format("merge: shard {}/{} given twice: \"{}\" and \"{}\"",
                                         index, count, it->second.file, f));
    }
    parts.emplace(index, std::move(p));
  }
  std::string out = header;
  std::size_t next = 0;
  for (std::uint32_t i = 0; i < count; ++i) {
    const auto it = parts.find(i);
    if (it == parts.end()) {
      throw core::InputError(fmt::format("merge: shard {}/{} of sweep {} is missing (have {})", i,
                                         count, fingerprint, parts.size()));
    }
    if (it->second.first != next) {
      throw core::InputError(fmt::format("merge: \"{}\": blocks {}-{}, expected from block {}",
                                         it->second.file, it->second.first, it->second.last,
                                         next));
    }
    next = it->second.last;
    out += it->second.rows;
  }
  if (next != total) {
    throw core::InputError(
        fmt::format("merge: the shards cover blocks 0-{} of {}", next, total));
  }
  return out;
}

}  // namespace collsim::jobs
