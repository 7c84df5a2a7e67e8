#include <fmt/format.h>

#include <ostream>

#include "cli/commands.hpp"
#include "collective/algorithm.hpp"
#include "network/backend.hpp"

namespace collsim::cli {

int list_everything(std::ostream& out) {
  out << "Topologies (--topology, or `topology:` in a scenario; links take --link-bandwidth and "
         "--link-latency):\n"
         "  ring:N             unidirectional ring of N NPUs\n"
         "  bidir-ring:N       bidirectional ring\n"
         "  fc:N               fully connected: a direct link between every pair\n"
         "  switch:N           N NPUs on one switch (two links per NPU-to-NPU path)\n"
         "  torus:AxB[xC...]   torus of any number of dimensions (e.g. torus:8x8, torus:16x8x8)\n"
         "  mesh:AxB[xC...]    mesh of any number of dimensions (e.g. mesh:4x4x4)\n"
         "  hier:<k><n>x...    hierarchical P1 x P2 x ... (Themis), kinds ring, uring, line, fc, "
         "sw,\n"
         "                     e.g. hier:ring4xfc8xsw32; per-dimension bandwidth/latency/links "
         "in a scenario's `dims:`\n\n";
  out << "Collectives (--collective):\n"
         "  all-reduce, reduce-scatter, all-gather, all-to-all\n\n";
  out << "Algorithms (--algorithms, comma-separated; parameters as name:key=value):\n";
  for (const auto& a : collective::algorithms()) {
    std::string colls;
    for (auto c : a.collectives)
      colls += (colls.empty() ? "" : ", ") + std::string(collective::to_string(c));
    out << fmt::format("  {:<20} {}\n  {:<20} collectives: {}\n  {:<20} source: {}\n", a.name,
                       a.description, "", colls, "", a.source);
    for (const auto& p : a.params) {
      out << fmt::format("  {:<20} {}={} (default {}, range {}..{}): {}\n", "", p.key,
                         p.default_value, p.default_value, p.min, p.max, p.description);
    }
  }
  out << "\nBackends (--backend, or `backend:` in a scenario):\n";
  for (const auto& b : network::backends())
    out << fmt::format("  {:<20} {}\n", b.name, b.description);
  return 0;
}

}  // namespace collsim::cli
