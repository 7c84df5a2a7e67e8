#pragma once
// `--packet-trace FILE.csv`: every allocation event of every run on the packet backend
// (network/packet.hpp), one row each, to see why a contended run is as slow as it is:
//   run,time_ns,event,packet,message,channel,in_channel,in_vc,out_vc,flits,until_ns
// event is request (the packet at the front of its input VC asks for `channel`), grant (it got
// `channel` and downstream VC out_vc; the channel and its input port are busy until until_ns) or
// credit (out_vc of `channel` got `flits` credits back at time_ns; credits are applied when the
// channel next allocates, so a credit row may come after rows of a later time). Channels are
// named "link 3->7" or "NPU 5 NI 0 injection"; in_channel "NI queue" is the source NPU's queue.
// A debugging aid for small runs: a run past kMaxRows rows stops with a core::ResourceError.
// Runs on other backends add no rows.
#include <cstdint>
#include <string>

#include "jobs/collective_sweep.hpp"
#include "network/packet.hpp"

namespace collsim::report {

class PacketTraceLog final : public jobs::RunMonitor, private network::PacketObserver {
 public:
  /// Rows of one file at most (about 60 MB): more stops the run with a core::ResourceError.
  static constexpr std::uint64_t kMaxRows = 1'000'000;

  void begin_run(const jobs::RunContext& ctx) override;
  void end_run(const jobs::RunContext& ctx) override;
  /// The CSV so far, with its header.
  const std::string& csv() const { return csv_; }

 private:
  void on_packet_event(const network::PacketEvent& e) override;

  std::string csv_ =
      "run,time_ns,event,packet,message,channel,in_channel,in_vc,out_vc,flits,until_ns\n";
  std::string run_;  // the current run, as a CSV field
  const network::PacketBackend* backend_ = nullptr;
  std::uint64_t rows_ = 0;
};

}  // namespace collsim::report
