#include "report/lightpath_log.hpp"

#include <fmt/format.h>

#include "report/writers.hpp"

namespace collsim::report {

void LightpathLog::begin_run(const jobs::RunContext& ctx) {
  if (auto* optical = dynamic_cast<network::OpticalBackend*>(&ctx.backend)) {
    optical->set_lightpath_observer(this);
    run_ = csv_field(ctx.what);
    topology_ = &ctx.topology;
  }
}

void LightpathLog::end_run(const jobs::RunContext& ctx) {
  if (auto* optical = dynamic_cast<network::OpticalBackend*>(&ctx.backend)) {
    optical->set_lightpath_observer(nullptr);
  }
  topology_ = nullptr;
}

void LightpathLog::on_lightpath(const network::Lightpath& p) {
  const topology::Link& first = topology_->links()[p.arc->front()];
  const bool cw = first.dst == (first.src + 1) % topology_->num_npus();
  csv_ +=
      fmt::format("{},{},{},{},{},{},{:.3f},{:.3f},{:.3f}\n", run_, p.src, p.dst, cw ? "cw" : "ccw",
                  p.arc->size(), p.wavelength, p.requested.ns(), p.begin.ns(), p.end.ns());
}

}  // namespace collsim::report
