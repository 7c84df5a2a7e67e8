#include "endpoint/bus_endpoint.hpp"

#include <algorithm>

namespace collsim::endpoint {

BusEndpoint::BusEndpoint(core::Simulation& sim, network::Backend& backend,
                         const topology::Topology& topo, const EndpointParams& p,
                         core::Bandwidth reduce_rate, core::Bytes bus_message,
                         core::Bytes stage_out_message)
    : sim_(sim),
      p_(p),
      bus_message_(bus_message_or(p, bus_message)),
      stage_out_message_(bus_message_or(p, stage_out_message)),
      backend_(backend),
      topo_(topo) {
  const LogGP bus{p.bus_latency, p.bus_overhead, p.bus_gap};
  const std::size_t n = topo.num_npus();
  memory_.assign(n, Bus(p.npu_memory_bandwidth, bus));
  nic_tx_.assign(n, Bus(p.npu_nic_bandwidth, bus));
  if (!p.npu_nic_half_duplex) nic_rx_.assign(n, Bus(p.npu_nic_bandwidth, bus));
  reduce_.assign(n, Bus(reduce_rate, LogGP{}));
}

std::uint32_t BusEndpoint::pieces(core::Bytes b, core::Bytes message) const {
  const std::uint64_t m = message.count;
  if (m == 0 || b.count <= m) return 1;
  return static_cast<std::uint32_t>(std::min<std::uint64_t>((b.count + m - 1) / m, UINT32_MAX));
}

void BusEndpoint::send(const Message& m, network::DeliveryHandler& h, std::uint64_t tag) {
  const std::uint32_t slot = flights_.acquire();
  if (slot >= arrived_.size()) arrived_.resize(slot + 1);
  arrived_[slot] = false;
  const core::Time now = sim_.now();
  flights_[slot] = Flight{m, &h, tag, 0, false, false, pieces(m.bytes), now, now, {}, now};
  send_step(slot, flights_[slot]);
}

Grant BusEndpoint::use(Resource r, topology::NodeId npu, core::Time first, core::Time last,
                       std::uint32_t n, core::Bytes bytes) {
  Bus& bus = r == Resource::Memory  ? memory_[npu]
             : r == Resource::NicTx ? nic_tx_[npu]
             : r == Resource::NicRx ? (nic_rx_.empty() ? nic_tx_[npu] : nic_rx_[npu])
                                    : reduce_[npu];
  const core::Bytes piece{(bytes.count + n - 1) / n};
  const Grant g = bus.reserve_run(first, last, n, piece);
  if (r == Resource::Reduce) {
    stats_.reductions += n;
    stats_.reduction += g.queued + g.transfer;
  } else {
    stats_.bus_transfers += n;
    stats_.bus_queuing += g.queued;
    stats_.bus_transfer += g.transfer;
  }
  return g;
}

void BusEndpoint::wait(std::uint32_t slot, Resource r, topology::NodeId npu, core::Bytes bytes) {
  Flight& f = flights_[slot];
  ++f.step;
  const Grant g = use(r, npu, f.first, f.last, f.pieces, bytes);
  f.first = g.first_done;
  f.last = g.done;
  if (r == Resource::NicTx) f.tx_last = g.done;
  sim_.schedule_at(std::max(sim_.now(), g.first_done), *this, slot);
}

void BusEndpoint::to_network(std::uint32_t slot) {
  Flight& f = flights_[slot];
  const core::Time delay = source_delay(p_);
  f.net_start = sim_.now() + delay;
  f.tx_last = std::max(f.tx_last, f.last) + delay;
  if (delay > core::Time{}) {
    // Continue at send_step with the overhead paid: a step the models never use.
    f.step = kOverheadStep;
    sim_.schedule_in(delay, *this, slot);
    return;
  }
  send_to_backend(slot);
}

void BusEndpoint::send_to_backend(std::uint32_t slot) {
  const Flight& f = flights_[slot];
  backend_.send(f.m.src, f.m.dst, wire_bytes(f.m.bytes, p_.link_efficiency), *this, slot,
                f.m.attrs);
}

void BusEndpoint::delivered(std::uint32_t slot) {
  Flight& f = flights_[slot];
  if (f.last > sim_.now()) {
    f.step = kDoneStep;
    sim_.schedule_at(f.last, *this, slot);
    return;
  }
  tell_executor(slot, false);
}

// The channel is free once the network has taken the message and its last bus message is
// across the NPU-NIC bus.
void BusEndpoint::on_injected(std::uint64_t tag) {
  const auto slot = static_cast<std::uint32_t>(tag);
  const core::Time free = flights_[slot].tx_last;
  if (free > sim_.now()) {
    sim_.schedule_at(free, *this, slot | kInjectedBit);
    return;
  }
  tell_executor(slot, true);
}

// The slot is free once the executor has heard both; it may reuse its tag from inside the call.
void BusEndpoint::tell_executor(std::uint32_t slot, bool injected) {
  Flight& f = flights_[slot];
  (injected ? f.injected : f.delivered) = true;
  network::DeliveryHandler* h = f.h;
  const std::uint64_t tag = f.tag;
  if (f.injected && f.delivered) flights_.release(slot);
  if (injected) {
    h->on_injected(tag);
  } else {
    h->on_delivered(tag);
  }
}

void BusEndpoint::on_delivered(std::uint64_t tag) {
  const auto slot = static_cast<std::uint32_t>(tag);
  Flight& f = flights_[slot];
  const core::Time now = sim_.now();
  ++stats_.messages;
  stats_.network += now - f.net_start;
  // The bus messages reach the destination evenly over [start + path latency, now]; the last
  // one no sooner than its share after it left the NPU-NIC bus.
  route_.clear();
  topo_.route(f.m.src, f.m.dst, route_, f.m.attrs.path);
  core::Time latency;
  for (topology::LinkId l : route_) latency += topo_.links()[l].latency;
  latency = std::min(latency, now - f.net_start);
  const core::Time share =
      core::Time::from_ps((now - f.net_start - latency).ps / static_cast<std::int64_t>(f.pieces));
  f.first = f.net_start + latency + share;
  f.last = std::max(now, f.tx_last + latency + share);
  arrived_[slot] = true;
  f.step = 0;
  arrive_step(slot, f);
}

void BusEndpoint::on_event(std::uint64_t tag) {
  if (tag & kStagingBit) {
    staging_step(static_cast<std::uint32_t>(tag & ~kStagingBit));
    return;
  }
  if (tag & kInjectedBit) {
    tell_executor(static_cast<std::uint32_t>(tag & ~kInjectedBit), true);
    return;
  }
  const auto slot = static_cast<std::uint32_t>(tag);
  Flight& f = flights_[slot];
  if (f.step == kOverheadStep && !arrived_[slot]) {  // the message overhead is paid
    send_to_backend(slot);
    return;
  }
  if (f.step == kDoneStep && arrived_[slot]) {
    tell_executor(slot, false);
    return;
  }
  if (arrived_[slot]) {
    arrive_step(slot, f);
  } else {
    send_step(slot, f);
  }
}

// TX DMA: memory -> NPU-memory bus -> NPU-NIC bus -> the engine; RX DMA the other way. In bus
// messages, pipelined like a message's steps.
void BusEndpoint::stage_in(topology::NodeId npu, core::Bytes b, StagingHandler& h,
                           std::uint64_t tag) {
  const std::uint32_t slot = staging_.acquire();
  const core::Time now = sim_.now();
  staging_[slot] = Staging{npu, b, &h, tag, false, 0, pieces(b), now, now};
  staging_step(slot);
}

void BusEndpoint::stage_out(topology::NodeId npu, core::Bytes b, StagingHandler& h,
                            std::uint64_t tag) {
  const std::uint32_t slot = staging_.acquire();
  const core::Time now = sim_.now();
  staging_[slot] = Staging{npu, b, &h, tag, true, 0, pieces(b, stage_out_message_), now, now};
  if (free_stage_out_) {
    staging_[slot].step = 2;
    sim_.schedule_at(now, *this, slot | kStagingBit);
    return;
  }
  staging_step(slot);
}

void BusEndpoint::staging_step(std::uint32_t slot) {
  Staging& s = staging_[slot];
  if (s.step == 2 && s.last > sim_.now()) {
    s.step = 3;
    sim_.schedule_at(s.last, *this, slot | kStagingBit);
    return;
  }
  if (s.step >= 2) {
    StagingHandler* h = s.h;
    const std::uint64_t tag = s.tag;
    staging_.release(slot);
    ++stats_.staged;
    h->on_staged(tag);
    return;
  }
  const bool memory_first = !s.out;
  const Resource r = (s.step == 0) == memory_first ? Resource::Memory
                     : s.out                       ? Resource::NicRx
                                                   : Resource::NicTx;
  ++s.step;
  const Grant g = use(r, s.npu, s.first, s.last, s.pieces, s.bytes);
  s.first = g.first_done;
  s.last = g.done;
  sim_.schedule_at(std::max(sim_.now(), g.first_done), *this, slot | kStagingBit);
}

}  // namespace collsim::endpoint
