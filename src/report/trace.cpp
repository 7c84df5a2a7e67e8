#include "report/trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <numeric>

#include "core/error.hpp"
#include "report/output_file.hpp"

namespace collsim::report {
namespace {

constexpr std::size_t kDimWindows = 2048;
constexpr std::size_t kLinkWindows = 256;
constexpr std::size_t kLinkCounters = 16;
const core::Time kFirstWindow = core::Time::from_ns(100);

// Microseconds with every picosecond digit: deterministic and exact.
std::string us(core::Time t) { return fmt::format("{}.{:06}", t.ps / 1000000, t.ps % 1000000); }

std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

}  // namespace

BusyWindows::BusyWindows(std::size_t series, std::size_t cap, core::Time width)
    : series_(series), cap_(cap), width_(width), data_(series * cap, 0.0) {}

void BusyWindows::grow() {
  for (std::size_t s = 0; s < series_; ++s) {
    double* row = data_.data() + s * cap_;
    for (std::size_t w = 0; w < cap_ / 2; ++w) row[w] = row[2 * w] + row[2 * w + 1];
    std::fill(row + cap_ / 2, row + cap_, 0.0);
  }
  width_ = width_ * 2;
  used_ = (used_ + 1) / 2;
}

void BusyWindows::add(std::size_t s, core::Time begin, core::Time end) {
  if (end <= begin) return;
  while (static_cast<std::size_t>((end.ps - 1) / width_.ps) >= cap_) grow();
  const auto first = static_cast<std::size_t>(begin.ps / width_.ps);
  const auto last = static_cast<std::size_t>((end.ps - 1) / width_.ps);
  double* row = data_.data() + s * cap_;
  for (std::size_t w = first; w <= last; ++w) {
    const std::int64_t lo =
        std::max<std::int64_t>(begin.ps, static_cast<std::int64_t>(w) * width_.ps);
    const std::int64_t hi =
        std::min<std::int64_t>(end.ps, static_cast<std::int64_t>(w + 1) * width_.ps);
    row[w] += static_cast<double>(hi - lo);
  }
  used_ = std::max(used_, last + 1);
}

std::uint64_t TraceWriter::run_bytes(const topology::Topology& topo) {
  const std::uint64_t dims = std::max<std::size_t>(1, topo.dimensions().size());
  return topo.links().size() * (kLinkWindows * sizeof(double) + 2 * sizeof(std::uint32_t)) +
         dims * kDimWindows * sizeof(double);
}

TraceWriter::TraceWriter(std::string path)
    : file_(path, "--trace", OutputFile::OnSignal::Commit, "\n]}\n") {
  file_.write("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
}

TraceWriter::~TraceWriter() {
  try {
    close();
  } catch (...) {  // a destructor must not throw; close() reported nothing to anybody
  }
}

void TraceWriter::close() { file_.commit(); }

void TraceWriter::discard() { file_.discard(); }

void TraceWriter::event(const std::string& json) {
  // One write per event: closed at a signal (OutputFile::OnSignal::Commit), the file ends after
  // a whole event and stays valid JSON.
  file_.write(first_ ? json : ",\n" + json);
  first_ = false;
}

void TraceWriter::slice(std::uint64_t pid, std::uint64_t tid, const std::string& name,
                        core::Time begin, core::Time end, const std::string& args) {
  event(fmt::format(R"({{"ph":"X","pid":{},"tid":{},"name":{},"ts":{},"dur":{},"args":{{{}}}}})",
                    pid, tid, quoted(name), us(begin), us(end - begin), args));
}

void TraceWriter::name_process(std::uint64_t pid, const std::string& name) {
  event(fmt::format(R"({{"ph":"M","pid":{},"name":"process_name","args":{{"name":{}}}}})", pid,
                    quoted(name)));
  event(fmt::format(
      R"({{"ph":"M","pid":{},"name":"process_sort_index","args":{{"sort_index":{}}}}})", pid, pid));
}

void TraceWriter::name_thread(std::uint64_t pid, std::uint64_t tid, const std::string& name) {
  event(fmt::format(R"({{"ph":"M","pid":{},"tid":{},"name":"thread_name","args":{{"name":{}}}}})",
                    pid, tid, quoted(name)));
}

void TraceWriter::begin_run(const jobs::RunContext& c) {
  run_ = &c;
  ++runs_;
  const topology::Topology& t = c.topology;
  pid_base_ = next_pid_;
  collectives_pid_ = pid_base_ + t.num_npus();
  network_pid_ = collectives_pid_ + 1;
  dims_pid_ = network_pid_ + 1;
  next_pid_ = dims_pid_ + 1;
  const std::string run = fmt::format("run {}: {}", runs_, c.what);
  for (topology::NodeId n = 0; n < t.num_npus(); ++n) {
    name_process(npu_pid(n), fmt::format("{} / NPU {}", run, n));
  }
  name_process(collectives_pid_, run + " / collectives");
  name_process(network_pid_, run + " / network");
  run_name_ = run;
  stage_threads_.clear();
  labels_.clear();
  sent_at_.clear();
  const std::size_t dims = std::max<std::size_t>(1, t.dimensions().size());
  dim_of_link_.clear();
  links_per_dim_.assign(dims, 0);
  for (const topology::Link& l : t.links()) {
    const std::uint32_t d = std::min<std::uint32_t>(l.dim, static_cast<std::uint32_t>(dims - 1));
    dim_of_link_.push_back(d);
    ++links_per_dim_[d];
  }
  dims_ = BusyWindows(dims, kDimWindows, kFirstWindow);
  links_ = BusyWindows(t.links().size(), kLinkWindows, kFirstWindow);
  c.session.add_observer(this);
  c.backend.set_link_observer(this);
}

// A counter is a step function: one event where its value changes, and 0 after the last window.
void TraceWriter::counter(const std::string& name, const BusyWindows& grid, std::size_t series,
                          double capacity) {
  std::string last;
  for (std::size_t w = 0; w <= grid.used(); ++w) {
    const double v = w < grid.used() && capacity > 0 ? grid.busy(series, w) / capacity : 0.0;
    std::string value = fmt::format("{:.6f}", v);
    if (value == last) continue;
    event(fmt::format(R"({{"ph":"C","pid":{},"name":{},"ts":{},"args":{{"share":{}}}}})",
                      network_pid_, quoted(name), us(grid.width() * static_cast<std::int64_t>(w)),
                      value));
    last = std::move(value);
  }
}

void TraceWriter::end_run(const jobs::RunContext& c) {
  c.session.remove_observer(this);
  c.backend.set_link_observer(nullptr);
  // Per-dimension counters: share of the dimension's links busy in each window.
  for (std::size_t d = 0; d < dims_.series(); ++d) {
    const std::string name = fmt::format("dim{} busy share", d);
    const double capacity = static_cast<double>(dims_.width().ps) * links_per_dim_[d];
    counter(name, dims_, d, capacity);
  }
  // The busiest links (by busy time over the run), ties to the lower link id.
  std::vector<std::size_t> order(links_.series());
  std::iota(order.begin(), order.end(), 0);
  std::vector<double> total(links_.series(), 0.0);
  for (std::size_t l = 0; l < links_.series(); ++l) {
    for (std::size_t w = 0; w < links_.used(); ++w) total[l] += links_.busy(l, w);
  }
  const std::size_t k = std::min(kLinkCounters, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [&](std::size_t a, std::size_t b) {
                      return total[a] != total[b] ? total[a] > total[b] : a < b;
                    });
  const auto& links = c.topology.links();
  for (std::size_t i = 0; i < k && total[order[i]] > 0; ++i) {
    const std::size_t l = order[i];
    const std::string name = fmt::format("link {}->{} busy share (busiest {} of {})", links[l].src,
                                         links[l].dst, i + 1, links.size());
    counter(name, links_, l, static_cast<double>(links_.width().ps));
  }
  file_.flush();
  run_ = nullptr;
}

void TraceWriter::on_collective_start(scheduler::CollectiveId id, const collective::Program& p,
                                      const std::string& label) {
  if (labels_.size() <= id) labels_.resize(id + 1);
  labels_[id] = label;
  for (collective::Rank r = 0; r < p.num_ranks; ++r) {
    name_thread(npu_pid(p.npu(r)), id + 1, fmt::format("{} (rank {})", label, r));
  }
  name_thread(collectives_pid_, id + 1, label);
}

void TraceWriter::on_send(const scheduler::MessageInfo& m) { sent_at_[m.id] = run_->sim.now(); }

void TraceWriter::on_injected(const scheduler::MessageInfo& m) {
  const core::Time sent = sent_at_.at(m.id);
  slice(npu_pid(m.src_npu), m.collective + 1, fmt::format("send to NPU {}", m.dst_npu), sent,
        run_->sim.now(),
        fmt::format(R"("bytes":{},"message":{},"step":{})", m.bytes.count, m.id, m.attrs.priority));
  // A flow arrow from the send slice to the receive slice (Perfetto and chrome://tracing draw
  // it); the ids are per run, so the run's number keeps runs' arrows apart.
  event(fmt::format(
      R"({{"ph":"s","cat":"message","name":"message","id":"{}.{}","pid":{},"tid":{},"ts":{}}})",
      runs_, m.id, npu_pid(m.src_npu), m.collective + 1, us(sent)));
}

void TraceWriter::on_delivered(const scheduler::MessageInfo& m) {
  const auto it = sent_at_.find(m.id);
  slice(npu_pid(m.dst_npu), m.collective + 1,
        fmt::format("{} from NPU {}", m.reduce ? "reduce" : "recv", m.src_npu), it->second,
        run_->sim.now(),
        fmt::format(R"("bytes":{},"message":{},"step":{})", m.bytes.count, m.id, m.attrs.priority));
  event(fmt::format(R"({{"ph":"f","bp":"e","cat":"message","name":"message","id":"{}.{}",)"
                    R"("pid":{},"tid":{},"ts":{}}})",
                    runs_, m.id, npu_pid(m.dst_npu), m.collective + 1, us(run_->sim.now())));
  sent_at_.erase(it);
}

void TraceWriter::on_collective_end(scheduler::CollectiveId id,
                                    const scheduler::CollectiveStats& s) {
  slice(collectives_pid_, id + 1, labels_.at(id), s.start, s.end,
        fmt::format(R"("messages":{},"bytes":{})", s.messages, s.bytes));
}

void TraceWriter::on_stage(const scheduler::StageInfo& s) {
  const std::uint64_t tid = std::uint64_t{s.dim} * 1000 + s.slot + 1;
  if (stage_threads_.empty()) name_process(dims_pid_, run_name_ + " / dimensions");  // when used
  if (std::find(stage_threads_.begin(), stage_threads_.end(), tid) == stage_threads_.end()) {
    stage_threads_.push_back(tid);
    name_thread(dims_pid_, tid,
                s.slot == 0 ? fmt::format("dim{}", s.dim)
                            : fmt::format("dim{} (chunk place {})", s.dim, s.slot + 1));
  }
  slice(dims_pid_, tid, fmt::format("chunk {} {}", s.chunk, collective::to_string(s.op)), s.begin,
        s.end, fmt::format(R"("bytes_per_npu":{:.0f})", s.bytes));
}

void TraceWriter::on_link_busy(topology::LinkId link, core::Time begin, core::Time end) {
  if (link >= dim_of_link_.size()) return;  // a backend's extra resources (NIC caps)
  links_.add(link, begin, end);
  dims_.add(dim_of_link_[link], begin, end);
}

}  // namespace collsim::report
