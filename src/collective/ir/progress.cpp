#include "collective/ir/progress.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace collsim::collective {

Progress::Progress(const Program& p, Hooks& hooks)
    : program_(p),
      hooks_(hooks),
      cursor_(p.num_ranks, 0),
      pending_(p.num_ranks),
      early_(p.num_ranks),
      done_(p.num_ranks, 0) {}

bool Progress::rank_finished(Rank r) const {
  return cursor_[r] == program_.ops[r].size() && pending_[r].empty();
}

void Progress::pump(Rank r) {
  bool moved = true;
  while (moved) {
    moved = issue(r);
    moved = complete_ready(r) || moved;
  }
  if (!done_[r] && rank_finished(r)) {
    done_[r] = 1;
    ++ranks_done_;
  }
}

bool Progress::issue(Rank r) {
  const auto& ops = program_.ops[r];
  bool moved = false;
  while (cursor_[r] < ops.size()) {
    const std::uint32_t idx = cursor_[r];
    const Op& op = ops[idx];
    if (op.is_send()) {
      for (const Pending& p : pending_[r]) {
        if (ops[p.op].overlaps(op)) return moved;  // data not here yet
      }
      if (!hooks_.can_send(r, op)) return moved;
      const std::uint32_t seq = send_seq_[channel(r, op.peer)]++;
      ++cursor_[r];
      moved = true;
      hooks_.on_send(r, idx, seq);
    } else {
      const std::uint32_t seq = recv_seq_[channel(op.peer, r)]++;
      Pending p{idx, op.peer, seq, false, 0};
      auto& early = early_[r];
      for (auto it = early.begin(); it != early.end(); ++it) {
        if (it->src == op.peer && it->seq == seq) {
          p.arrived = true;
          p.src_op = it->src_op;
          early.erase(it);
          break;
        }
      }
      pending_[r].push_back(p);
      ++cursor_[r];
      moved = true;
    }
  }
  return moved;
}

bool Progress::complete_ready(Rank r) {
  const auto& ops = program_.ops[r];
  auto& pend = pending_[r];
  bool moved = false;
  for (std::size_t i = 0; i < pend.size();) {
    bool ready = pend[i].arrived;
    for (std::size_t j = 0; ready && j < i; ++j) {
      if (ops[pend[j].op].overlaps(ops[pend[i].op])) ready = false;  // in-order per piece
    }
    if (!ready) {
      ++i;
      continue;
    }
    const Pending done = pend[i];
    pend.erase(pend.begin() + static_cast<std::ptrdiff_t>(i));
    moved = true;
    hooks_.on_recv_done(r, done.op, done.src, done.src_op);
  }
  return moved;
}

void Progress::arrive(Rank src, std::uint32_t src_op, std::uint32_t seq) {
  const Rank dst = program_.ops[src][src_op].peer;
  bool matched = false;
  for (Pending& p : pending_[dst]) {
    if (!p.arrived && p.src == src && p.seq == seq) {
      p.arrived = true;
      p.src_op = src_op;
      matched = true;
      break;
    }
  }
  if (!matched) early_[dst].push_back(Early{src, seq, src_op});
  pump(dst);
}

std::string Progress::describe_blocked(Rank r) const {
  const auto& ops = program_.ops[r];
  if (rank_finished(r)) return fmt::format("rank {} finished", r);
  std::string s = fmt::format("rank {} at op {}/{}", r, cursor_[r], ops.size());
  if (cursor_[r] < ops.size()) s += fmt::format(" ({})", to_string(ops[cursor_[r]]));
  if (!pending_[r].empty()) {
    const Op& w = ops[pending_[r].front().op];
    s += fmt::format(", waiting for {} recv(s), first: {}", pending_[r].size(), to_string(w));
  }
  return s;
}

std::string Progress::describe_stuck(std::size_t limit) const {
  std::vector<Rank> stuck;
  for (Rank r = 0; r < program_.num_ranks; ++r) {
    if (!rank_finished(r)) stuck.push_back(r);
  }
  std::string s = fmt::format("{} of {} ranks unfinished: ", stuck.size(), program_.num_ranks);
  for (std::size_t i = 0; i < std::min(limit, stuck.size()); ++i) {
    if (i) s += "; ";
    s += describe_blocked(stuck[i]);
  }
  if (stuck.size() > limit) s += fmt::format("; and {} more", stuck.size() - limit);
  return s;
}

}  // namespace collsim::collective
