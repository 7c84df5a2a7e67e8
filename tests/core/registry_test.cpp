// core::Registry (core/registry.hpp): the shape shared by the algorithm, backend, endpoint,
// topology-form and dimension-kind registries.
#include "core/registry.hpp"

#include <gtest/gtest.h>

#include <span>
#include <string>
#include <string_view>

#include "collective/algorithm.hpp"
#include "core/error.hpp"
#include "endpoint/endpoint.hpp"
#include "network/backend.hpp"
#include "topology/dim_kind.hpp"
#include "topology/forms.hpp"

namespace collsim::core {
namespace {

struct Plain {
  std::string name;
  int value = 0;
};

constexpr std::string_view kAliases[] = {"b2", "bee"};
struct Aliased {
  std::string_view name;
  std::span<const std::string_view> aliases;
};

std::string error_of(const auto& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Registry, FindsInOrderAndListsTheValidNames) {
  const Registry<Plain> r("widget", {{"a", 1}, {"b", 2}, {"c", 3}});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[1].value, 2);
  EXPECT_EQ(r.find("c")->value, 3);
  EXPECT_EQ(r.find("d"), nullptr);
  EXPECT_EQ(&r.find("b", "f"), &r[1]);
  EXPECT_EQ(r.names(), "a, b, c");
  EXPECT_EQ(error_of([&] { r.find("d", "--widget"); }),
            "--widget: unknown widget \"d\"; did you mean a?; valid: a, b, c");
  int sum = 0;
  for (const Plain& p : r) sum += p.value;
  EXPECT_EQ(sum, 6);
}

TEST(Registry, AliasesAnswerButAreNotListed) {
  const Registry<Aliased> r("kind", {{"a", {}}, {"b", kAliases}});
  EXPECT_EQ(r.find("bee"), &r[1]);
  EXPECT_EQ(r.find("b2"), &r[1]);
  EXPECT_EQ(r.names(), "a, b");
}

TEST(Registry, HelpEntryAlignsTheNameColumn) {
  // The first line carries the name padded to the width; the rest leave the column blank.
  EXPECT_EQ(help_entry("ring", 6, {"first", "second"}), "  ring   first\n         second\n");
  EXPECT_EQ(help_entry("longer-than", 4, {"x"}), "  longer-than x\n");
}

// The five registries keep their words: tests and scripts match these messages.
TEST(Registry, EveryRegistryNamesItsKindInErrors) {
  EXPECT_EQ(error_of([] { collective::find_algorithm("rign", "-a"); }).substr(0, 55),
            "-a: unknown algorithm \"rign\"; did you mean ring?; valid");
  EXPECT_EQ(error_of([] { network::find_backend("booksim", "b"); }),
            "b: unknown backend \"booksim\"; valid: analytical, queue, flow, packet, optical");
  EXPECT_EQ(error_of([] { endpoint::find_endpoint("acee", "e"); }),
            "e: unknown endpoint \"acee\"; did you mean ace?; valid: none, ideal, baseline, baseline++, ace");
  EXPECT_EQ(error_of([] { topology::dim_kinds().find("tree", "k"); }),
            "k: unknown dimension kind \"tree\"; valid: ring, uring, line, fc, sw, lsw");
  EXPECT_EQ(topology::topology_forms().find("torus")->name, "torus");
}

}  // namespace
}  // namespace collsim::core
