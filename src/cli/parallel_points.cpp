#include "cli/parallel_points.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>

#include "cli/interrupt.hpp"
#include "core/error.hpp"

namespace collsim::cli {

unsigned default_jobs() { return std::max(1u, std::thread::hardware_concurrency()); }

unsigned resolve_jobs(std::uint32_t jobs, const std::string& field) {
  if (jobs > 4096) {
    throw core::InputError(fmt::format("{}: at most 4096 threads, got {}", field, jobs));
  }
  return jobs == 0 ? default_jobs() : jobs;
}

void PointStop::check(std::size_t point) const {
  InterruptMonitor::check();
  if (all_.load(std::memory_order_relaxed) ||
      first_failed_.load(std::memory_order_relaxed) < point) {
    throw PointCancelled{};
  }
}

void PointStop::failed(std::size_t point) {
  std::size_t cur = first_failed_.load();
  while (point < cur && !first_failed_.compare_exchange_weak(cur, point)) {
  }
}

std::vector<std::size_t> start_order(std::size_t n, const std::vector<double>& cost) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (cost.size() == n) {
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return cost[a] > cost[b]; });
  }
  return order;
}

void run_points(std::size_t n, const PointsOptions& options,
                const std::function<void(std::size_t, const PointStop&)>& run,
                const std::function<void(std::size_t)>& deliver) {
  PointStop stop;
  if (options.jobs <= 1 || n <= 1) {
    for (std::size_t i = 0; i < n; ++i) {
      run(i, stop);
      deliver(i);
    }
    return;
  }
  const std::vector<std::size_t> order = start_order(n, options.cost);
  enum class State : unsigned char { Waiting, Done, Failed, Skipped };
  std::vector<State> state(n, State::Waiting);  // guarded by `mu`
  std::vector<std::exception_ptr> error(n);     // guarded by `mu`
  std::size_t settled = 0;                      // points not Waiting; guarded by `mu`
  bool interrupted = false;                     // guarded by `mu`
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
      try {
        stop.check(i);  // not started when a point before it failed, or on a signal
        run(i, stop);
      } catch (const PointCancelled&) {
        s = State::Skipped;
      } catch (const core::Interrupted&) {
        s = State::Failed, e = std::current_exception();
        stop.stop_all();
      } catch (...) {
        s = State::Failed, e = std::current_exception();
        stop.failed(i);
      }
      std::lock_guard<std::mutex> lock(mu);
      state[i] = s;
      error[i] = e;
      if (s == State::Failed && e) {
        try {
          std::rethrow_exception(e);
        } catch (const core::Interrupted&) {
          interrupted = true;
        } catch (...) {
        }
      }
      ++settled;
      changed.notify_all();
    }
  };
  const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(options.jobs, n));
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
  const auto join = [&] {
    for (std::thread& t : pool) {
      if (t.joinable()) t.join();
    }
  };

  // Deliver in input order as points finish; stop at the first one that did not.
  std::size_t delivered = 0;
  std::exception_ptr deliver_error;
  {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      while (delivered < n && state[delivered] == State::Done && !deliver_error) {
        const std::size_t i = delivered++;
        lock.unlock();
        try {
          deliver(i);
        } catch (...) {
          // Writing a row failed: stop everything, rethrow after the threads end.
          deliver_error = std::current_exception();
          stop.stop_all();
        }
        lock.lock();
      }
      if (settled == n || deliver_error) break;
      if (delivered < n && state[delivered] != State::Waiting) break;  // failed or skipped
      changed.wait(lock);
    }
  }
  join();  // the points still running stop at their next check, or finish
  if (deliver_error) std::rethrow_exception(deliver_error);
  if (interrupted) {
    // Every finished point, in input order, then the interrupt.
    std::exception_ptr first;
    for (std::size_t i = delivered; i < n; ++i) {
      if (state[i] == State::Done) deliver(i);
    }
    for (std::size_t i = 0; i < n && !first; ++i) {
      if (state[i] == State::Failed) {
        try {
          std::rethrow_exception(error[i]);
        } catch (const core::Interrupted&) {
          first = error[i];
        } catch (...) {
        }
      }
    }
    std::rethrow_exception(first);
  }
  // A failure: the points before the first failed one all finished (they kept running).
  for (std::size_t i = delivered; i < n; ++i) {
    if (state[i] == State::Done) {
      deliver(i);
      continue;
    }
    if (state[i] == State::Failed) std::rethrow_exception(error[i]);
    break;
  }
}

}  // namespace collsim::cli
