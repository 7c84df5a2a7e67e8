// `collsim merge SHARD.csv...`: the CSV files of a sweep run with --shard I/N (a Slurm job
// array, docs/parallel.md) as the one CSV a run without --shard writes (jobs/shard.hpp).
#include <ostream>

#include "cli/commands.hpp"
#include "jobs/shard.hpp"
#include "report/writers.hpp"

namespace collsim::cli {

int merge_results(const std::vector<std::string>& files, const std::string& output,
                  std::ostream& out) {
  const std::string text = jobs::merge_shards(files);
  if (output.empty()) {
    out << text;
  } else {
    report::write_file_atomically(output, text);
  }
  return 0;
}

}  // namespace collsim::cli
