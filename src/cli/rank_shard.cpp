#include "cli/rank_shard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <string_view>

#include "core/error.hpp"
#include "report/output_file.hpp"
#include "jobs/shard.hpp"
#include "jobs/sweep.hpp"
#include "report/writers.hpp"

namespace collsim::cli {
namespace {

RankContext* g_context = nullptr;

// A launcher's variable, or `fallback` when unset or not a number.
std::uint32_t env_u32(const char* name, std::uint32_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  std::uint32_t n = 0;
  const std::string_view s(v);
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  return ec == std::errc() && p == s.data() + s.size() ? n : fallback;
}

constexpr std::string_view kShardPrefix = "# collsim shard ";

// The CSV a serial run writes up to where it stopped: the header and every row of `parts`, in
// order (ranks without any row give nothing).
std::string rows_of(const std::vector<RankOutput>& ranks, std::size_t last) {
  std::string header, rows;
  for (std::size_t k = 0; k <= last && k < ranks.size(); ++k) {
    if (ranks[k].out.empty()) continue;
    auto [h, r] = jobs::shard_header_and_rows(fmt::format("rank {}", k), ranks[k].out);
    if (header.empty()) header = std::move(h);
    rows += r;
  }
  return rows.empty() ? std::string() : header + rows;
}

// A serial CSV run with -o that stops says where its rows are before its error line.
std::string with_partial_note(const std::string& err, const std::string& output) {
  const std::string note =
      fmt::format("collsim: the rows finished before the error are in {}.partial\n", output);
  std::size_t at = err.rfind("\ncollsim: ");
  at = at == std::string::npos ? (err.rfind("collsim: ", 0) == 0 ? 0 : err.size()) : at + 1;
  return err.substr(0, at) + note + err.substr(at);
}

}  // namespace

LaunchedRanks launched_ranks() {
  LaunchedRanks r;
  if (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr) {
    r.size = env_u32("OMPI_COMM_WORLD_SIZE", 1);
    r.rank = env_u32("OMPI_COMM_WORLD_RANK", 0);
    r.local_size = env_u32("OMPI_COMM_WORLD_LOCAL_SIZE", 1);
  } else if (std::getenv("PMI_SIZE") != nullptr) {
    r.size = env_u32("PMI_SIZE", 1);
    r.rank = env_u32("PMI_RANK", 0);
    r.local_size = env_u32("MPI_LOCALNRANKS", 1);
  }
  if (r.size == 0) r.size = 1;
  if (r.local_size == 0) r.local_size = 1;
  return r;
}

RankContext* rank_context() { return g_context; }
void set_rank_context(RankContext* context) { g_context = context; }

void apply_rank_shard(RankContext& context, OutputOptions& opt, const std::string& command,
                      bool shardable) {
  if (!shardable) {
    if (command == "astra" || command == "llm") {
      throw core::InputError(fmt::format(
          "mpirun: `collsim {}` runs one simulation and does not split over ranks; run it "
          "without mpirun (run, collective and train split their points over the ranks)",
          command));
    }
    return;  // list, help, ...: every rank does it, rank 0 prints it
  }
  if (!opt.shard.empty()) {
    throw core::InputError(fmt::format(
        "--shard: under mpirun the {} ranks are the slices; leave out --shard (or run the "
        "slices without mpirun)",
        context.ranks.size));
  }
  if (opt.format != "csv") {
    throw core::InputError(
        fmt::format("--format: under mpirun the ranks' CSV rows are put together by rank 0; add "
                    "--format csv (got \"{}\"; table and json: run without mpirun)",
                    opt.format));
  }
  context.sharded = true;
  context.output = opt.output;
  opt.output.clear();
  opt.shard = fmt::format("{}/{}", context.ranks.rank, context.ranks.size);
  opt.progress = false;
  if (opt.jobs == 0) {
    opt.jobs = std::max(1u, jobs::default_jobs() / context.ranks.local_size);
  }
}

ComposedOutput compose_rank_outputs(const std::vector<RankOutput>& ranks, bool sharded,
                                    const std::string& output) {
  ComposedOutput c;
  if (ranks.empty()) return c;
  const RankOutput& first = ranks.front();
  // Not split: rank 0 did everything itself (a command without points, a run refused on every
  // rank alike, an LLM scenario: every rank ran every point).
  const bool split = sharded && (first.status != 0 || first.out.empty() ||
                                 first.out.rfind(kShardPrefix, 0) == 0);
  if (!split) {
    c.status = first.status, c.out = first.out, c.err = first.err;
    if (sharded) {
      c.to_output = true;
      c.err += "collsim: note: this scenario's runs do not split over ranks (LLM jobs): every "
               "rank ran all of them\n";
    }
    return c;
  }
  c.to_output = true;
  std::size_t stop = ranks.size();
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    if (ranks[k].interrupted) {
      // Every finished row of every rank, in input order (a --jobs sweep keeps the same).
      if (stop == ranks.size()) stop = k;
    }
  }
  if (stop < ranks.size()) {
    c.status = ranks[stop].status;
    c.out = rows_of(ranks, ranks.size() - 1);
    c.err = ranks[stop].err;
  } else {
    for (std::size_t k = 0; k < ranks.size(); ++k) {
      if (ranks[k].status != 0) {
        stop = k;
        break;
      }
    }
    if (stop == ranks.size()) {
      std::vector<jobs::ShardText> parts;
      for (std::size_t k = 0; k < ranks.size(); ++k) {
        parts.push_back(jobs::ShardText{fmt::format("rank {}", k), ranks[k].out});
      }
      const std::string merged = jobs::merge_shard_texts(parts);
      c.out = merged;
      c.err = first.err;
      return c;
    }
    c.status = ranks[stop].status;
    c.out = rows_of(ranks, stop);
    c.err = ranks[stop].err;
  }
  c.partial = true;
  if (!output.empty() && !c.out.empty()) c.err = with_partial_note(c.err, output);
  return c;
}

int write_composed(const ComposedOutput& c, const std::string& output, std::ostream& out,
                   std::ostream& err) {
  if (!c.to_output || output.empty()) {
    out << c.out << std::flush;
  } else if (!c.partial) {
    report::write_file_atomically(output, c.out);
  } else if (!c.out.empty()) {
    // As a serial CSV run that stopped: the finished rows in FILE.partial, FILE as it was.
    report::OutputFile f(output, "--output");
    f.write(c.out);
    f.keep_partial();
  }
  err << c.err << std::flush;
  return c.status;
}

std::string without_mpi_message(const LaunchedRanks& ranks) {
  return fmt::format(
      "collsim: error: mpirun started {} ranks, but this collsim was built without MPI (each "
      "rank would run the whole sweep); rebuild it with MPI (Debian: apt-get install "
      "libopenmpi-dev openmpi-bin, then configure again: CMake finds it), or run the slices "
      "with --shard I/{} and put them together with `collsim merge` (docs/parallel.md)\n",
      ranks.size, ranks.size);
}

}  // namespace collsim::cli
