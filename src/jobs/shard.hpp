#pragma once
// Sharding a sweep over machines (a Slurm job array, docs/parallel.md): `--shard I/N` runs the
// I-th of N contiguous slices of the sweep's points (0 <= I < N) and writes its CSV rows after a
// first line "# collsim shard I/N: blocks A-B of P, sweep FINGERPRINT"; `collsim merge` puts the
// N files back together, in shard order, into the bytes a run without --shard writes.
//
// The slices are contiguous blocks of points (a collective job's sizes, with every algorithm of
// a size together: the size's speedup column and its ideal and skipped rows need them all), cut
// where the estimated cost (jobs/sweep.hpp) is shared about evenly. jobs::Sweep::slice cuts them;
// `collsim merge` (cli/merge_command.cpp) and rank 0 under mpirun (cli/rank_shard.hpp) read them.
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace collsim::jobs {

struct Shard {
  std::uint32_t index = 0;  ///< 0-based
  std::uint32_t count = 1;
  bool active() const { return count > 1 || index > 0; }
};

/// "I/N" with 0 <= I < N (SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT with --array=0-(N-1));
/// empty: no sharding. Throws core::InputError naming `field`.
Shard parse_shard(const std::string& text, const std::string& field = "--shard");

/// The blocks [first, last) of shard `s`, of blocks with costs `cost` (contiguous, in order; every
/// block in exactly one shard; each shard about an even share of the cost left after the ones
/// before it, and at least one block while there are enough).
std::pair<std::size_t, std::size_t> shard_blocks(const std::vector<double>& cost, Shard s);

/// A sweep's fingerprint (FNV-1a, 16 hex digits) from the descriptions of all its points.
std::string sweep_fingerprint(const std::vector<std::string>& points);

/// The first line of a shard's CSV (with its newline): blocks [first, last) of `total`.
std::string shard_line(Shard s, std::size_t first, std::size_t last, std::size_t total,
                       const std::string& fingerprint);

/// `collsim merge`: the shards' CSV files (any order) as one CSV: the header once, then every
/// shard's rows in shard order. Throws core::InputError when a file is missing or unreadable, is
/// not a shard, belongs to another sweep, or a shard is missing or given twice.
std::string merge_shards(const std::vector<std::string>& files);

/// A shard's CSV text and the name it is known by in errors (a file, an MPI rank).
struct ShardText {
  std::string name, text;
};

/// merge_shards on texts already read (`mpirun`: the ranks' shards).
std::string merge_shard_texts(const std::vector<ShardText>& texts);

/// A shard's CSV header line (with its newline) and its rows, without the shard line. Throws
/// core::InputError as merge_shards does when `text` is not a shard's CSV.
std::pair<std::string, std::string> shard_header_and_rows(const std::string& name,
                                                          const std::string& text);

}  // namespace collsim::jobs
