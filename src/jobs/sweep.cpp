#include "jobs/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>

#include "core/error.hpp"

namespace collsim::jobs {

namespace detail {

struct Silent final : SweepProgress {};  // a sweep without a progress line

// What the points of one run() share: the stop flags (read at every check, so atomics) and the
// progress data (under `mu`, which also serialises the SweepProgress calls).
struct SweepState {
  explicit SweepState(const SweepOptions& o)
      : options(o), sink(o.progress != nullptr ? *o.progress : silent) {}
  const SweepOptions& options;
  Silent silent;
  SweepProgress& sink;
  std::atomic<std::size_t> first_failed{SIZE_MAX};  ///< points after it stop
  std::atomic<bool> all{false};                     ///< every point stops (an interrupt)
  std::mutex mu;
  SweepStatus status;  // guarded by `mu`

  void failed(std::size_t point) {
    std::size_t cur = first_failed.load();
    while (point < cur && !first_failed.compare_exchange_weak(cur, point)) {
    }
  }
  // Updates the status and tells the progress line, one call at a time.
  template <class F>
  void tell(F&& f) {
    std::lock_guard<std::mutex> lock(mu);
    f(sink, status);
  }
};

}  // namespace detail

unsigned default_jobs() { return std::max(1u, std::thread::hardware_concurrency()); }

unsigned resolve_jobs(std::uint32_t jobs, const std::string& field) {
  if (jobs > 4096) {
    throw core::InputError(fmt::format("{}: at most 4096 threads, got {}", field, jobs));
  }
  return jobs == 0 ? default_jobs() : jobs;
}

std::vector<std::size_t> start_order(const std::vector<double>& cost) {
  std::vector<std::size_t> order(cost.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return cost[a] > cost[b]; });
  return order;
}

void PointRun::check() const {
  if (state_.options.interrupted) state_.options.interrupted();
  if (state_.all.load(std::memory_order_relaxed) ||
      state_.first_failed.load(std::memory_order_relaxed) < point_) {
    throw PointCancelled{};
  }
}

std::size_t PointRun::count() const { return state_.status.points; }  // set before any point

void PointRun::begin(const std::string& what, const RunContext* run) {
  what_ = what;
  state_.tell([&](SweepProgress& p, SweepStatus& s) {
    if (!in_run_) ++s.running;
    in_run_ = true;
    p.run_started(s, what, run);
  });
}

void PointRun::tick(const std::string& what, core::Time simulated, std::uint64_t events,
                    const RunContext* run) {
  if (what_ != what) what_ = what;
  state_.tell([&](SweepProgress& p, const SweepStatus& s) {
    p.run_tick(s, what, simulated, events, run);
  });
}

void PointRun::end(const std::string& what) {
  ++ended_;
  state_.tell([&](SweepProgress& p, SweepStatus& s) {
    if (in_run_) --s.running;
    in_run_ = false;
    ++s.runs_done;
    p.run_finished(s, what);
  });
}

void PointRun::note(const std::string& text) {
  state_.tell([&](SweepProgress& p, const SweepStatus&) { p.note(text); });
}

void PointRun::begin_run(const RunContext& c) {
  check();
  begin(c.what, &c);
}

void PointRun::tick(const RunContext& c) {
  check();
  tick(c.what, c.sim.now(), c.sim.events_processed(), &c);
}

std::string Sweep::slice(Shard s) {
  if (!s.active()) return {};
  // Each point's block, the blocks' costs, and every point's key for the fingerprint.
  std::vector<std::size_t> block(points_.size());
  std::vector<double> block_cost;
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < points_.size(); ++i) {
    if (i == 0 || !points_[i].joins_previous) block_cost.push_back(0);
    block[i] = block_cost.size() - 1;
    block_cost.back() += points_[i].cost;
    keys.push_back(points_[i].key);
  }
  const auto [first, last] = shard_blocks(block_cost, s);
  std::vector<Entry> kept;
  for (std::size_t i = 0; i < points_.size(); ++i) {
    if (block[i] >= first && block[i] < last) kept.push_back(std::move(points_[i]));
  }
  points_ = std::move(kept);
  return shard_line(s, first, last, block_cost.size(), sweep_fingerprint(keys));
}

unsigned Sweep::threads() const {
  if (options_.jobs <= 1 || points_.size() <= 1) return 1;
  return static_cast<unsigned>(std::min<std::size_t>(options_.jobs, points_.size()));
}

