#include "report/packet_trace_log.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "report/writers.hpp"

namespace collsim::report {

void PacketTraceLog::begin_run(const jobs::RunContext& ctx) {
  if (auto* packet = dynamic_cast<network::PacketBackend*>(&ctx.backend)) {
    packet->set_packet_observer(this);
    run_ = csv_field(ctx.what);
    backend_ = packet;
  }
}

void PacketTraceLog::end_run(const jobs::RunContext& ctx) {
  if (auto* packet = dynamic_cast<network::PacketBackend*>(&ctx.backend)) {
    packet->set_packet_observer(nullptr);
  }
  backend_ = nullptr;
}

void PacketTraceLog::on_packet_event(const network::PacketEvent& e) {
  if (++rows_ > kMaxRows) {
    throw core::ResourceError(fmt::format(
        "--packet-trace: more than {} packet events; trace a smaller run (one size, fewer "
        "NPUs or bytes)",
        kMaxRows));
  }
  using K = network::PacketEvent::Kind;
  const char* kind = e.kind == K::Request ? "request" : e.kind == K::Grant ? "grant" : "credit";
  const std::string out_vc = e.out_vc == UINT32_MAX ? "sink" : fmt::format("{}", e.out_vc);
  if (e.kind == K::Credit) {
    csv_ += fmt::format("{},{:.3f},credit,,,{},,,{},{},\n", run_, e.at.ns(),
                        backend_->channel_name(e.channel), out_vc, e.flits);
    return;
  }
  csv_ += fmt::format("{},{:.3f},{},{},{},{},{},{},{},{},{}\n", run_, e.at.ns(), kind, e.packet,
                      e.message, backend_->channel_name(e.channel),
                      backend_->channel_name(e.in_channel), e.in_vc,
                      e.kind == K::Grant ? out_vc : "", e.flits,
                      e.kind == K::Grant ? fmt::format("{:.3f}", e.until.ns()) : "");
}

}  // namespace collsim::report
