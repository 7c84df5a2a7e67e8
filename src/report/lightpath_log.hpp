#pragma once
// `--lightpaths FILE.csv`: every lightpath of every run on the optical backend
// (network/optical.hpp), one row each, so that wavelength use per segment over time, waits and
// transceiver use can be derived and plotted:
//   run,src,dst,direction,hops,wavelength,requested_ns,begin_ns,end_ns
// direction is cw (towards higher node ids) or ccw; the lightpath holds `wavelength` on its `hops`
// segments during [begin_ns, end_ns) and waited begin_ns - requested_ns for it. Runs on other
// backends add no rows.
#include <string>

#include "network/optical.hpp"
#include "jobs/collective_sweep.hpp"

namespace collsim::report {

class LightpathLog final : public jobs::RunMonitor, private network::LightpathObserver {
 public:
  void begin_run(const jobs::RunContext& ctx) override;
  void end_run(const jobs::RunContext& ctx) override;
  /// The CSV so far, with its header.
  const std::string& csv() const { return csv_; }

 private:
  void on_lightpath(const network::Lightpath& p) override;

  std::string csv_ = "run,src,dst,direction,hops,wavelength,requested_ns,begin_ns,end_ns\n";
  std::string run_;  // the current run, as a CSV field
  const topology::Topology* topology_ = nullptr;
};

}  // namespace collsim::report
