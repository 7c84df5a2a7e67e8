#pragma once
// A command refused before it runs (the resource limits, scheduler/limits.hpp): exit status 2, a
// message naming the estimate and the option, no internal error, nothing on standard output.
#include <gtest/gtest.h>

#include <string>

#include "cli_run.hpp"

namespace collsim::test {

inline void expect_refused(const std::string& args, const std::string& message) {
  const auto r = collsim(args);
  EXPECT_EQ(r.status, 2) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << args << "\n" << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "") << args;  // refused before any run: no partial table
}

}  // namespace collsim::test
