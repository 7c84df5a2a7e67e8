#pragma once
// A DeliveryHandler for backend tests: records when each message (by tag) was injected and
// delivered, in picoseconds.
#include <cstdint>
#include <map>

#include "core/engine.hpp"
#include "network/backend.hpp"

namespace collsim::testing {

struct Recorder final : network::DeliveryHandler {
  explicit Recorder(core::Simulation& s) : sim(s) {}
  void on_injected(std::uint64_t tag) override { injected[tag] = sim.now().ps; }
  void on_delivered(std::uint64_t tag) override { delivered[tag] = sim.now().ps; }
  core::Simulation& sim;
  std::map<std::uint64_t, std::int64_t> injected, delivered;
};

}  // namespace collsim::testing
