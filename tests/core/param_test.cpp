// core::ParamSpec (core/param.hpp): the one parameter type of algorithm, backend and endpoint
// schemas. Each type parses its text form, checks its range, and formats back to the same text.
#include "core/param.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"

namespace collsim::core {
namespace {

std::string error_of(const ParamSpec& p, std::string_view text) {
  try {
    parse_param(p, text, "f");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

constexpr std::string_view kThree[] = {"baseline", "themis", "per-dim-all-reduce"};
constexpr std::string_view kTwo[] = {"auto", "all"};

TEST(Param, EveryTypeRoundTripsThroughText) {
  const struct {
    ParamType type;
    const char* text;
  } cases[] = {{ParamType::Count, "4"},           {ParamType::Bool, "true"},
               {ParamType::Bytes, "256 B"},       {ParamType::Bandwidth, "16 GB/s"},
               {ParamType::Time, "150 ns"},       {ParamType::Share, "94%"},
               {ParamType::Frequency, "700 MHz"}, {ParamType::Flops, "91.75 TFLOP/s"}};
  for (const auto& c : cases) {
    const ParamSpec p{.key = "k", .type = c.type};
    const ParamValue v = parse_param(p, c.text, "f");
    EXPECT_EQ(format_param(p, v), c.text) << type_text(p);
    EXPECT_EQ(check_param(p, v), "") << type_text(p);
  }
  const ParamSpec choice{.key = "schedule", .type = ParamType::Choice, .choices = kThree};
  EXPECT_EQ(std::get<ChoiceIndex>(parse_param(choice, "themis", "f")).index, 1u);
  EXPECT_EQ(format_param(choice, ChoiceIndex{2}), "per-dim-all-reduce");
  // A share is a fraction or a percentage: 0.2 and 20% are the same value.
  const ParamSpec share{.key = "s", .type = ParamType::Share};
  EXPECT_DOUBLE_EQ(std::get<double>(parse_param(share, "0.2", "f")), 0.2);
  EXPECT_DOUBLE_EQ(std::get<double>(parse_param(share, "20%", "f")), 0.2);
}

TEST(Param, ErrorsNameTheFieldAndTheConstraint) {
  const ParamSpec count{.key = "vcs", .type = ParamType::Count, .min = 1, .max = 8};
  EXPECT_EQ(error_of(count, "0"), "f: must be >= 1, got 0");
  EXPECT_EQ(error_of(count, "9"), "f: must be <= 8, got 9");
  EXPECT_EQ(error_of(count, "x"), "f: must be a whole number, got \"x\"");
  // Two choices read "a or b"; more, "one of a, b, c".
  EXPECT_EQ(error_of({.key = "g", .type = ParamType::Choice, .choices = kTwo}, "some"),
            "f: must be auto or all, got \"some\"");
  EXPECT_EQ(error_of({.key = "s", .type = ParamType::Choice, .choices = kThree}, "greedy"),
            "f: must be one of baseline, themis, per-dim-all-reduce, got \"greedy\"");
  EXPECT_EQ(error_of({.key = "s", .type = ParamType::Share}, "120%"),
            "f: must be in (0, 1] (0% < share <= 100%), got \"120%\"");
  EXPECT_NE(error_of({.key = "p", .type = ParamType::Flops}, "3").find("FLOP rate"),
            std::string::npos);
  // parse_word gives the reason alone, for callers that name the field their own way.
  const auto r = parse_word(count, "12");
  ASSERT_TRUE(std::holds_alternative<std::string>(r));
  EXPECT_EQ(std::get<std::string>(r), "must be <= 8, got 12");
}

TEST(Param, DescriptionsForListAndHelp) {
  EXPECT_EQ(type_text({.key = "k", .type = ParamType::Count, .unit = "flits"}), "count of flits");
  EXPECT_EQ(range_text({.key = "k", .type = ParamType::Count, .min = 1, .max = 4}), "1..4");
  EXPECT_EQ(range_text({.key = "k", .type = ParamType::Bytes, .min = 1, .max = 1024}),
            "1 B..1 KiB");
  EXPECT_EQ(range_text({.key = "k", .type = ParamType::Choice, .choices = kTwo}), "auto or all");
  EXPECT_EQ(range_text({.key = "k", .type = ParamType::Share}), "(0, 1]");
  EXPECT_EQ(cli_flag({.key = "vc_buffer_flits"}), "--vc-buffer-flits");
}

TEST(Param, IndexedKeysTakeOneSpellingPerIndex) {
  const ParamSpec dim{.key = "dimK", .type = ParamType::Choice, .choices = kTwo, .indexed = true};
  EXPECT_EQ(param_index(dim, "dim0"), 0u);
  EXPECT_EQ(param_index(dim, "dim17"), 17u);
  EXPECT_EQ(param_index(dim, "dim1023"), kMaxParamIndex);
  for (const char* no : {"dim", "dimK", "dim01", "dim1024", "dim+1", "dim1a", "dm1"}) {
    EXPECT_FALSE(param_index(dim, no).has_value()) << no;
    EXPECT_FALSE(names_param(dim, no)) << no;
  }
  EXPECT_TRUE(names_param({.key = "dim0"}, "dim0"));  // not indexed: the key itself
  EXPECT_FALSE(param_index({.key = "dim0"}, "dim0").has_value());
}

}  // namespace
}  // namespace collsim::core
