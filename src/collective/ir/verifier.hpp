#pragma once
// The symbolic verifier (docs/design.md "The verifier is independent of every algorithm").
//
// It runs a Program without time: each rank holds, for every piece, the set of ranks whose data
// has been reduced into it. It proves that nothing is sent before it is held, that every send
// has its matching recv naming the same pieces, that no contribution is reduced twice, that the
// program cannot deadlock, and that at the end every rank holds what the collective promises
// (collective.hpp). Cost: O(ranks * pieces * ranks / 64) words; meant for tests and
// `collsim verify` at up to a few hundred ranks.
#include <string>

#include "collective/ir/program.hpp"

namespace collsim::collective {

struct Verdict {
  bool ok = false;
  std::string reason;  ///< empty when ok; otherwise the first problem found, naming rank and op
  std::uint64_t ops = 0;
  std::uint64_t messages = 0;
};

Verdict verify(const Program& p);

}  // namespace collsim::collective
