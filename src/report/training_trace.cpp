#include "report/training_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace collsim::report {
namespace {

double us(core::Time t) { return static_cast<double>(t.ps) / 1e6; }

}  // namespace

std::string render_training_trace(const std::vector<jobs::TrainingRow>& rows,
                                  const std::vector<const workload::Workload*>& workloads) {
  using nlohmann::ordered_json;
  using jobs::TimelineSlice;
  ordered_json events = ordered_json::array();
  auto meta = [&](int pid, int tid, const char* what, const std::string& name) {
    ordered_json e = {{"ph", "M"}, {"pid", pid}};
    if (tid >= 0) e["tid"] = tid;
    e["name"] = what;
    e["args"] = {{"name", name}};
    events.push_back(std::move(e));
  };
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const jobs::TrainingRow& row = rows[r];
    const workload::Workload& w = *workloads[r];
    const int pid = static_cast<int>(r) + 1;
    meta(pid, -1, "process_name",
         fmt::format("{} on {}: {} / {} / overlap {}", row.workload, row.platform, row.algorithm,
                     row.backend, row.overlap));
    meta(pid, 1, "thread_name", "compute");
    meta(pid, 2, "thread_name", "waiting");
    // Collective tracks: greedy first-free assignment in start order.
    std::vector<const TimelineSlice*> colls;
    for (const auto& s : row.result.timeline) {
      if (s.kind == TimelineSlice::Kind::Collective) colls.push_back(&s);
    }
    std::stable_sort(
        colls.begin(), colls.end(),
        [](const TimelineSlice* a, const TimelineSlice* b) { return a->begin < b->begin; });
    std::vector<core::Time> track_free;
    auto slice = [&](int tid, const std::string& name, const TimelineSlice& s, ordered_json args) {
      events.push_back({{"ph", "X"},
                        {"pid", pid},
                        {"tid", tid},
                        {"name", name},
                        {"ts", us(s.begin)},
                        {"dur", us(s.end - s.begin)},
                        {"args", std::move(args)}});
    };
    for (const TimelineSlice* s : colls) {
      std::size_t t = 0;
      while (t < track_free.size() && track_free[t] > s->begin) ++t;
      if (t == track_free.size()) {
        track_free.push_back(s->end);
        meta(pid, 3 + static_cast<int>(t), "thread_name", fmt::format("collectives {}", t + 1));
      } else {
        track_free[t] = s->end;
      }
      const auto& c = w.layers[s->layer].comm[static_cast<std::size_t>(s->pass)];
      slice(3 + static_cast<int>(t),
            fmt::format("{} {} {}", w.layers[s->layer].name, workload::to_string(s->pass),
                        collective::to_string(*c.collective)),
            *s, {{"bytes", c.size.count}, {"scope", workload::to_string(c.scope)}});
    }
    // Chunk-stages of hierarchical collectives: a track per dimension and place (active_chunks).
    std::vector<std::pair<std::uint32_t, std::uint32_t>> places;  // (dim, slot) -> track
    for (const scheduler::StageInfo& st : row.result.stages) {
      const auto key = std::make_pair(st.dim, st.slot);
      auto it = std::find(places.begin(), places.end(), key);
      if (it == places.end()) {
        places.push_back(key);
        it = places.end() - 1;
      }
      const int tid = 100 + static_cast<int>(it - places.begin());
      events.push_back(
          {{"ph", "X"},
           {"pid", pid},
           {"tid", tid},
           {"name", fmt::format("chunk {} {}", st.chunk, collective::to_string(st.op))},
           {"ts", us(st.begin)},
           {"dur", us(st.end - st.begin)},
           {"args", {{"bytes_per_npu", st.bytes}}}});
    }
    for (std::size_t i = 0; i < places.size(); ++i) {
      meta(pid, 100 + static_cast<int>(i), "thread_name",
           places[i].second == 0
               ? fmt::format("dim{}", places[i].first)
               : fmt::format("dim{} place {}", places[i].first, places[i].second + 1));
    }
    for (const auto& s : row.result.timeline) {
      const std::string& layer = w.layers[s.layer].name;
      if (s.kind == TimelineSlice::Kind::Compute) {
        slice(1, s.update ? layer + " update" : layer + " " + workload::to_string(s.pass), s,
              ordered_json::object());
      } else if (s.kind == TimelineSlice::Kind::Wait) {
        slice(2, fmt::format("wait for {} {}", layer, workload::to_string(s.pass)), s,
              ordered_json::object());
      }
    }
  }
  return ordered_json{{"traceEvents", events}, {"displayTimeUnit", "ns"}}.dump() + "\n";
}

}  // namespace collsim::report
