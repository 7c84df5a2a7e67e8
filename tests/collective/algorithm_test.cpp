// Every algorithm passes the verifier on every topology and rank count it claims, and refuses
// the ones it cannot run with a reason.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "collective/algorithm.hpp"
#include "collective/ir/verifier.hpp"
#include "core/error.hpp"
#include "topology/builders.hpp"

namespace collsim::collective {
namespace {

const core::Bandwidth kBw{16e9};
const core::Time kLat = core::Time::from_ns(150);

std::vector<std::string> topologies() {
  std::vector<std::string> t;
  for (int n = 2; n <= 17; ++n) {
    for (const char* kind : {"ring", "bidir-ring", "fc", "switch"})
      t.push_back(fmt::format("{}:{}", kind, n));
  }
  for (const char* s :
       {"ring:64", "bidir-ring:64", "fc:64", "switch:64", "torus:4x4", "torus:8x8", "torus:2x3",
        "torus:3x3", "torus:4x4x4", "torus:2x2x2", "mesh:4x4", "mesh:8x8", "mesh:3x3", "mesh:2x5",
        "mesh:4x4x4", "hier:ring4xfc2xsw2", "hier:fc3xring3", "hier:sw4xsw4xsw4"}) {
    t.emplace_back(s);
  }
  return t;
}

bool power_of_two(std::uint32_t n) { return (n & (n - 1)) == 0; }

TEST(Algorithms, VerifierAcceptsEveryAlgorithmOnEveryTopology) {
  int verified = 0;
  for (const std::string& spec : topologies()) {
    const auto topo = topology::from_compact(spec, kBw, kLat);
    for (const AlgorithmInfo& info : algorithms()) {
      if (info.staged) continue;  // composed from these per dimension: scheduler/hierarchical_test.cpp
      if (!collective::refusal(info, topo).empty()) continue;  // e.g. ring-2d off grids
      for (Collective c : info.collectives) {
        for (std::uint32_t chunks : {1u, 3u}) {
          std::vector<std::map<std::string, std::int64_t>> variants{{}};
          if (info.name == "ring" && c != Collective::AllToAll && spec.rfind("ring:", 0) != 0) {
            variants.push_back({{"directions", 2}});
          }
          for (const auto& given : variants) {
            const auto choice = make_choice(info, given, info.name, "test");
            const std::string what = fmt::format("{} {} on {} chunks {} variants {}", info.name,
                                                 to_string(c), spec, chunks, given.size());
            if (!power_of_two(topo.num_npus()) && info.power_of_two) {
              try {
                build_program(choice, topo, c, core::Bytes{1 << 20}, chunks);
                ADD_FAILURE() << what << ": should be refused";
              } catch (const core::InputError& e) {
                EXPECT_NE(std::string(e.what()).find("power-of-two"), std::string::npos)
                    << e.what();
              }
              continue;
            }
            const Program p = build_program(choice, topo, c, core::Bytes{1 << 20}, chunks);
            const Verdict v = verify(p);
            EXPECT_TRUE(v.ok) << what << ": " << v.reason;
            ++verified;
          }
        }
      }
    }
  }
  EXPECT_GT(verified, 900);
}

TEST(Algorithms, RingFollowsOneHopStepsOnTorusAndMesh) {
  // The logical ring is a Hamiltonian cycle: every ring message crosses exactly one link.
  for (const char* spec : {"torus:8x8", "torus:4x4x4", "mesh:4x4", "mesh:8x8", "bidir-ring:16"}) {
    const auto topo = topology::from_compact(spec, kBw, kLat);
    const auto p = build_program(parse_algorithm("ring", "t"), topo, Collective::AllReduce,
                                 core::Bytes{1 << 20}, 1);
    // The ring program is generated (p.ops is empty): read it through num_ops/op.
    std::uint64_t sends = 0;
    for (Rank r = 0; r < p.num_ranks; ++r) {
      for (std::uint32_t i = 0; i < p.num_ops(r); ++i) {
        const Op op = p.op(r, i);
        if (op.is_send()) {
          ASSERT_EQ(topo.hops(r, op.peer), 1u) << spec << " rank " << r;
          ++sends;
        }
      }
    }
    // All-reduce in one chunk: N - 1 reduce-scatter and N - 1 all-gather sends per rank.
    const std::uint64_t n = p.num_ranks;
    EXPECT_EQ(sends, n * 2 * (n - 1)) << spec;
    EXPECT_GT(sends, 0u) << spec;
  }
}

TEST(Algorithms, BidirectionalRingRefusedOnUnidirectionalRing) {
  const auto topo = topology::from_compact("ring:8", kBw, kLat);
  try {
    build_program(parse_algorithm("ring:directions=2", "t"), topo, Collective::AllReduce,
                  core::Bytes{1024}, 1);
    FAIL() << "expected refusal";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unidirectional"), std::string::npos) << e.what();
  }
}

TEST(Algorithms, UnsupportedCollectiveAndBadParametersAreRefused) {
  const auto topo = topology::from_compact("fc:4", kBw, kLat);
  EXPECT_THROW(build_program(parse_algorithm("recursive-doubling", "t"), topo, Collective::AllToAll,
                             core::Bytes{64}, 1),
               core::InputError);
  EXPECT_THROW(parse_algorithm("ring:directions=3", "t"), core::InputError);
  EXPECT_THROW(parse_algorithm("ring:speed=3", "t"), core::InputError);
  EXPECT_THROW(parse_algorithm("ring:directions", "t"), core::InputError);
  try {
    parse_algorithm("rign", "--algorithms");
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_EQ(
        std::string(e.what()),
        "--algorithms: unknown algorithm \"rign\"; did you mean ring?; valid: ring, direct, halving-doubling, "
        "recursive-doubling, hierarchical, wrht, multitree, ring-2d, double-binary-tree, hdrm, "
        "package-doubling, nvls, pat, nvls-tree, collnet");
  }
}

TEST(Algorithms, NamedParameterChoices) {
  // hierarchical's schedule and intra take names, stored as their index.
  const auto c = parse_algorithm("hierarchical:schedule=themis:intra=scf:active_chunks=2", "t");
  EXPECT_EQ(c.params.at("schedule"), 1);
  EXPECT_EQ(c.params.at("intra"), 2);
  EXPECT_EQ(c.params.at("active_chunks"), 2);
  EXPECT_EQ(parse_algorithm("hierarchical", "t").params.at("schedule"), 0);
  try {
    parse_algorithm("hierarchical:schedule=greedy", "--algorithms");
    FAIL();
  } catch (const core::InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--algorithms: hierarchical.schedule must be one of baseline, themis, "
              "per-dim-all-reduce, astra-localbw, ace, got \"greedy\"");
  }
  EXPECT_THROW(build_program(c, topology::from_compact("torus:4x4", kBw, kLat),
                             Collective::AllReduce, core::Bytes{64}, 1),
               core::InputError);  // staged: composed by the scheduler, not built whole
}

TEST(Algorithms, IndexedParametersTakeAnyIndex) {
  // hierarchical's dimK: dim0, dim7, dim12 ... each its own key, stored only when given (the
  // scheduler checks K against the platform's dimensions).
  const auto c = parse_algorithm("hierarchical:dim7=direct:dim12=ring", "t");
  EXPECT_EQ(c.params.at("dim7"), 3);
  EXPECT_EQ(c.params.at("dim12"), 1);
  EXPECT_EQ(c.params.count("dim0"), 0u);
  EXPECT_EQ(parse_algorithm("hierarchical", "t").params.count("dimK"), 0u);
  const AlgorithmInfo& h = find_algorithm("hierarchical", "t");
  const ParamSpec& dim = h.params.back();
  ASSERT_TRUE(dim.indexed);
  EXPECT_EQ(param_index(dim, "dim0"), 0u);
  EXPECT_EQ(param_index(dim, "dim1023"), 1023u);
  for (const char* not_one : {"dim", "dimK", "dim05", "dim1024", "dim-1", "dim1x", "di1"}) {
    EXPECT_FALSE(param_index(dim, not_one).has_value()) << not_one;
    EXPECT_THROW(parse_algorithm(std::string("hierarchical:") + not_one + "=ring", "t"),
                 core::InputError)
        << not_one;
  }
  EXPECT_FALSE(param_index(find_algorithm("ring", "t").params[0], "directions0").has_value());
}

}  // namespace
}  // namespace collsim::collective
