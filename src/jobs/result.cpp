#include "jobs/result.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace collsim::jobs {

std::vector<std::vector<double>> activity_series(
    const std::vector<std::vector<std::pair<core::Time, core::Time>>>& busy, core::Time span,
    core::Time window) {
  if (window.ps <= 0) throw core::InputError("--activity-window: must be a positive time");
  const std::int64_t w = window.ps;
  const std::size_t n = span.ps > 0 ? static_cast<std::size_t>((span.ps + w - 1) / w) : 0;
  std::vector<std::vector<double>> out;
  for (auto intervals : busy) {
    std::sort(intervals.begin(), intervals.end());
    std::vector<std::int64_t> covered(n, 0);
    std::int64_t reach = 0;
    for (const auto& [b, e] : intervals) {  // the union, spread over the windows it crosses
      std::int64_t from = std::max(b.ps, reach);
      const std::int64_t to = std::min(e.ps, span.ps);
      reach = std::max(reach, e.ps);
      while (from < to) {
        const auto k = static_cast<std::size_t>(from / w);
        const std::int64_t stop = std::min(to, static_cast<std::int64_t>(k + 1) * w);
        covered[k] += stop - from;
        from = stop;
      }
    }
    std::vector<double> share(n);
    for (std::size_t k = 0; k < n; ++k) {
      const std::int64_t len = std::min<std::int64_t>(w, span.ps - static_cast<std::int64_t>(k) * w);
      share[k] = static_cast<double>(covered[k]) / static_cast<double>(len);
    }
    out.push_back(std::move(share));
  }
  return out;
}

void derive_bandwidths(ResultRow& row) {
  const double seconds = row.time.seconds();
  row.algbw_GBps = seconds > 0 ? static_cast<double>(row.size.count) / seconds / 1e9 : 0.0;
  row.busbw_GBps =
      row.algbw_GBps * collective::busbw_factor(row.collective, row.ranks ? row.ranks : row.npus);
}

void fill_link_metrics(ResultRow& row, const topology::Topology& topo,
                       const std::vector<network::LinkStats>& stats, std::uint32_t busiest,
                       const std::vector<network::Resource>& resources,
                       std::vector<LinkUse>* all) {
  const double seconds = row.time.seconds();
  const auto& links = topo.links();
  row.dim_utilization.assign(topo.dimensions().empty() ? 1 : topo.dimensions().size(), 0.0);
  if (seconds <= 0) return;
  std::vector<double> dim_bytes(row.dim_utilization.size(), 0), dim_capacity(dim_bytes.size(), 0);
  std::vector<LinkUse> uses;
  uses.reserve(links.size());
  for (std::size_t l = 0; l < links.size() && l < stats.size(); ++l) {
    const double capacity = links[l].bandwidth.bytes_per_s * seconds;
    const double u = static_cast<double>(stats[l].bytes) / capacity;
    const std::uint32_t d = std::min<std::uint32_t>(links[l].dim, dim_bytes.size() - 1);
    dim_bytes[d] += static_cast<double>(stats[l].bytes);
    dim_capacity[d] += capacity;
    row.max_link_utilization = std::max(row.max_link_utilization, u);
    uses.push_back(LinkUse{"link", static_cast<topology::LinkId>(l), links[l].src, links[l].dst,
                           links[l].dim, stats[l].bytes, stats[l].busy, u});
  }
  // A NIC slower than its links is the bottleneck the links' figures hide.
  for (std::size_t i = 0; i < resources.size() && links.size() + i < stats.size(); ++i) {
    const network::LinkStats& s = stats[links.size() + i];
    const network::Resource& r = resources[i];
    const double u = static_cast<double>(s.bytes) / (r.capacity.bytes_per_s * seconds);
    row.max_link_utilization = std::max(row.max_link_utilization, u);
    uses.push_back(LinkUse{r.kind, static_cast<topology::LinkId>(links.size() + i), r.npu, r.npu,
                           0, s.bytes, s.busy, u});
  }
  for (std::size_t d = 0; d < dim_bytes.size(); ++d) {
    row.dim_utilization[d] = dim_capacity[d] > 0 ? dim_bytes[d] / dim_capacity[d] : 0.0;
  }
  // Weights: one NPU's bandwidth per dimension (a switch dimension's NPU->switch links; the
  // switch->NPU links carry the same bytes and count in dim_utilization's ratio only).
  std::vector<double> weight(dim_bytes.size(), 0);
  if (topo.num_npus() > 0) {
    for (topology::LinkId l : topo.out_links(0)) {
      weight[std::min<std::uint32_t>(links[l].dim, weight.size() - 1)] +=
          links[l].bandwidth.bytes_per_s;
    }
  }
  double num = 0, den = 0;
  for (std::size_t d = 0; d < weight.size(); ++d) {
    num += weight[d] * row.dim_utilization[d];
    den += weight[d];
  }
  row.bw_utilization = den > 0 ? num / den : 0.0;
  if (all != nullptr) *all = uses;  // in link id order, as built
  const std::size_t k = std::min<std::size_t>(busiest, uses.size());
  std::partial_sort(uses.begin(), uses.begin() + static_cast<std::ptrdiff_t>(k), uses.end(),
                    [](const LinkUse& a, const LinkUse& b) {
                      return a.utilization != b.utilization ? a.utilization > b.utilization
                                                            : a.link < b.link;
                    });
  uses.resize(k);
  row.busiest_links = std::move(uses);
}

}  // namespace collsim::jobs
