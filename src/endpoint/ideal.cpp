// ACE's "ideal" endpoint (MICRO'20 Sec. 5): the NIC handles the collective in one cycle, so a
// message costs nothing at either end. With the calibration knobs at their defaults it hands
// the executor's own callbacks to the network.
#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "endpoint/bus_endpoint.hpp"
#include "endpoint/endpoint.hpp"

namespace collsim::endpoint {

core::Bytes wire_bytes(core::Bytes payload, double efficiency) {
  if (efficiency >= 1.0) return payload;
  return core::Bytes{
      static_cast<std::uint64_t>(std::ceil(static_cast<double>(payload.count) / efficiency))};
}

Ideal::Ideal(core::Simulation& sim, network::Backend& backend, const EndpointParams& p,
             const topology::Topology* topo)
    : sim_(sim), backend_(backend), p_(p), topo_(topo) {
  if (p_.link_fifo && topo_) links_.resize(topo_->links().size());
  if (!topo_) p_.link_fifo = p_.ideal_dma = false;
  if (p_.ideal_dma) dma_free_.assign(topo_->num_npus(), core::Time{});
}

void Ideal::stage_in(topology::NodeId npu, core::Bytes b, StagingHandler& h,
                     std::uint64_t tag) {
  const std::uint32_t slot = staged_.acquire();
  staged_[slot] = Staged{&h, tag};
  core::Time& free = dma_free_[npu];
  free = std::max(free, sim_.now()) + core::transfer_time(b, p_.npu_nic_bandwidth);
  sim_.schedule_at(free, *this, slot | kStagingBit);
}

void Ideal::stage_out(topology::NodeId, core::Bytes, StagingHandler& h, std::uint64_t tag) {
  const std::uint32_t slot = staged_.acquire();
  staged_[slot] = Staged{&h, tag};
  sim_.schedule_in(core::Time{}, *this, slot | kStagingBit);
}

// Events: (slot << 1) | 0 goes on after the source delay; (slot << 1) | 1 hands a delivered
// reduction over once its aggregation is done; kStagingBit | slot ends a copy (ideal_dma).
void Ideal::send(const Message& m, network::DeliveryHandler& h, std::uint64_t tag) {
  const core::Time delay = source_delay(p_);
  if (delay == core::Time{} && !p_.link_fifo && !aggregates(m)) {
    backend_.send(m.src, m.dst, wire_bytes(m.bytes, p_.link_efficiency), h, tag, m.attrs);
    return;
  }
  const std::uint32_t slot = pending_.acquire();
  pending_[slot] = Pending{m, &h, tag};
  if (delay > core::Time{}) {
    sim_.schedule_in(delay, *this, std::uint64_t{slot} << 1);
    return;
  }
  enqueue(slot);
}

void Ideal::on_event(std::uint64_t event) {
  if (event & kStagingBit) {
    const auto slot = static_cast<std::uint32_t>(event & ~kStagingBit);
    const Staged s = staged_[slot];
    staged_.release(slot);
    s.h->on_staged(s.tag);
    return;
  }
  const auto slot = static_cast<std::uint32_t>(event >> 1);
  if ((event & 1) == 0) {
    enqueue(slot);
  } else {
    hand_over(slot);
  }
}

void Ideal::enqueue(std::uint32_t slot) {
  Pending& p = pending_[slot];
  if (!p_.link_fifo) {
    if (aggregates(p.m)) {
      transmit(slot);  // delivered through this endpoint, which adds the aggregation
      return;
    }
    const Pending q = p;
    pending_.release(slot);
    backend_.send(q.m.src, q.m.dst, wire_bytes(q.m.bytes, p_.link_efficiency), *q.h, q.tag,
                  q.m.attrs);
    return;
  }
  route_.clear();
  topo_->route(p.m.src, p.m.dst, route_, p.m.attrs.path);
  p.link = route_.front();
  LinkQueue& q = links_[p.link];
  if (q.busy) {
    (q.tail == kNone ? q.head : pending_[q.tail].next) = slot;
    q.tail = slot;
    return;
  }
  q.busy = true;
  transmit(slot);
}

void Ideal::transmit(std::uint32_t slot) {
  const Pending& p = pending_[slot];
  backend_.send(p.m.src, p.m.dst, wire_bytes(p.m.bytes, p_.link_efficiency), *this, slot,
                p.m.attrs);
}

// The message left its source: with link_fifo the next message of its link goes.
void Ideal::on_injected(std::uint64_t tag) {
  const auto slot = static_cast<std::uint32_t>(tag);
  Pending& p = pending_[slot];
  p.injected = true;
  network::DeliveryHandler* h = p.h;
  const std::uint64_t t = p.tag;
  const std::uint32_t link = p.link;
  if (p.delivered) pending_.release(slot);
  if (p_.link_fifo) {
    LinkQueue& q = links_[link];
    if (q.head != kNone) {
      const std::uint32_t next = q.head;
      q.head = pending_[next].next;
      if (q.head == kNone) q.tail = kNone;
      transmit(next);
    } else {
      q.busy = false;
    }
  }
  h->on_injected(t);
}

// The MultiTree authors' cycle model: ceil(ceil(D / vaults) / pe) x vaults cycles for D
// parameters, after the NPU's earlier aggregations.
void Ideal::on_delivered(std::uint64_t tag) {
  const auto slot = static_cast<std::uint32_t>(tag);
  const Pending& p = pending_[slot];
  if (!aggregates(p.m)) return hand_over(slot);
  if (p_.aggregation_pe == 0) {
    // ASTRA-sim 2.x: one write and two reads, each a whole number of ns; no queue.
    const std::int64_t pass = static_cast<std::int64_t>(p.m.bytes.count / p_.local_mem_gbps);
    sim_.schedule_in(core::Time::from_ns(3 * pass), *this, (std::uint64_t{slot} << 1) | 1);
    return;
  }
  const std::uint64_t params =
      (p.m.bytes.count + p_.aggregation_param_bytes.count - 1) / p_.aggregation_param_bytes.count;
  const std::uint64_t vaults = p_.aggregation_vaults;
  const std::uint64_t cycles =
      ((params + vaults - 1) / vaults + p_.aggregation_pe - 1) / p_.aggregation_pe * vaults;
  const core::Time cost = core::Time::from_ps(static_cast<std::int64_t>(
      std::llround(static_cast<double>(cycles) * 1e12 / p_.aggregation_clock_hz)));
  if (aggregator_free_.size() <= p.m.dst) aggregator_free_.resize(p.m.dst + 1);
  core::Time& free = aggregator_free_[p.m.dst];
  free = std::max(free, sim_.now()) + cost;
  sim_.schedule_at(free, *this, (std::uint64_t{slot} << 1) | 1);
}

// The message is usable at its destination: the executor hears of it.
void Ideal::hand_over(std::uint32_t slot) {
  Pending& p = pending_[slot];
  p.delivered = true;
  network::DeliveryHandler* h = p.h;
  const std::uint64_t t = p.tag;
  if (p.injected) pending_.release(slot);
  h->on_delivered(t);
}

namespace {

std::unique_ptr<Endpoint> make_pass_through(core::Simulation& sim, network::Backend& b,
                                            const topology::Topology& t, const EndpointParams& p) {
  return std::make_unique<Ideal>(sim, b, p, &t);
}

bool pass_through_independent(const EndpointParams& p) {
  return !p.link_fifo && !p.ideal_dma && p.aggregation_pe == 0;
}

}  // namespace

EndpointInfo none_info() {
  return {"none",
          "no endpoint model (the default): a message is on the wire when the executor sends it "
          "and usable when its last byte arrives; the calibration knobs, link_fifo and "
          "aggregation_pe still apply",
          "the network-only setting of the MultiTree, switch-FC, Themis and WRHT papers",
          make_pass_through, nullptr, pass_through_independent};
}

EndpointInfo ideal_info() {
  return {"ideal",
          "ACE's upper bound: ACE's engine and schedule (its chunks, SRAM and state-machine "
          "admission, TX DMA) with reductions done on arrival and no RX DMA "
          "(ideal_engine: false gives the pass-through of `none`, with ideal_dma / ideal_chunk)",
          "ACE (MICRO'20) Sec. 5, the \"Ideal\" system (unlimited NIC resources, no endpoint "
          "latency)",
          [](core::Simulation& sim, network::Backend& b, const topology::Topology& t,
             const EndpointParams& p) -> std::unique_ptr<Endpoint> {
            if (!p.ideal_engine) return make_pass_through(sim, b, t, p);
            if (p.link_fifo || p.ideal_dma || p.ideal_chunk.count != 0 ||
                p.aggregation_pe != 0 || p.local_mem_gbps != 0) {
              throw core::InputError(
                  "endpoint_params: the ideal endpoint runs ACE's engine (ideal_engine, on by "
                  "default), which cannot be combined with link_fifo, ideal_dma, ideal_chunk, "
                  "aggregation_pe or local_mem_gbps; set ideal_engine: false for the "
                  "pass-through, or use the endpoint `none`");
            }
            return make_ace_engine(sim, b, t, p, true);
          },
          nullptr,
          [](const EndpointParams& p) { return !p.ideal_engine && pass_through_independent(p); },
          [](const EndpointParams& p) { return p.ideal_engine ? p.ace_chunk : core::Bytes{}; }};
}

}  // namespace collsim::endpoint
