// "Did you mean" (core/suggest.hpp): typos get the closest name, unrelated words get none.
#include "core/suggest.hpp"

#include <gtest/gtest.h>

namespace collsim::core {
namespace {

TEST(Suggest, EditDistance) {
  EXPECT_EQ(edit_distance("topolgy", "topology"), 1u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("scheduling_policy", "scheduling-policy"), 0u);  // '_' for '-'
  EXPECT_EQ(edit_distance("rign", "ring"), 1u);  // two neighbours swapped (issue 52)
  EXPECT_EQ(edit_distance("tabel", "table"), 1u);
  EXPECT_EQ(edit_distance("ab", "ba"), 1u);
}

TEST(Suggest, TyposGetTheClosestNameAndOtherWordsNone) {
  const std::vector<std::string_view> opts = {"--topology", "--algorithms", "--sizes", "--chunks"};
  EXPECT_EQ(closest("--topolgy", opts), "--topology");
  EXPECT_EQ(closest("--size", opts), "--sizes");
  EXPECT_EQ(closest("--algo", opts), "--algorithms");  // a unique prefix
  EXPECT_EQ(closest("--foo", opts), "");
  EXPECT_EQ(closest("--bandwidth", opts), "");
  EXPECT_EQ(did_you_mean("--chunk", opts), "; did you mean --chunks?");
  EXPECT_EQ(did_you_mean("zzz", opts), "");
}

}  // namespace
}  // namespace collsim::core
