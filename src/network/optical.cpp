#include "network/optical.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <stdexcept>

#include "core/error.hpp"
#include "network/backend.hpp"

namespace collsim::network {
namespace {

constexpr std::uint64_t kInjected = 0;
constexpr std::uint64_t kDelivered = 1;
constexpr topology::LinkId kNone = std::numeric_limits<topology::LinkId>::max();

const topology::OpticalSpec& optical_spec(const topology::Topology& topo) {
  const topology::OpticalSpec* o = topo.optical();
  if (o == nullptr || topo.dimensions().size() != 1 ||
      topo.dimensions()[0].spec.kind != topology::DimKind::Ring || topo.num_switches() != 0) {
    throw core::InputError(fmt::format(
        "backend: the optical backend needs an optical ring topology (optical-ring:N), got {}",
        topo.name()));
  }
  return *o;
}

}  // namespace

OpticalBackend::OpticalBackend(core::Simulation& sim, const topology::Topology& topo,
                               const BackendOptions& options)
    : Backend(topo),
      sim_(sim),
      topo_(topo),
      wavelengths_(optical_spec(topo).wavelengths),
      wavelength_bandwidth_(optical_spec(topo).wavelength_bandwidth),
      best_fit_(options.optical.assignment == WavelengthAssignment::BestFit),
      setup_(options.optical.setup),
      max_tx_(options.optical.transmitters.value_or(0)),
      max_rx_(options.optical.receivers.value_or(0)),
      words_((wavelengths_ + 63) / 64) {
  const auto& links = topo.links();
  used_.assign(links.size() * words_, 0);
  active_.assign(links.size(), 0);
  busy_since_.assign(links.size(), core::Time{});
  next_.assign(links.size(), kNone);
  prev_.assign(links.size(), kNone);
  link_stats_.assign(links.size(), LinkStats{});
  tx_.assign(topo.num_npus(), 0);
  rx_.assign(topo.num_npus(), 0);
  segment_waiters_.resize(links.size());
  if (max_tx_ != 0) tx_waiters_.resize(topo.num_npus());
  if (max_rx_ != 0) rx_waiters_.resize(topo.num_npus());
  // A segment continues on the same waveguide into the out-link of its head that does not turn
  // back (on a 2-node ring each waveguide is a single segment: no neighbours).
  if (topo.num_npus() >= 3) {
    for (topology::LinkId l = 0; l < links.size(); ++l) {
      for (topology::LinkId o : topo.out_links(links[l].dst)) {
        if (links[o].dst != links[l].src) next_[l] = o;
      }
      for (topology::LinkId i : topo.in_links(links[l].src)) {
        if (links[i].src != links[l].dst) prev_[l] = i;
      }
    }
  }
}

void OpticalBackend::set_used(topology::LinkId l, std::uint32_t w, bool on) {
  std::uint64_t& word = used_[l * words_ + w / 64];
  const std::uint64_t bit = std::uint64_t{1} << (w % 64);
  word = on ? (word | bit) : (word & ~bit);
}

std::uint32_t OpticalBackend::free_gap(const std::vector<topology::LinkId>& arc,
                                       std::uint32_t w) const {
  // Walk away from both ends while the wavelength stays free; the whole ring bounds the walk.
  const auto limit = static_cast<std::uint32_t>(topo_.links().size() / 2);
  std::uint32_t gap = 0;
  for (topology::LinkId l = next_[arc.back()]; l != kNone && gap < limit && !used(l, w);
       l = next_[l]) {
    ++gap;
  }
  for (topology::LinkId l = prev_[arc.front()]; l != kNone && gap < limit && !used(l, w);
       l = prev_[l]) {
    ++gap;
  }
  return gap;
}

int OpticalBackend::choose_wavelength(const std::vector<topology::LinkId>& arc,
                                      std::uint16_t wanted) const {
  if (wanted != MessageAttributes::kAnyWavelength) {
    for (topology::LinkId l : arc) {
      if (used(l, wanted)) return -1;
    }
    return wanted;
  }
  int best = -1;
  std::uint32_t best_gap = std::numeric_limits<std::uint32_t>::max();
  for (std::uint32_t word = 0; word < words_; ++word) {
    std::uint64_t busy = 0;
    for (topology::LinkId l : arc) busy |= used_[l * words_ + word];
    std::uint64_t free = ~busy;
    while (free != 0) {
      const std::uint32_t w = word * 64 + static_cast<std::uint32_t>(std::countr_zero(free));
      if (w >= wavelengths_) break;
      free &= free - 1;
      if (!best_fit_) return static_cast<int>(w);
      const std::uint32_t gap = free_gap(arc, w);
      if (gap < best_gap) {
        best_gap = gap;
        best = static_cast<int>(w);
        if (gap == 0) return best;
      }
    }
  }
  return best;
}

void OpticalBackend::choose_tie_direction(std::vector<topology::LinkId>& arc) {
  // Halfway round both arcs are shortest: take the less loaded one (the most lightpaths on one
  // of its segments), so that ties split between the waveguides as the all-to-all bound of
  // WRHT's ref. 9 assumes; on equal load keep the topology's tie rule.
  const auto& links = topo_.links();
  alt_arc_.clear();
  for (topology::LinkId o : topo_.out_links(links[arc.front()].src)) {
    if (o != arc.front()) alt_arc_.push_back(o);
  }
  while (alt_arc_.size() < arc.size()) alt_arc_.push_back(next_[alt_arc_.back()]);
  auto load = [&](const std::vector<topology::LinkId>& a) {
    std::uint32_t m = 0;
    for (topology::LinkId l : a) m = std::max(m, active_[l]);
    return m;
  };
  if (load(alt_arc_) < load(arc)) arc.swap(alt_arc_);
}

void OpticalBackend::transmit(topology::NodeId src, topology::NodeId dst, core::Bytes bytes,
                              const MessageAttributes& attrs, DeliveryHandler& handler,
                              std::uint64_t tag) {
  if (attrs.wavelength != MessageAttributes::kAnyWavelength && attrs.wavelength >= wavelengths_) {
    throw std::invalid_argument(
        fmt::format("optical backend: wavelength {} of {} -> {} is not "
                    "one of the {} wavelengths",
                    attrs.wavelength, src, dst, wavelengths_));
  }
  const std::uint32_t slot = slots_.acquire();
  Slot& s = slots_[slot];
  s.handler = &handler;
  s.tag = tag;
  s.bytes = bytes;
  s.src = src;
  s.dst = dst;
  s.wanted = attrs.wavelength;
  s.requested = sim_.now();
  s.wait_seq = 0;
  s.arc.clear();
  topo_.route(src, dst, s.arc);
  if (2 * s.arc.size() == topo_.links().size() / 2 && next_[s.arc.front()] != kNone) {
    choose_tie_direction(s.arc);
  }
  if (!try_start(slot)) {
    add_waiter(slot);
    ++waits_;
  }
}

void OpticalBackend::add_waiter(std::uint32_t slot) {
  Slot& s = slots_[slot];
  s.wait_seq = ++wait_seq_;
  ++waiting_;
  const Waiter w{slot, s.wait_seq};
  for (topology::LinkId l : s.arc) segment_waiters_[l].push_back(w);
  if (max_tx_ != 0) tx_waiters_[s.src].push_back(w);
  if (max_rx_ != 0) rx_waiters_[s.dst].push_back(w);
}

void OpticalBackend::retry_waiters(std::uint32_t slot) {
  const Slot& ended = slots_[slot];
  candidates_.clear();
  // Collect the live waiters of a list, dropping the stale ones from it.
  auto collect = [this](std::vector<Waiter>& list) {
    std::size_t kept = 0;
    for (const Waiter& w : list) {
      if (slots_[w.slot].wait_seq != w.seq) continue;
      list[kept++] = w;
      candidates_.push_back(w);
    }
    list.resize(kept);
  };
  for (topology::LinkId l : ended.arc) collect(segment_waiters_[l]);
  if (max_tx_ != 0) collect(tx_waiters_[ended.src]);
  if (max_rx_ != 0) collect(rx_waiters_[ended.dst]);
  if (candidates_.empty()) return;
  // In arrival order, each once.
  std::sort(candidates_.begin(), candidates_.end(),
            [](const Waiter& a, const Waiter& b) { return a.seq < b.seq; });
  candidates_.erase(std::unique(candidates_.begin(), candidates_.end(),
                                [](const Waiter& a, const Waiter& b) { return a.seq == b.seq; }),
                    candidates_.end());
  for (const Waiter& w : candidates_) {
    if (try_start(w.slot)) {
      slots_[w.slot].wait_seq = 0;  // its other entries are stale now
      --waiting_;
    }
  }
}

bool OpticalBackend::try_start(std::uint32_t slot) {
  Slot& s = slots_[slot];
  if ((max_tx_ != 0 && tx_[s.src] >= max_tx_) || (max_rx_ != 0 && rx_[s.dst] >= max_rx_)) {
    return false;
  }
  const int w = choose_wavelength(s.arc, s.wanted);
  if (w < 0) return false;
  const core::Time now = sim_.now();
  s.wavelength = static_cast<std::uint16_t>(w);
  s.begin = now;
  core::Time propagation;
  for (topology::LinkId l : s.arc) {
    set_used(l, s.wavelength, true);
    if (active_[l]++ == 0) busy_since_[l] = now;
    peak_segment_ = std::max(peak_segment_, active_[l]);
    link_stats_[l].bytes += s.bytes.count;
    propagation += topo_.links()[l].latency;
  }
  peak_tx_ = std::max(peak_tx_, ++tx_[s.src]);
  peak_rx_ = std::max(peak_rx_, ++rx_[s.dst]);
  highest_wavelength_ = std::max(highest_wavelength_, s.wavelength + 1u);
  ++lightpaths_;
  const core::Time waited = now - s.requested;
  wait_total_ += waited;
  wait_max_ = std::max(wait_max_, waited);
  const core::Time sent = now + setup_ + core::transfer_time(s.bytes, wavelength_bandwidth_);
  sim_.schedule_at(sent, *this, std::uint64_t{slot} * 2 + kInjected);
  sim_.schedule_at(sent + propagation, *this, std::uint64_t{slot} * 2 + kDelivered);
  return true;
}

void OpticalBackend::on_event(std::uint64_t event) {
  const auto slot = static_cast<std::uint32_t>(event / 2);
  if (event % 2 == kInjected) {
    slots_[slot].handler->on_injected(slots_[slot].tag);  // may call send()
    return;
  }
  const core::Time now = sim_.now();
  {
    Slot& s = slots_[slot];
    // Release first, so that the waiters see the wavelength and transceivers free.
    for (topology::LinkId l : s.arc) {
      set_used(l, s.wavelength, false);
      if (--active_[l] == 0) {
        link_stats_[l].busy += now - busy_since_[l];
        if (link_observer_) link_observer_->on_link_busy(l, busy_since_[l], now);
      }
    }
    --tx_[s.src];
    --rx_[s.dst];
    if (lightpath_observer_) {
      lightpath_observer_->on_lightpath(
          Lightpath{s.src, s.dst, s.wavelength, s.requested, s.begin, now, &s.arc});
    }
  }
  DeliveryHandler* const handler = slots_[slot].handler;
  const std::uint64_t tag = slots_[slot].tag;
  // Waiting messages first, in arrival order, before the delivery can send new ones (the slot is
  // released after: a waiter started now must not reuse it while its arc is read).
  if (waiting_ != 0) retry_waiters(slot);
  slots_.release(slot);
  handler->on_delivered(tag);
}

std::vector<std::pair<std::string, double>> OpticalBackend::summary() const {
  return {{"lightpaths", double(lightpaths_)},
          {"peak_wavelengths_per_segment", double(peak_segment_)},
          {"highest_wavelength_used", double(highest_wavelength_)},
          {"wavelengths_available", double(wavelengths_)},
          {"lightpath_waits", double(waits_)},
          {"lightpath_wait_total_us", wait_total_.us()},
          {"lightpath_wait_max_us", wait_max_.us()},
          {"peak_transmitters_per_node", double(peak_tx_)},
          {"peak_receivers_per_node", double(peak_rx_)}};
}

std::string OpticalBackend::describe_blocked() const {
  if (waiting_ == 0) return {};
  // The first to arrive of those still waiting: every waiter is under its arc's segments.
  const Slot* first = nullptr;
  for (const auto& list : segment_waiters_) {
    for (const Waiter& w : list) {
      const Slot& s = slots_[w.slot];
      if (s.wait_seq == w.seq && (first == nullptr || w.seq < first->wait_seq)) first = &s;
    }
  }
  if (first == nullptr) return {};
  return fmt::format("{} lightpaths wait for a wavelength or transceiver, first {} -> {}",
                     waiting_, first->src, first->dst);
}

namespace {

constexpr std::string_view kAssignment[] = {"first-fit", "best-fit"};

std::vector<BackendParam> optical_params() {
  constexpr std::string_view kModels = "optical lightpaths";
  constexpr std::uint64_t kMax32 = std::numeric_limits<std::uint32_t>::max();
  return {
      {.spec = {.key = "wavelength_assignment",
                .type = ParamType::Choice,
                .choices = kAssignment,
                .description =
                    "which free wavelength a lightpath takes: first-fit (lowest) or best-fit "
                    "(shortest free gap around the arc)",
                .source = "WRHT Sec. 2, refs. 7 (First Fit) and 8 (Best Fit)"},
       .label = "",
       .models = kModels,
       .set =
           [](BackendOptions& o, const ParamValue& v) {
             o.optical.assignment =
                 static_cast<WavelengthAssignment>(std::get<ChoiceIndex>(v).index);
           },
       .get = [](const BackendOptions& o) -> std::optional<ParamValue> {
         return ChoiceIndex{static_cast<std::uint32_t>(o.optical.assignment)};
       }},
      {.spec = {.key = "lightpath_setup",
                .type = ParamType::Time,
                .min = 0,
                .max = std::uint64_t{1000} * 1000 * 1000 * 1000,  // 1 s
                .description = "set-up time of every lightpath (micro-ring tuning, O-E-O)",
                .source = "WRHT Sec. 2 (TeraRack); the value is collsim's assumption"},
       .label = "setup",
       .models = kModels,
       .set = [](BackendOptions& o,
                 const ParamValue& v) { o.optical.setup = std::get<core::Time>(v); },
       .get = [](const BackendOptions& o) -> std::optional<ParamValue> { return o.optical.setup; }},
      {.spec = {.key = "transmitters",
                .type = ParamType::Count,
                .unit = "lightpaths",
                .min = 1,
                .max = kMax32,
                .unset = "as many as asked",
                .description =
                    "lightpaths a node can source at once (tunable transmitters); more wait",
                .source = "TeraRack micro-ring transceivers (WRHT Sec. 2)"},
       .label = "tx",
       .models = kModels,
       .set = [](BackendOptions& o, const ParamValue& v) { o.optical.transmitters = as_u32(v); },
       .get = [](const BackendOptions& o) { return count_value(o.optical.transmitters); }},
      {.spec = {.key = "receivers",
                .type = ParamType::Count,
                .unit = "lightpaths",
                .min = 1,
                .max = kMax32,
                .unset = "as many as asked",
                .description = "lightpaths a node can sink at once (receivers); more wait",
                .source = "TeraRack micro-ring transceivers (WRHT Sec. 2)"},
       .label = "rx",
       .models = kModels,
       .set = [](BackendOptions& o, const ParamValue& v) { o.optical.receivers = as_u32(v); },
       .get = [](const BackendOptions& o) { return count_value(o.optical.receivers); }},
  };
}

}  // namespace

BackendInfo optical_info() {
  return {.name = "optical",
          .description =
              "lightpaths on an optical WDM ring (optical-ring:N): one wavelength per message "
              "along its arc, first-fit or best-fit assignment, waits when none is free, "
              "set-up + propagation + bytes / wavelength bandwidth (WRHT, TeraRack)",
          .params = optical_params(),
          .make = [](core::Simulation& sim, const topology::Topology& topo,
                     const BackendOptions& opt) -> std::unique_ptr<Backend> {
            return std::make_unique<OpticalBackend>(sim, topo, opt);
          }};
}

}  // namespace collsim::network
