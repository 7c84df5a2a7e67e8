#include "scheduler/rotation_symmetry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>

namespace collsim::scheduler {

using collective::Lane;
using collective::Op;
using collective::Program;
using collective::Rank;
using topology::LinkId;

namespace {

constexpr std::uint32_t kM = kRotationProxyRanks;

// The peer's ring offset from rank r: +1, -1 (as N - 1), or anything else.
std::uint32_t offset(Rank r, Rank peer, std::uint32_t n) { return (peer + n - r) % n; }

// The stand-in's ops: lane l of ranks 0..2 is the real program's lane l, its peer r+1 or r-1
// wrapped round after rank 2.
class ProxyGenerator final : public collective::OpGenerator {
 public:
  ProxyGenerator(const Program& p) : p_(p), n_(p.num_ranks) {}
  std::uint32_t size(Lane l) const override { return p_.num_ops(l); }
  Op at(Lane l, std::uint32_t i) const override {
    Op op = p_.op(l, i);
    const Rank r = p_.rank_of(l);
    op.peer = offset(r, op.peer, n_) == 1 ? (r + 1) % kM : (r + kM - 1) % kM;
    return op;
  }

 private:
  const Program& p_;
  std::uint32_t n_;
};

// Rank r's route to the neighbour at `dir` (0: +1, 1: -1) on `n` ranks.
void neighbour_route(const topology::Topology& topo, Rank r, std::uint32_t dir, std::uint32_t n,
                     std::vector<LinkId>& out) {
  out.clear();
  topo.route(r, dir == 0 ? (r + 1) % n : (r + n - 1) % n, out);
}

}  // namespace

RotationSymmetry rotation_symmetry(const Program& p, const topology::Topology& topo) {
  RotationSymmetry s;
  const std::uint32_t n = p.num_ranks;
  s.ranks = n;
  const auto fail = [&s](std::string why) {
    s.broken = std::move(why);
    s.representative.clear();
    return s;
  };
  if (n < kRotationMinRanks) return fail(fmt::format("fewer than {} ranks", kRotationMinRanks));
  if (!p.generator) return fail("a stored program");
  if (p.routes || p.step_schedule) return fail("the program pins its routes or steps");
  if (!p.owner.empty()) return fail("the program reorders its pieces");
  for (Rank r = 0; r < n && !p.npus.empty(); ++r) {
    if (p.npus[r] != r) return fail("ranks are not NPUs in order");
  }
  if (n > topo.num_npus()) return fail("more ranks than NPUs");
  if (p.num_pieces == 0 || p.space_bytes % p.num_pieces != 0) {
    return fail("pieces of unequal sizes");
  }
  // A few ranks' ops against rank 0's: what the timing sees (kind, size, step, reduction, peer
  // offset), op by op.
  for (const Rank r : {Rank{1}, Rank{2}, n / 2, n - 1}) {
    for (std::uint32_t st = 0; st < p.streams; ++st) {
      const Lane l0 = p.lane(0, st), l = p.lane(r, st);
      const std::uint32_t ops = p.num_ops(l0);
      if (p.num_ops(l) != ops) return fail(fmt::format("rank {} runs a different program", r));
      for (std::uint32_t i = 0; i < ops; ++i) {
        const Op a = p.op(l0, i), b = p.op(l, i);
        const std::uint32_t da = a.is_wait() ? 0 : offset(0, a.peer, n);
        const std::uint32_t db = b.is_wait() ? 0 : offset(r, b.peer, n);
        if (a.kind != b.kind || a.count != b.count || a.step != b.step || da != db ||
            (!a.is_wait() && da != 1 && da != n - 1)) {
          return fail(fmt::format("rank {} op {} differs from rank 0's", r, i));
        }
      }
    }
  }
  // Every rank's neighbour routes against the stand-in rank 0's, hop by hop; links shared the
  // same way (a link used by one (rank, direction, hop) of the ring maps to one stand-in link,
  // and back).
  const auto& links = topo.links();
  std::vector<std::vector<LinkId>> proxy(2);
  for (std::uint32_t dir = 0; dir < 2; ++dir) neighbour_route(topo, 0, dir, kM, proxy[dir]);
  // The stand-in's own sharing must be that of the ring: each stand-in link's users, by
  // (rank difference mod 3, direction, hop), from rank 0's view.
  s.representative.assign(links.size(), kUnusedLink);
  std::vector<LinkId> route;
  // For each real link: its first user's (direction, hop) and rank.
  struct User {
    Rank rank;
    std::uint32_t dir, hop;
  };
  std::vector<User> first(links.size(), User{0xffffffffu, 0, 0});
  for (Rank r = 0; r < n; ++r) {
    for (std::uint32_t dir = 0; dir < 2; ++dir) {
      neighbour_route(topo, r, dir, n, route);
      const auto& pr = proxy[dir];
      if (route.size() != pr.size()) {
        return fail(fmt::format("rank {}'s route to its neighbour differs in length", r));
      }
      for (std::uint32_t k = 0; k < route.size(); ++k) {
        const LinkId l = route[k], l0 = pr[k];
        if (links[l].bandwidth.bytes_per_s != links[l0].bandwidth.bytes_per_s ||
            links[l].latency != links[l0].latency) {
          return fail(fmt::format("rank {}'s links differ from rank 0's", r));
        }
        if (s.representative[l] == kUnusedLink) {
          s.representative[l] = l0;
          first[l] = User{r, dir, k};
          continue;
        }
        // A shared link: the stand-in must share its counterpart between the same users. The
        // user (r, dir, k) is (r - first) ranks after the first one: in the stand-in, the
        // counterpart of this hop from rank (r - first) mod 3 must be the same link as l0.
        const User& f = first[l];
        const std::uint32_t diff = (r + n - f.rank) % n;
        const std::int64_t signed_diff = diff > n / 2 ? static_cast<std::int64_t>(diff) - n : diff;
        const Rank q = static_cast<Rank>(((signed_diff % kM) + kM) % kM);
        std::vector<LinkId> pq;
        neighbour_route(topo, q, dir, kM, pq);
        std::vector<LinkId> pf;
        neighbour_route(topo, 0, f.dir, kM, pf);
        if (k >= pq.size() || f.hop >= pf.size() || pq[k] != pf[f.hop] ||
            s.representative[l] != pf[f.hop]) {
          return fail(fmt::format("link {} is shared differently from the stand-in's", l));
        }
      }
    }
  }
  // And no stand-in link shared where the ring's are not: each stand-in rank's routes map to
  // distinct real users the same way (checked by counting users per link).
  std::map<LinkId, std::uint32_t> proxy_users, real_users;
  for (Rank q = 0; q < kM; ++q) {
    for (std::uint32_t dir = 0; dir < 2; ++dir) {
      neighbour_route(topo, q, dir, kM, route);
      for (LinkId l : route) ++proxy_users[l];
    }
  }
  for (Rank r = 0; r < n; ++r) {
    for (std::uint32_t dir = 0; dir < 2; ++dir) {
      neighbour_route(topo, r, dir, n, route);
      for (LinkId l : route) ++real_users[l];
    }
  }
  for (const auto& [l, users] : real_users) {
    if (proxy_users[s.representative[l]] != users) {
      return fail(fmt::format("link {} carries {} neighbour routes, its stand-in {}", l, users,
                              proxy_users[s.representative[l]]));
    }
  }
  return s;
}

Program rotation_proxy(const Program& p) {
  Program q;
  q.algorithm = p.algorithm;
  q.collective = p.collective;
  q.num_ranks = kM;
  q.num_chunks = p.num_chunks;
  q.num_pieces = p.num_pieces;
  q.streams = p.streams;
  q.space_bytes = p.space_bytes;
  q.generator = std::make_shared<ProxyGenerator>(p);
  return q;
}

bool rotation_planned(const collective::AlgorithmChoice& algorithm, std::uint32_t ranks,
                      const topology::Topology& topo, const network::BackendInfo& backend,
                      const network::BackendOptions& options, bool ideal_endpoint) {
  if (!algorithm.info || algorithm.info->name != "ring" || algorithm.info->staged) return false;
  const auto stripe = algorithm.params.find("stripe");
  if (stripe != algorithm.params.end() && stripe->second != 0) return false;
  if (ranks < kRotationMinRanks || ranks != topo.num_npus() || !ideal_endpoint) return false;
  if (backend.links_only == nullptr || !backend.links_only(options)) return false;
  const auto& dims = topo.dimensions();
  return dims.size() == 1 && (dims[0].spec.kind == topology::DimKind::Switch ||
                              dims[0].spec.kind == topology::DimKind::FullyConnected);
}

std::vector<network::LinkStats> expand_rotation_link_stats(
    const std::vector<network::LinkStats>& stats, const RotationSymmetry& symmetry) {
  std::vector<network::LinkStats> out(stats.size());
  for (std::size_t l = 0; l < symmetry.representative.size() && l < out.size(); ++l) {
    if (symmetry.representative[l] != kUnusedLink) out[l] = stats[symmetry.representative[l]];
  }
  return out;
}

}  // namespace collsim::scheduler
