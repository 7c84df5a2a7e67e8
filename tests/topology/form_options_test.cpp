// The `:key=value` options of compact topology forms (forms.hpp CompactArgs, compact.cpp): typed
// reads with defaults, and refusals that name the spec and the key.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/error.hpp"
#include "topology/builders.hpp"
#include "topology/forms.hpp"

namespace collsim::topology {
namespace {

const core::Bandwidth kBw{16e9};
const core::Time kLat = core::Time::from_ns(150);

CompactArgs with(std::vector<FormOption> options) {
  CompactArgs a;
  a.options = std::move(options);
  a.spec = "x:4:k=v";
  a.field = "--topology";
  return a;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(FormOptions, TypedReadsAndDefaults) {
  const CompactArgs a = with({{"planes", "2"},
                              {"oversub", "1.5"},
                              {"nic", "400Gb/s"},
                              {"lat", "2us"},
                              {"routing", "valiant"}});
  EXPECT_EQ(a.option_uint("planes", 1, 1, 8), 2u);
  EXPECT_EQ(a.option_uint("spines", 7, 1, 8), 7u);  // absent: the fallback
  EXPECT_DOUBLE_EQ(a.option_number("oversub", 1.0), 1.5);
  EXPECT_DOUBLE_EQ(a.option_bandwidth("nic", kBw).gbps(), 50.0);
  EXPECT_EQ(a.option_time("lat", kLat), core::Time::from_ns(2000));
  EXPECT_EQ(a.option_word("routing", "minimal", {"minimal", "valiant"}), "valiant");
  EXPECT_EQ(a.option_word("other", "minimal", {"minimal", "valiant"}), "minimal");
  EXPECT_EQ(a.option("nope"), nullptr);
}

TEST(FormOptions, BadValuesNameTheKeyAndTheSpec) {
  const CompactArgs a = with({{"planes", "9"}, {"oversub", "-1"}, {"routing", "ugal"}});
  EXPECT_EQ(error_of([&] { a.option_uint("planes", 1, 1, 8); }),
            "--topology: option planes=9 in \"x:4:k=v\": want a whole number from 1 to 8");
  EXPECT_NE(error_of([&] { a.option_number("oversub", 1.0); }).find("option oversub=-1"),
            std::string::npos);
  EXPECT_EQ(error_of([&] { a.option_word("routing", "minimal", {"minimal", "valiant"}); }),
            "--topology: option routing=ugal in \"x:4:k=v\": want one of minimal, valiant");
}

TEST(FormOptions, FormsWithoutOptionsRefuseThem) {
  const std::string e = error_of([] { from_compact("torus:4x4:planes=2", kBw, kLat); });
  EXPECT_NE(e.find("topology: torus takes no options, got \"planes=2\" in \"torus:4x4:planes=2\""),
            std::string::npos)
      << e;
  EXPECT_NE(error_of([] { from_compact("torus:planes=2", kBw, kLat); })
                .find("missing sizes before the options"),
            std::string::npos);
  EXPECT_NE(error_of([] { from_compact("torus:4x4:=2", kBw, kLat); }).find("write key=value"),
            std::string::npos);
  // A form's plain sizes still parse as before.
  EXPECT_EQ(from_compact("torus:4x4", kBw, kLat).num_npus(), 16u);
}

}  // namespace
}  // namespace collsim::topology
