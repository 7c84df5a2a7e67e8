// Backend parameter schemas (network/params.hpp) and everything derived from them: complete and
// unique entries, values that round-trip through text, the report labels, refusal of a parameter
// given to a backend that does not take it, and the same BackendOptions from a scenario's backend
// map as from the command line.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "cli/backend_flags.hpp"
#include "config/scenario.hpp"
#include "core/engine.hpp"
#include "core/error.hpp"
#include "core/param.hpp"
#include "network/options.hpp"
#include "network/params.hpp"
#include "topology/builders.hpp"

namespace collsim::network {
namespace {

// The message of the core::InputError that `f` throws, or a test failure.
template <typename F>
std::string input_error(F f) {
  try {
    f();
  } catch (const core::InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected core::InputError";
  return "";
}

// A valid value other than the default, as a user writes it.
std::string other_value(const BackendParam& p) {
  switch (p.spec.type) {
    case ParamType::Bytes:
      return "128 B";
    case ParamType::Bandwidth:
      return "8 GB/s";
    case ParamType::Time:
      return "3 ns";
    case ParamType::Bool:
      return default_text(p) == "true" ? "false" : "true";
    case ParamType::Choice:
      return std::string(p.spec.choices[default_text(p) == p.spec.choices[0] ? 1 : 0]);
    case ParamType::Share:
    case ParamType::Frequency:
    case ParamType::Flops:
      break;  // endpoint types: no backend takes one
    case ParamType::Count: {
      const auto d = default_value(p);
      const std::uint64_t v =
          d ? std::get<std::uint64_t>(*d) + 1 : std::max<std::uint64_t>(p.spec.min, 17);
      return std::to_string(v);
    }
  }
  return "";
}

// Every parameter of every backend has the same value in `a` and `b`.
void expect_same_options(const BackendOptions& a, const BackendOptions& b) {
  for (const BackendParam* p : all_params()) EXPECT_EQ(p->get(a), p->get(b)) << p->spec.key;
}

TEST(BackendParams, SchemasAreCompleteAndUnique) {
  std::set<std::string> flags;
  for (const BackendInfo& b : backends()) {
    std::set<std::string_view> keys, labels;
    for (const BackendParam& p : b.params) {
      SCOPED_TRACE(b.name + "." + std::string(p.spec.key));
      EXPECT_TRUE(keys.insert(p.spec.key).second);
      EXPECT_TRUE(labels.insert(p.label).second);  // labels tell parameters apart
      EXPECT_EQ(std::string(p.spec.key).find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_"),
                std::string::npos);
      EXPECT_FALSE(p.spec.description.empty());
      EXPECT_FALSE(p.spec.source.empty());
      EXPECT_FALSE(p.models.empty());
      ASSERT_NE(p.set, nullptr);
      ASSERT_NE(p.get, nullptr);
      EXPECT_LE(p.spec.min, p.spec.max);
      EXPECT_EQ(p.spec.type == ParamType::Choice, !p.spec.choices.empty());
      // Optional exactly when the schema says what unset means.
      EXPECT_EQ(!default_value(p).has_value(), !p.spec.unset.empty());
      if (const auto d = default_value(p)) {
        EXPECT_EQ(core::check_param(p.spec, *d), "") << "default in range";
      }
      // A key taken by several backends is one parameter: the same flag everywhere.
      EXPECT_EQ(find_param(p.spec.key)->spec.type, p.spec.type);
      EXPECT_EQ(find_param(p.spec.key)->label, p.label);
      EXPECT_NE(backends_taking(p.spec.key).find(b.name), std::string::npos);
    }
  }
  for (const BackendParam* p : all_params())
    EXPECT_TRUE(flags.insert(core::cli_flag(p->spec)).second);
  // 2 flow + 18 packet + 4 optical + ni_policy, multipath and ecmp_seed (flow and packet)
  EXPECT_EQ(all_params().size(), 27u);
  EXPECT_EQ(core::cli_flag(find_param("vc_buffer_flits")->spec), "--vc-buffer-flits");
  EXPECT_EQ(find_param("bogus"), nullptr);
}

TEST(BackendParams, EveryValueRoundTripsThroughTextAndOptions) {
  for (const BackendParam* p : all_params()) {
    SCOPED_TRACE(std::string(p->spec.key));
    const std::string text = other_value(*p);
    const ParamValue v = core::parse_param(p->spec, text, "t");
    EXPECT_EQ(core::format_param(p->spec, v), text);
    EXPECT_EQ(core::parse_param(p->spec, core::format_param(p->spec, v), "t"), v);
    BackendOptions o;
    p->set(o, v);
    ASSERT_TRUE(p->get(o).has_value());
    EXPECT_EQ(*p->get(o), v);
    EXPECT_NE(p->get(o), default_value(*p));
    EXPECT_FALSE(label_piece(*p, p->get(o)).empty());
    EXPECT_TRUE(label_piece(*p, default_value(*p)).empty());
    // options_for keeps it for a backend that takes it and drops it for one that does not.
    for (const BackendInfo& b : backends()) {
      EXPECT_EQ(p->get(options_for(b, o)), takes(b, p->spec.key) ? p->get(o) : default_value(*p))
          << b.name;
    }
  }
  // Every choice of a Choice maps to its own enum value and back.
  const BackendParam& sw = *find_param("switching");
  for (std::uint32_t i = 0; i < sw.spec.choices.size(); ++i) {
    BackendOptions o;
    sw.set(o, ChoiceIndex{i});
    EXPECT_EQ(static_cast<std::uint32_t>(o.packet.switching), i);
    EXPECT_EQ(core::format_param(sw.spec, *sw.get(o)), sw.spec.choices[i]);
  }
}

TEST(BackendParams, ParseErrorsNameTheFieldAndTheConstraint) {
  const BackendParam& vcs = *find_param("vcs");
  EXPECT_EQ(input_error([&] { core::parse_param(vcs.spec, "x", "--vcs"); }),
            "--vcs: must be a whole number, got \"x\"");
  EXPECT_EQ(input_error([&] { core::parse_param(vcs.spec, "-1", "--vcs"); }),
            "--vcs: must be a whole number, got \"-1\"");
  EXPECT_EQ(input_error([&] { core::parse_param(vcs.spec, "0", "--vcs"); }),
            "--vcs: must be >= 1, got 0");
  EXPECT_EQ(input_error([&] { core::parse_param(vcs.spec, "4294967296", "--vcs"); }),
            "--vcs: must be <= 4294967295, got 4294967296");
  EXPECT_EQ(input_error([&] { core::parse_param(vcs.spec, "99999999999999999999", "--vcs"); }),
            "--vcs: must be <= 4294967295, got 99999999999999999999");
  EXPECT_EQ(
      input_error([&] { core::parse_param(find_param("switching")->spec, "vct", "b.switching"); }),
      "b.switching: must be virtual-cut-through or wormhole, got \"vct\"");
  EXPECT_EQ(input_error([&] {
              core::parse_param(find_param("message_based_flow_control")->spec, "yes", "k");
            }),
            "k: must be true or false, got \"yes\"");
  EXPECT_EQ(
      input_error([&] { core::parse_param(find_param("packet_payload")->spec, "5 GiB", "p"); }),
      "p: must be <= 4294967295 B, got 5 GiB");
  EXPECT_NE(input_error([&] {
              core::parse_param(find_param("ni_bandwidth")->spec, "16", "n");
            }).find("n: \"16\" has no unit"),
            std::string::npos);
  // A Time parameter (none is declared yet): parsed with its unit, range in ps.
  const core::ParamSpec t{.key = "delay", .type = ParamType::Time, .min = 1, .max = 5000};
  EXPECT_EQ(std::get<core::Time>(core::parse_param(t, "2 ns", "d")), core::Time::from_ns(2));
  EXPECT_EQ(input_error([&] { core::parse_param(t, "6 ns", "d"); }),
            "d: must be <= 5 ns, got 6 ns");
}

TEST(BackendParams, LabelsFollowTheSchemaOrder) {
  // The labels of every pre-existing option, in the order reports have always used.
  BackendOptions o;
  EXPECT_EQ(backend_label(find_backend("packet", "t"), o), "packet");
  set_param(*find_param("npu_injection_bandwidth"), o, "25 GB/s", "t");
  set_param(*find_param("npu_ejection_bandwidth"), o, "8 GB/s", "t");
  EXPECT_EQ(backend_label(find_backend("flow", "t"), o), "flow:inject=25 GB/s:eject=8 GB/s");
  const std::map<std::string, std::string> packet = {{"ejection_queue_flits", "17"},
                                                     {"injection_queue_flits", "18"},
                                                     {"switching", "wormhole"},
                                                     {"ni_bandwidth", "50 GB/s"},
                                                     {"nis_per_npu", "4"},
                                                     {"vcs", "2"},
                                                     {"router_pipeline_cycles", "2"},
                                                     {"vc_buffer_flits", "8"},
                                                     {"flit_size", "32 B"},
                                                     {"packet_payload", "128 B"},
                                                     {"message_based_flow_control", "true"}};
  for (const auto& [k, v] : packet) set_param(*find_param(k), o, v, k);
  EXPECT_EQ(backend_label(find_backend("packet", "t"), o),
            "packet:mbfc:payload=128 B:flit=32 B:vcs=2:buffer=8:pipeline=2:nis=4:ni=50 GB/s:"
            "wormhole:injq=18:ejq=17");
  set_param(*find_param("credit_delay_cycles"), o, "3", "t");  // new: in the label too
  EXPECT_NE(backend_label(find_backend("packet", "t"), o).find(":pipeline=2:credit=3:nis=4"),
            std::string::npos);
}

TEST(BackendParams, WrongBackendIsRefusedNamingOptionBackendAndTakers) {
  // Command line: refused when no chosen backend takes it.
  const BackendInfo* flow = &find_backend("flow", "t");
  const BackendInfo* analytical = &find_backend("analytical", "t");
  const BackendInfo* packet = &find_backend("packet", "t");
  const std::vector<const BackendInfo*> both = {analytical, flow};
  EXPECT_EQ(input_error([&] {
              cli::backend_options(both, {{"vcs", "2"}});
            }),
            "--vcs: the analytical and flow backends do not model packets, flits and virtual "
            "channels; --vcs is taken by: packet");
  // ... applied to the chosen backends that take it, when one does.
  const std::vector<const BackendInfo*> mixed = {analytical, packet, flow};
  const auto opts =
      cli::backend_options(mixed, {{"vcs", "2"}, {"npu_injection_bandwidth", "8 GB/s"}});
  ASSERT_EQ(opts.size(), 3u);
  EXPECT_EQ(backend_label(*analytical, opts[0]), "analytical");
  EXPECT_EQ(backend_label(*packet, opts[1]), "packet:vcs=2");
  EXPECT_EQ(backend_label(*flow, opts[2]), "flow:inject=8 GB/s");
  // Scenario: refused with file, line and the key path of the backend.
  const std::string job =
      "platform: {topology: ring:4, link_bandwidth: 16 GB/s, link_latency: "
      "1 ns}\njob: {collective: all-reduce, sizes: 1MiB, algorithms: ring}\n";
  EXPECT_EQ(input_error([&] {
              config::parse_scenario("backend:\n  name: flow\n  vcs: 2\n" + job, "s.yaml");
            }),
            "s.yaml:3: backend: the flow backend does not model packets, flits and virtual "
            "channels; vcs is taken by: packet");
  EXPECT_EQ(input_error([&] {
              config::parse_scenario(
                  "backend: [flow, {name: packet, npu_ejection_bandwidth: 1 "
                  "GB/s}]\n" +
                      job,
                  "s.yaml");
            }),
            "s.yaml:1: backend[1]: the packet backend does not model NPU injection/ejection "
            "limits; npu_ejection_bandwidth is taken by: flow");
  // Options built in code: make_backend refuses them too, and checks ranges.
  const auto topo = topology::ring(4, core::Bandwidth{16e9}, core::Time::from_ns(1), true);
  core::Simulation sim;
  BackendOptions vcs0;
  vcs0.packet.vcs = 0;
  EXPECT_EQ(input_error([&] { make_backend(*flow, sim, topo, vcs0, "backend"); }),
            "backend: the flow backend does not model packets, flits and virtual channels; vcs "
            "is taken by: packet");
  EXPECT_EQ(input_error([&] { make_backend(*packet, sim, topo, vcs0, "backend"); }),
            "backend: packet backend option vcs: must be >= 1, got 0");
}

TEST(BackendParams, ScenarioAndCommandLineGiveTheSameOptions) {
  for (const BackendInfo& b : backends()) {
    SCOPED_TRACE(b.name);
    // Every parameter the backend takes, at a value other than its default.
    std::map<std::string, std::string> texts;
    std::string yaml = "backend:\n  name: " + b.name + "\n";
    for (const BackendParam& p : b.params) {
      texts[std::string(p.spec.key)] = other_value(p);
      yaml += "  " + std::string(p.spec.key) + ": " + other_value(p) + "\n";
    }
    yaml +=
        "platform: {topology: ring:4, link_bandwidth: 16 GB/s, link_latency: 1 ns}\n"
        "job: {collective: all-reduce, sizes: 1MiB, algorithms: ring}\n";
    const config::Scenario s = config::parse_scenario(yaml, "same.yaml");
    ASSERT_EQ(s.backends.size(), 1u);
    EXPECT_EQ(s.backends[0].info, &b);
    const std::vector<const BackendInfo*> chosen = {&b};
    const BackendOptions cli = cli::backend_options(chosen, texts).at(0);
    expect_same_options(s.backends[0].options, cli);
    for (const BackendParam& p : b.params) {
      EXPECT_NE(p.get(cli), default_value(p)) << p.spec.key;  // each one really was set
    }
  }
  // And one typed field checked by name: the YAML key and the flag land in the same member.
  const std::vector<const BackendInfo*> packet = {&find_backend("packet", "t")};
  EXPECT_EQ(cli::backend_options(packet, {{"vc_buffer_flits", "40"}}).at(0).packet.vc_buffer_flits,
            40u);
}

}  // namespace
}  // namespace collsim::network
