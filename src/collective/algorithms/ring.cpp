// Ring collectives over a logical ring that follows a Hamiltonian cycle of the topology
// (Topology::ring_order), so each step is one hop where such a cycle exists.
//   all-reduce = reduce-scatter (N-1 steps) + all-gather (N-1 steps), each step moving S/N bytes:
//   T = 2(N-1)(alpha + S/(N B)) on a ring (Patarasuk & Yuan; Themis Table 1 "Ring").
//   all-to-all: N-1 steps, step s sends to the rank s positions ahead on the ring.
// directions=2 splits every chunk in halves that go round the ring in opposite directions
// (a bidirectional ring's two link directions each carry half the data).
// stripe=1 (optical rings only; collsim's option, as wrht:stripe=1, not in the WRHT poster): a ring
// step puts one lightpath on every segment of a waveguide, so each transfer is split over the w
// wavelengths of its lightpath's segment, w lanes of S/(N w) sent at once, each its own lightpath:
// T = 2(N-1)(set-up + hop + S/(N w B)) on an optical ring of w wavelengths of B.
#include <fmt/format.h>

#include "collective/algorithm.hpp"
#include "core/error.hpp"

namespace collsim::collective {
namespace {

// Reduce-scatter and/or all-gather of `lanes` independent rings on each of `streams` program
// streams (program.hpp), generated on demand (a stored 1024-rank ring program in 4 chunks would
// hold 16.8 M ops). Ring v = stream * lanes + j goes round orders[j % 2] (the second order, when
// present, is the first reversed) over pieces [v*N, (v+1)*N); logical block b of a ring is the
// piece owned by rank order[b-1], so position k ends the reduce-scatter holding its own rank's
// piece (collective.hpp convention). Per program lane, each step is its sends for rings
// j = 0..L-1, then its receives for them (the order add_step would store). Streams only matter
// where a channel carries one message at a time (the optical backend's lightpaths): each stream
// is a channel of its own.
class RingGenerator final : public OpGenerator {
 public:
  RingGenerator(std::vector<std::vector<Rank>> orders, std::uint32_t lanes, std::uint32_t streams,
                bool reduce_scatter, bool all_gather)
      : orders_(std::move(orders)),
        n_(static_cast<std::uint32_t>(orders_[0].size())),
        lanes_(lanes),
        streams_(streams),
        first_phase_(reduce_scatter ? 0 : 1),
        steps_((n_ - 1) * ((reduce_scatter ? 1 : 0) + (all_gather ? 1 : 0))) {
    for (const auto& o : orders_) {
      std::vector<std::uint32_t> pos(n_);
      for (std::uint32_t k = 0; k < n_; ++k) pos[o[k]] = k;
      position_.push_back(std::move(pos));
    }
  }

  std::uint32_t size(Lane) const override { return steps_ * 2 * lanes_; }

  // Hot (once per op per rank on every run): no division by n, only compares and subtractions
  // (and one by the stream count when there are several).
  Op at(Lane l, std::uint32_t i) const override {
    const Rank r = streams_ == 1 ? l : l / streams_;
    const std::uint32_t base = (l - r * streams_) * lanes_;  // the stream's first ring
    const std::uint32_t n = n_;
    const std::uint32_t per_step = 2 * lanes_;
    const std::uint32_t g = i / per_step, j = i - g * per_step;
    const std::uint32_t second = g >= n - 1 ? 1 : 0;  // g < 2 (n - 1): the step's phase
    const std::uint32_t phase = first_phase_ + second, s = g - second * (n - 1);
    const std::uint32_t lane = j < lanes_ ? j : j - lanes_;
    const std::uint32_t which = orders_.size() == 1 ? 0 : (lane & 1);  // one or two orders
    const auto& o = orders_[which];
    const std::uint32_t k = position_[which][r];
    const auto wrap = [n](std::uint32_t x) { return x >= n ? x - n : x; };
    // Reduce-scatter step s sends block k-s; all-gather sends block k+1-s (a finished block).
    auto piece = [&](std::uint32_t pos) {
      const std::uint32_t block = wrap(wrap(pos + n - s + phase));  // < 2n + 1 before wrapping
      return (base + lane) * n + o[wrap(block + n - 1)];
    };
    if (j < lanes_) return Op{Op::Kind::Send, o[wrap(k + 1)], piece(k), 1, phase == 0};
    const std::uint32_t pred = wrap(k + n - 1);
    return Op{phase == 0 ? Op::Kind::RecvReduce : Op::Kind::Recv, o[pred], piece(pred), 1};
  }

