// `collsim astra --scale K --widen GROUPS` (issue 35, jobs/trace_scale.hpp): a hybrid trace of 4
// ranks scaled 2x prints the same ASTRA-sim lines as the same job written out for 8 ranks by
// hand; bad --scale / --widen input is refused with exit 2, naming the option.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "chakra_writer.hpp"
#include "cli_run.hpp"

namespace collsim::workload::chakra {
namespace {

namespace fs = std::filesystem;

pb::AttributeProto text(const std::string& name, const std::string& v) {
  pb::AttributeProto a;
  a.set_name(name);
  a.set_string_val(v);
  return a;
}

pb::AttributeProto i32(const std::string& name, std::int32_t v) {
  pb::AttributeProto a;
  a.set_name(name);
  a.set_int32_val(v);
  return a;
}

pb::Node p2p(std::uint64_t id, bool send, std::int32_t src, std::int32_t dst,
             std::uint64_t dep) {
  pb::Node n = node(id, send ? pb::COMM_SEND_NODE : pb::COMM_RECV_NODE, 0, {dep});
  *n.add_attr() = int_attr("comm_size", 262144);
  *n.add_attr() = i32("comm_src", src);
  *n.add_attr() = i32("comm_dst", dst);
  *n.add_attr() = i32("comm_tag", 0);
  return n;
}

// Rank `r` (of a replica starting at `base`): compute, a 1 MiB all-reduce on its tensor-parallel
// group, a pipeline send (rank 0 -> 1), a 4 MiB all-reduce on its data-parallel group.
void write_rank(const fs::path& file, std::int32_t base, std::int32_t r, const std::string& tp,
                const std::string& dp) {
  std::vector<pb::Node> nodes{node(1, pb::COMP_NODE, 10)};
  pb::Node a = coll(2, pb::ALL_REDUCE, 1 << 20, {1});
  *a.add_attr() = text("pg_name", tp);
  nodes.push_back(a);
  if (r == 0) nodes.push_back(p2p(3, true, base, base + 1, 2));
  if (r == 1) nodes.push_back(p2p(3, false, base, base + 1, 2));
  pb::Node g = coll(4, pb::ALL_REDUCE, 4 << 20, {r < 2 ? 3u : 2u});
  *g.add_attr() = text("pg_name", dp);
  nodes.push_back(g);
  write(file.string(), nodes);
}

std::string sys_lines(const std::string& out) {
  std::istringstream in(out);
  std::string lines;
  for (std::string l; std::getline(in, l);) {
    if (l.rfind("sys[", 0) == 0) lines += l + "\n";
  }
  return lines;
}

TEST(TraceScaleCli, ScaledTraceIsTheHandWrittenJobAndBadInputIsRefused) {
  const fs::path d = trace_dir("scale_cli");
  for (std::int32_t r = 0; r < 4; ++r) {
    write_rank(d / fmt::format("h.{}.et", r), 0, r, r < 2 ? "tp0" : "tp1",
               r % 2 == 0 ? "dp0" : "dp1");
  }
  for (std::int32_t r = 0; r < 8; ++r) {  // the second replica's groups named by hand
    const std::int32_t q = r % 4;
    write_rank(d / fmt::format("w.{}.et", r), r < 4 ? 0 : 4, q,
               (q < 2 ? "tp" : "tq") + std::to_string(r / 4), q % 2 == 0 ? "dp0" : "dp1");
  }
  for (int n : {4, 8}) {
    std::ofstream(d / fmt::format("net{}.yml", n)) << fmt::format(
        "topology: [ Switch ]\nnpus_count: [ {} ]\nbandwidth: [ 100 ]\nlatency: [ 500 ]\n", n);
  }
  std::ofstream(d / "sys.json") << R"({"all-reduce-implementation": ["ring"]})";
  std::ofstream(d / "g4.json") << R"({"tp0": [0, 1], "tp1": [2, 3], "dp0": [0, 2], "dp1": [1, 3]})";
  std::ofstream(d / "g8.json") << R"({"tp0": [0, 1], "tq0": [2, 3], "tp1": [4, 5], "tq1": [6, 7],
      "dp0": [0, 2, 4, 6], "dp1": [1, 3, 5, 7]})";
  const std::string sys = fmt::format("--system-configuration={}/sys.json", d.string());
  const auto scaled = test::collsim(fmt::format(
      "astra --workload-configuration={0}/h {1} --network-configuration={0}/net4.yml "
      "--comm-group-configuration={0}/g4.json --scale 2 --widen dp0,dp1 --no-layers",
      d.string(), sys));
  ASSERT_EQ(scaled.status, 0) << scaled.err;
  EXPECT_NE(scaled.err.find("--scale 2: the trace's 4 ranks as 8"), std::string::npos)
      << scaled.err;
  EXPECT_NE(scaled.err.find("2 groups cloned, 2 widened"), std::string::npos) << scaled.err;
  const auto by_hand = test::collsim(fmt::format(
      "astra --workload-configuration={0}/w {1} --network-configuration={0}/net8.yml "
      "--comm-group-configuration={0}/g8.json --replay --no-layers",
      d.string(), sys));
  ASSERT_EQ(by_hand.status, 0) << by_hand.err;
  const std::string lines = sys_lines(scaled.out);
  EXPECT_NE(lines.find("sys[7] finished"), std::string::npos) << scaled.out;
  EXPECT_EQ(lines, sys_lines(by_hand.out));

  const std::string base = fmt::format(
      "astra --workload-configuration={0}/h {1} --network-configuration={0}/net4.yml "
      "--comm-group-configuration={0}/g4.json",
      d.string(), sys);
  const auto widen_unknown = test::collsim(base + " --scale 2 --widen dp7");
  EXPECT_EQ(widen_unknown.status, 2);
  EXPECT_NE(widen_unknown.err.find("--widen: \"dp7\" is not a group"), std::string::npos)
      << widen_unknown.err;
  const auto widen_alone = test::collsim(base + " --widen dp0");
  EXPECT_EQ(widen_alone.status, 2);
  EXPECT_NE(widen_alone.err.find("--widen: widens groups over the clones of --scale K > 1"),
            std::string::npos)
      << widen_alone.err;
  const auto zero = test::collsim(base + " --scale 0");
  EXPECT_EQ(zero.status, 2);
  EXPECT_NE(zero.err.find("--scale: must be >= 1"), std::string::npos) << zero.err;
  fs::remove_all(d);
}

}  // namespace
}  // namespace collsim::workload::chakra
