#include "scheduler/hierarchical_compose.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "core/error.hpp"

namespace collsim::scheduler {

using collective::Collective;
using collective::Op;

namespace {

// A barrier would synchronise a whole group across chunks: the flat composition cannot map it.
void refuse_barrier(const Op& o, std::uint32_t d, const HierarchicalSpec& spec) {
  if (o.kind == Op::Kind::Barrier) {
    throw core::InputError(
        fmt::format("compose: dim{}'s algorithm {} uses barriers across its group", d,
                    spec.dim_algorithms[d].label));
  }
}

// Rank j's ops in the stage program `sp`, stream after stream. Streams share no pieces and
// stream s talks only to stream s of its peers (program.hpp), so running them one after the
// other on one lane moves the same data and cannot deadlock where the streams alone do not: every
// rank finishes its stream 0 part, then its stream 1 part, and the k-th send from a to b still
// meets the k-th receive at b from a.
template <class F>
void for_each_op(const collective::Program& sp, collective::Rank j, F&& f) {
  for (std::uint32_t s = 0; s < sp.streams; ++s) {
    const collective::Lane l = sp.lane(j, s);
    for (std::uint32_t i = 0; i < sp.num_ops(l); ++i) f(sp.op(l, i));
  }
}

// All-to-all: every NPU always holds N items (source, destination) of a chunk, starting with its
// own (r, *). A stage on dimension d hands each item to the group member that shares the
// destination's coordinate in d, so after the last stage every item is at its destination. The
// group program's piece j k + j' (from member j to member j') stands for the items member j holds
// for member j'.
void compose_all_to_all(const topology::Topology& topo, const HierarchicalSpec& spec,
                        const Plan& plan, collective::Program& out) {
  const std::uint32_t n = topo.num_npus();
  const auto& dims = topo.dimensions();
  // index_in[d][r]: r's position in its group of dimension d.
  std::vector<std::vector<std::uint32_t>> index_in(dims.size(), std::vector<std::uint32_t>(n));
  for (std::uint32_t d = 0; d < dims.size(); ++d) {
    for (const auto& g : dims[d].groups) {
      for (std::uint32_t j = 0; j < g.size(); ++j) index_in[d][g[j]] = j;
    }
  }
  using Items = std::vector<std::uint32_t>;  // src * n + dst
  for (std::uint32_t c = 0; c < spec.chunks; ++c) {
    std::vector<Items> hold(n);
    for (std::uint32_t r = 0; r < n; ++r) {
      for (std::uint32_t t = 0; t < n; ++t) hold[r].push_back(r * n + t);
    }
    for (std::uint32_t d : plan.chunks[c].dims) {
      for (const auto& g : dims[d].groups) {
        const collective::Program sp =
            collective::build_program(spec.dim_algorithms[d], topo, collective::Communicator{g, ""},
                                      Collective::AllToAll, core::Bytes{g.size()}, 1);
        const auto k = static_cast<std::uint32_t>(g.size());
        std::vector<Items> bucket(k * k);  // [j k + j']
        for (std::uint32_t j = 0; j < k; ++j) {
          for (std::uint32_t item : hold[g[j]]) {
            bucket[j * k + index_in[d][item % n]].push_back(item);
          }
        }
        for (std::uint32_t j = 0; j < k; ++j) {
          for_each_op(sp, j, [&](const Op& o) {
            refuse_barrier(o, d, spec);
            if (o.is_wait()) {
              out.ops[g[j]].push_back(o);
              return;
            }
            for (std::uint32_t q = o.first; q < o.first + o.count; ++q) {
              for (std::uint32_t item : bucket[q]) {
                // collective.hpp: piece (c N + src) N + dst.
                out.ops[g[j]].push_back(Op(o.kind, g[o.peer], c * n * n + item, 1, o.reduce));
              }
            }
          });
        }
        for (std::uint32_t jj = 0; jj < k; ++jj) {
          Items next;
          for (std::uint32_t j = 0; j < k; ++j) {
            const Items& b = bucket[j * k + jj];
            next.insert(next.end(), b.begin(), b.end());
          }
          hold[g[jj]] = std::move(next);
        }
      }
    }
  }
}

}  // namespace

collective::Program compose_program(const topology::Topology& topo, HierarchicalSpec spec) {
  if (!spec.dims.empty()) {
    throw core::InputError(
        "compose: a collective over some dimensions only is not composed; "
        "verify it on the sub-platform");
  }
  prepare(topo, spec);
  const Plan plan = plan_chunks(dim_models(topo, spec.collective, spec.dim_algorithms),
                                spec.collective, spec.size, spec.chunks, spec.schedule);
  const std::uint32_t n = topo.num_npus();
  const auto& dims = topo.dimensions();
  if (spec.collective == Collective::AllToAll) {
    collective::Program out = collective::make_program(
        "hierarchical (composed)", Collective::AllToAll, n, spec.size, spec.chunks);
    compose_all_to_all(topo, spec, plan, out);
    return out;
  }
  // A stage program may split its data finer than one piece per rank (ring both ways: one piece
  // per rank and direction): refine each chunk by the product of those factors.
  std::uint32_t refine = 1;
  for (std::uint32_t d = 0; d < dims.size(); ++d) {
    const auto& g = dims[d].groups.front();
    const Collective op = spec.collective == Collective::AllGather ? Collective::AllGather
                                                                   : Collective::ReduceScatter;
    const auto sp =
        collective::build_program(spec.dim_algorithms[d], topo, collective::Communicator{g, ""}, op,
                                  core::Bytes{g.size()}, 1);
    refine *= sp.num_pieces / static_cast<std::uint32_t>(g.size());
  }
  const std::uint32_t per_chunk = n * refine;  // logical pieces of a chunk
  collective::Program out = collective::make_program("hierarchical (composed)", spec.collective, n,
                                                     spec.size, spec.chunks * refine);
  using Part = std::vector<std::uint32_t>;  // logical pieces an NPU holds, in stage order
  for (std::uint32_t c = 0; c < spec.chunks; ++c) {
    const ChunkPlan& cp = plan.chunks[c];
    Part all(per_chunk);
    for (std::uint32_t q = 0; q < per_chunk; ++q) all[q] = q;
    std::vector<Part> part(n, all);
    std::vector<std::vector<Part>> before(n);  // the part before each reduce-scatter, a stack
    // A stage on `d` (ops == nullptr: only follow the parts).
    auto stage = [&](std::uint32_t d, Collective op, std::vector<std::vector<Op>>* ops) {
      // Following the parts only (the reduce-scatter walk before an all-gather) needs the
      // pieces' owners, which the all-gather's own program gives (program.hpp: an all-gather
      // starts where a reduce-scatter ends): so an algorithm with an all-gather but no
      // reduce-scatter (package-doubling) composes, as `collective` runs it.
      const Collective built = ops == nullptr ? Collective::AllGather : op;
      for (const auto& g : dims[d].groups) {
        const collective::Program sp =
            collective::build_program(spec.dim_algorithms[d], topo, collective::Communicator{g, ""},
                                      built, core::Bytes{g.size()}, 1);
        const auto k = static_cast<std::uint32_t>(g.size());
        // What the group works on: the NPUs' part (RS, AR) or its union before the RS (AG).
        const Part& whole = op == Collective::AllGather ? before[g[0]].back() : part[g[0]];
        const std::uint32_t m = sp.num_pieces;
        for (std::uint32_t j = 0; j < k; ++j) {
          const Part& mine = op == Collective::AllGather ? before[g[j]].back() : part[g[j]];
          if (mine != whole || whole.size() % m != 0) {
            throw std::logic_error(
                fmt::format("compose: chunk {} dim{}: the group's parts disagree", c, d));
          }
        }
        const std::uint32_t each = static_cast<std::uint32_t>(whole.size()) / m;
        auto owned = [&](std::uint32_t j) {  // the logical pieces rank j owns in the stage
          Part p;
          for (std::uint32_t i = 0; i < m; ++i) {
            if (sp.piece_owner(i) == j)
              p.insert(p.end(), whole.begin() + i * each, whole.begin() + (i + 1) * each);
          }
          return p;
        };
        for (std::uint32_t j = 0; j < k && ops; ++j) {
          if (op == Collective::AllGather && part[g[j]] != owned(j)) {
            throw std::logic_error(
                fmt::format("compose: chunk {} dim{}: all-gather from the wrong part", c, d));
          }
          for_each_op(sp, j, [&](const Op& o) {
            refuse_barrier(o, d, spec);
            if (o.is_wait()) {  // a fence orders this NPU's own ops only
              (*ops)[g[j]].push_back(o);
              return;
            }
            for (std::uint32_t x = o.first * each; x < (o.first + o.count) * each; ++x) {
              (*ops)[g[j]].push_back(Op(o.kind, g[o.peer], whole[x], 1, o.reduce));
            }
          });
        }
        std::vector<Part> next(k);
        for (std::uint32_t j = 0; j < k; ++j) {
          if (op == Collective::ReduceScatter) next[j] = owned(j);
        }
        for (std::uint32_t j = 0; j < k; ++j) {
          if (op == Collective::ReduceScatter) {
            before[g[j]].push_back(part[g[j]]);
            part[g[j]] = std::move(next[j]);
          } else if (op == Collective::AllGather) {
            part[g[j]] = before[g[j]].back();
            before[g[j]].pop_back();
          }
        }
      }
    };
    // The collective.hpp layout: within the chunk, sub-chunk s of NPU r is index s N + r.
    std::vector<std::uint32_t> label(per_chunk);
    auto label_by_holder = [&] {
      for (std::uint32_t r = 0; r < n; ++r) {
        for (std::uint32_t s = 0; s < part[r].size(); ++s) label[part[r][s]] = s * n + r;
      }
    };
    for (std::uint32_t q = 0; q < per_chunk; ++q) label[q] = q;
    // An all-gather chunk starts from the parts the reverse walk's reduce-scatter would leave.
    if (spec.collective == Collective::AllGather) {
      for (auto it = cp.dims.rbegin(); it != cp.dims.rend(); ++it) {
        stage(*it, Collective::ReduceScatter, nullptr);
      }
      label_by_holder();
    }
    std::vector<std::vector<Op>> ops(n);
    for (std::size_t s = 0; s < cp.dims.size(); ++s) stage(cp.dims[s], cp.ops[s], &ops);
    if (spec.collective == Collective::ReduceScatter) label_by_holder();
    for (std::uint32_t r = 0; r < n; ++r) {
      for (Op o : ops[r]) {
        if (!o.is_wait()) o.first = c * per_chunk + label[o.first];
        out.ops[r].push_back(o);
      }
    }
  }
  return out;
}

}  // namespace collsim::scheduler