void Sweep::run_one(detail::SweepState& state, std::size_t i) {
  PointRun r(state, i);
  r.check();  // not started when a point before it failed, or after a signal
  const Entry& p = points_[i];
  state.tell([&](SweepProgress& sink, SweepStatus& s) {
    ++s.running;
    r.in_run_ = true;
    sink.point_started(s, p.name);
  });
  try {
    p.run(r);
  } catch (...) {
    state.tell([&](SweepProgress&, SweepStatus& s) {
      if (r.in_run_) --s.running;
    });
    throw;
  }
  const std::string& what = r.what_.empty() ? p.name : r.what_;
  state.tell([&](SweepProgress& sink, SweepStatus& s) {
    if (r.in_run_) --s.running;
    ++s.done;
    if (r.ended_ < p.runs) {
      s.runs_done += p.runs - r.ended_;
      sink.run_finished(s, what);
    }
    sink.point_finished(s, what);
  });
}

void Sweep::run() {
  detail::SweepState state(options_);
  state.status.points = points_.size();
  state.status.threads = threads();
  for (const Entry& p : points_) state.status.runs += p.runs;
  state.sink.begin(state.status);
  if (state.status.threads <= 1) {
    for (std::size_t i = 0; i < points_.size(); ++i) {
      run_one(state, i);
      points_[i].deliver();
    }
    return;
  }
  run_parallel(state, state.status.threads);
}

void Sweep::run_parallel(detail::SweepState& state, unsigned threads) {
  const std::size_t n = points_.size();
  std::vector<double> cost;
  for (const Entry& p : points_) cost.push_back(p.cost);
  const std::vector<std::size_t> order = start_order(cost);
  enum class State : unsigned char { Waiting, Done, Failed, Skipped };
  std::vector<State> result(n, State::Waiting);  // guarded by `mu`
  std::vector<std::exception_ptr> error(n);      // guarded by `mu`
  std::size_t settled = 0;                       // points not Waiting; guarded by `mu`
  bool interrupted = false;                      // guarded by `mu`
  std::mutex mu;
  std::condition_variable changed;
  std::atomic<std::size_t> next{0};

  const auto worker = [&] {
    for (;;) {
      const std::size_t k = next.fetch_add(1);
      if (k >= n) return;
      const std::size_t i = order[k];
      State s = State::Done;
      std::exception_ptr e;
      bool signal = false;
      try {
        run_one(state, i);
      } catch (const PointCancelled&) {
        s = State::Skipped;
      } catch (const core::Interrupted&) {
        s = State::Failed, e = std::current_exception(), signal = true;
        state.all.store(true, std::memory_order_relaxed);
      } catch (...) {
        s = State::Failed, e = std::current_exception();
        state.failed(i);
      }
      std::lock_guard<std::mutex> lock(mu);
      result[i] = s;
      error[i] = e;
      interrupted = interrupted || signal;
      ++settled;
      changed.notify_all();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);

  // Deliver in input order as points finish; stop at the first one that did not.
  std::size_t delivered = 0;
  std::exception_ptr deliver_error;
  {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      while (delivered < n && result[delivered] == State::Done && !deliver_error) {
        const std::size_t i = delivered++;
        lock.unlock();
        try {
          points_[i].deliver();
        } catch (...) {
          // Taking a row failed (writing it, a refusal): stop everything, rethrow after the
          // threads end.
          deliver_error = std::current_exception();
          state.all.store(true, std::memory_order_relaxed);
        }
        lock.lock();
      }
      if (settled == n || deliver_error) break;
      if (delivered < n && result[delivered] != State::Waiting) break;  // failed or skipped
      changed.wait(lock);
    }
  }
  for (std::thread& t : pool) t.join();  // the points still running stop at their next check
  if (deliver_error) std::rethrow_exception(deliver_error);
  if (interrupted) {
    // Every finished point, in input order, then the first interrupt.
    for (std::size_t i = delivered; i < n; ++i) {
      if (result[i] == State::Done) points_[i].deliver();
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (result[i] != State::Failed) continue;
      try {
        std::rethrow_exception(error[i]);
      } catch (const core::Interrupted&) {
        throw;
      } catch (...) {
      }
    }
  }
  // A failure: the points before the first failed one all finished (they kept running).
  for (std::size_t i = delivered; i < n; ++i) {
    if (result[i] == State::Done) {
      points_[i].deliver();
      continue;
    }
    if (result[i] == State::Failed) std::rethrow_exception(error[i]);
    break;
  }
}

}  // namespace collsim::jobs