 private:
  std::vector<std::vector<Rank>> orders_;
  std::vector<std::vector<std::uint32_t>> position_;
  std::uint32_t n_, lanes_, streams_, first_phase_, steps_;
};

// Step s: every rank sends its block for the rank s ahead and receives from the rank s behind,
// then waits for that receive (a fence) before the next step, as pairwise-exchange all-to-all
// implementations do. Without the fence the steps would share no data and run all at once.
// On a bidirectional ring (directions=2) step s sends to both ranks at distance s, s ahead and
// s behind (ACE Sec. 5 "step s ... distance s" on Table 5's bidirectional rings): floor(N/2)
// steps, each loading both directions alike, where one-way steps s and N - s would each leave
// one direction idle.
void ring_all_to_all(Program& p, const std::vector<Rank>& o, std::uint32_t chunks, bool both) {
  const std::uint32_t n = p.num_ranks;
  const std::uint32_t last = both ? n / 2 : n - 1;
  std::vector<Transfer> step;
  for (std::uint32_t s = 1; s <= last; ++s) {
    step.clear();
    for (std::uint32_t c = 0; c < chunks; ++c) {
      for (std::uint32_t k = 0; k < n; ++k) {
        const Rank src = o[k], dst = o[(k + s) % n];
        step.push_back(Transfer{src, dst, (c * n + src) * n + dst, 1});
        if (both && 2 * s != n) {
          const Rank back = o[(k + n - s) % n];
          step.push_back(Transfer{src, back, (c * n + src) * n + back, 1});
        }
      }
    }
    add_step(p, step, false);
    if (s < last) {
      for (Rank r = 0; r < n; ++r) p.ops[r].push_back(Op{Op::Kind::Fence, 0, 0, 0});
    }
  }
}

// The lanes each chunk's transfers are split over with stripe=1: the optical ring's wavelengths
// per waveguide (1 without striping). Throws core::InputError where striping has no meaning.
std::uint32_t stripes(const BuildRequest& req) {
  if (req.params.at("stripe") == 0) return 1;
  const topology::OpticalSpec* o = req.topology.optical();
  if (o == nullptr) {
    throw core::InputError(fmt::format(
        "algorithm ring:stripe=1 splits transfers over the wavelengths of an optical ring "
        "(optical-ring:N); {} has none",
        req.topology.name()));
  }
  if (req.collective == Collective::AllToAll) {
    throw core::InputError(
        "algorithm ring:stripe=1 stripes all-reduce, reduce-scatter and all-gather, whose "
        "lightpaths of one step share no segment; not all-to-all");
  }
  return o->wavelengths;
}

Program build(const BuildRequest& req) {
  const topology::Topology& t = req.topology;
  const std::uint32_t n = req.ranks();
  const auto directions = static_cast<std::uint32_t>(req.params.at("directions"));
  const std::uint32_t stripe = stripes(req);
  std::vector<std::vector<Rank>> orders{ring_order(t, req.communicator)};
  if (directions == 2) {
    const auto& npu = req.communicator.npus;
    for (std::uint32_t k = 0; k < n; ++k) {
      const Rank a = orders[0][k], b = orders[0][(k + 1) % n];
      if (t.hops(npu[b], npu[a]) != t.hops(npu[a], npu[b])) {
        throw core::InputError(
            fmt::format("algorithm ring:directions=2 needs links both ways round the ring; {} is "
                        "unidirectional (rank {} -> {} takes {} hops)",
                        t.name(), b, a, t.hops(npu[b], npu[a])));
      }
    }
    orders.emplace_back(orders[0].rbegin(), orders[0].rend());
  }
  if (req.collective == Collective::AllToAll) {
    Program p = make_program("ring", req.collective, n, req.size, req.chunks);
    ring_all_to_all(p, orders[0], req.chunks, directions == 2);
    return p;
  }
  // Each chunk becomes `directions` rings of N pieces on each of `stripe` streams.
  const std::uint32_t lanes = req.chunks * directions;
  Program p = make_program("ring", req.collective, n, req.size, lanes * stripe);
  p.num_chunks = req.chunks;
  p.streams = stripe;
  p.ops.clear();
  p.generator = std::make_shared<RingGenerator>(std::move(orders), lanes, stripe,
                                                req.collective != Collective::AllGather,
                                                req.collective != Collective::ReduceScatter);
  return p;
}

// Reduce-scatter and all-gather: N - 1 steps of N sends per direction (all-reduce both); all-to-all
// N - 1 steps of N sends, stored with a forward per hop (3 N (N - 1) ops at most).
ProgramSize size(const BuildRequest& req) {
  const std::uint64_t n = req.ranks(), steps = n * (n - 1);
  if (req.collective == Collective::AllToAll) return {steps, 3 * steps + n};
  const auto directions = static_cast<std::uint64_t>(req.params.at("directions"));
  const std::uint64_t stripe = stripes(req);
  return {steps * directions * stripe * (req.collective == Collective::AllReduce ? 2 : 1), 0};
}

}  // namespace

AlgorithmInfo ring_info() {
  AlgorithmInfo a{
      "ring",
      "Ring reduce-scatter/all-gather over a Hamiltonian cycle of the topology (snake order on "
      "tori and even meshes); all-to-all in N-1 steps, step s to the rank s ahead",
      "Patarasuk & Yuan 2009; Themis (ISCA'22) Table 1; MultiTree (ISCA'21) baseline RING",
      {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather,
       Collective::AllToAll},
      {count_param("directions", 1, 1, 2,
                   "1: one direction; 2: half of every chunk each way round a bidirectional ring "
                   "(all-reduce, reduce-scatter, all-gather; all-to-all: step s sends to both "
                   "ranks at distance s, floor(N/2) steps)"),
       count_param("stripe", 0, 0, 1,
                   "1 (optical rings): split every transfer over the w wavelengths of its "
                   "lightpath's segment, w lightpaths of a slice each (collsim's option, as "
                   "wrht:stripe=1; all-reduce, reduce-scatter, all-gather)")},
      &build};
  // A stage on P ranks: P - 1 steps, each to the neighbour (both ways at once with directions=2).
  a.stage_steps = [](Collective c, std::uint32_t ranks, const ParamValues& p) {
    return c == Collective::AllToAll && p.at("directions") == 2 ? ranks / 2 : ranks - 1;
  };
  a.one_way = [](const ParamValues& p) { return p.at("directions") == 1; };
  a.size = &size;
  // On an optical ring "all" lists the striped ring next to the plain one (WRHT's comparison).
  a.all_variants = [](const topology::Topology& t) {
    return t.optical() != nullptr ? std::vector<std::string>{"stripe=1"}
                                  : std::vector<std::string>{};
  };
  return a;
}

}  // namespace collsim::collective
