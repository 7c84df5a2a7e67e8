#include "endpoint/bus_endpoint.hpp"

namespace collsim::endpoint {

BusEndpoint::BusEndpoint(core::Simulation& sim, network::Backend& backend,
                         const topology::Topology& topo, const EndpointParams& p,
                         core::Bandwidth reduce_rate)
    : sim_(sim), p_(p), backend_(backend) {
  const LogGP bus{p.bus_latency, p.bus_overhead, p.bus_gap};
  const std::size_t n = topo.num_npus();
  memory_.assign(n, Bus(p.npu_memory_bandwidth, bus));
  nic_tx_.assign(n, Bus(p.npu_nic_bandwidth, bus));
  nic_rx_.assign(n, Bus(p.npu_nic_bandwidth, bus));
  reduce_.assign(n, Bus(reduce_rate, LogGP{}));
}

void BusEndpoint::send(const Message& m, network::DeliveryHandler& h, std::uint64_t tag) {
  const std::uint32_t slot = flights_.acquire();
  if (slot >= arrived_.size()) arrived_.resize(slot + 1);
  arrived_[slot] = false;
  flights_[slot] = Flight{m, &h, tag, 0, false, false, {}};
  send_step(slot, flights_[slot]);
}

core::Time BusEndpoint::use(Resource r, topology::NodeId npu, core::Bytes bytes) {
  const core::Time now = sim_.now();
  Bus& bus = r == Resource::Memory  ? memory_[npu]
             : r == Resource::NicTx ? nic_tx_[npu]
             : r == Resource::NicRx ? nic_rx_[npu]
                                    : reduce_[npu];
  const Grant g = bus.reserve(now, bytes);
  if (r == Resource::Reduce) {
    ++stats_.reductions;
    stats_.reduction += g.done - now;
  } else {
    ++stats_.bus_transfers;
    stats_.bus_queuing += g.queued;
    stats_.bus_transfer += g.transfer;
  }
  return g.done;
}

void BusEndpoint::wait(std::uint32_t slot, Resource r, topology::NodeId npu, core::Bytes bytes) {
  ++flights_[slot].step;
  sim_.schedule_at(use(r, npu, bytes), *this, slot);
}

void BusEndpoint::to_network(std::uint32_t slot) {
  Flight& f = flights_[slot];
  const core::Time delay = source_delay(p_);
  f.net_start = sim_.now() + delay;
  if (delay > core::Time{}) {
    // Continue at send_step with the overhead paid: a step the models never use.
    f.step = 0xff;
    sim_.schedule_in(delay, *this, slot);
    return;
  }
  backend_.send(f.m.src, f.m.dst, wire_bytes(f.m.bytes, p_.link_efficiency), *this, slot,
                f.m.attrs);
}

void BusEndpoint::delivered(std::uint32_t slot) { tell_executor(slot, false); }

void BusEndpoint::on_injected(std::uint64_t tag) {
  tell_executor(static_cast<std::uint32_t>(tag), true);
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
  ++stats_.messages;
  stats_.network += sim_.now() - f.net_start;
  arrived_[slot] = true;
  f.step = 0;
  arrive_step(slot, f);
}

void BusEndpoint::on_event(std::uint64_t tag) {
  if (tag & kStagingBit) {
    staging_step(static_cast<std::uint32_t>(tag & ~kStagingBit));
    return;
  }
  const auto slot = static_cast<std::uint32_t>(tag);
  Flight& f = flights_[slot];
  if (f.step == 0xff && !arrived_[slot]) {  // the message overhead is paid
    backend_.send(f.m.src, f.m.dst, wire_bytes(f.m.bytes, p_.link_efficiency), *this, slot,
                  f.m.attrs);
    return;
  }
  if (arrived_[slot]) {
    arrive_step(slot, f);
  } else {
    send_step(slot, f);
  }
}

// TX DMA: memory -> NPU-memory bus -> NPU-NIC bus -> the engine; RX DMA the other way.
void BusEndpoint::stage_in(topology::NodeId npu, core::Bytes b, StagingHandler& h,
                           std::uint64_t tag) {
  const std::uint32_t slot = staging_.acquire();
  staging_[slot] = Staging{npu, b, &h, tag, false, 0};
  staging_step(slot);
}

void BusEndpoint::stage_out(topology::NodeId npu, core::Bytes b, StagingHandler& h,
                            std::uint64_t tag) {
  const std::uint32_t slot = staging_.acquire();
  staging_[slot] = Staging{npu, b, &h, tag, true, 0};
  staging_step(slot);
}

void BusEndpoint::staging_step(std::uint32_t slot) {
  Staging& s = staging_[slot];
  if (s.step == 2) {
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
  sim_.schedule_at(use(r, s.npu, s.bytes), *this, slot | kStagingBit);
}

}  // namespace collsim::endpoint
