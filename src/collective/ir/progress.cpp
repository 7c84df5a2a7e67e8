#include "collective/ir/progress.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

namespace collsim::collective {
namespace {

bool overlaps(const auto& pending, std::uint32_t first, std::uint32_t count) {
  return pending.first < first + count && first < pending.first + pending.count;
}

}  // namespace

Progress::Progress(const Program& p, Hooks& hooks)
    : program_(p),
      hooks_(hooks),
      cursor_(p.num_ranks, 0),
      pending_(p.num_ranks),
      head_(p.num_ranks, 0),
      open_(p.num_ranks, 0),
      arrived_open_(p.num_ranks, 0),
      early_(p.num_ranks),
      done_(p.num_ranks, 0),

      completions_(p.num_ranks, 0),
      blocked_at_(p.num_ranks, UINT64_MAX),
      channels_(p.num_ranks),
      cursor_op_(p.num_ranks),
      cursor_ch_(p.num_ranks, 0),
      cursor_op_valid_(p.num_ranks, 0) {
  num_ops_.reserve(p.num_ranks);
  for (Rank r = 0; r < p.num_ranks; ++r) num_ops_.push_back(p.num_ops(r));
}

bool Progress::rank_finished(Rank r) const { return cursor_[r] == num_ops_[r] && open_[r] == 0; }

void Progress::pump(Rank r) {
  // Completions unblock sends; issuing only unblocks completions when it posts a recv whose
  // message had already arrived. So: complete, issue, and go round again only in that case.
  do {
    posted_arrived_ = false;
    complete_ready(r);
    issue(r);
  } while (posted_arrived_);
  if (!done_[r] && rank_finished(r)) {
    done_[r] = 1;
    ++ranks_done_;
  }
}

bool Progress::issue(Rank r) {
  const std::uint32_t end = num_ops_[r];
  bool moved = false;
  while (cursor_[r] < end) {
    const std::uint32_t idx = cursor_[r];
    if (!cursor_op_valid_[r]) {
      cursor_op_[r] = program_.op(r, idx);
      const Op& c = cursor_op_[r];
      if (c.is_send()) cursor_ch_[r] = channel(r, c.peer);
      cursor_op_valid_[r] = 1;
    }
    const Op op = cursor_op_[r];
    if (op.kind == Op::Kind::Fence) {
      if (open_[r] > 0) return moved;  // earlier recvs still open
      ++cursor_[r];
      cursor_op_valid_[r] = 0;
      moved = true;
    } else if (op.is_send()) {
      if (blocked_at_[r] == completions_[r]) return moved;  // nothing completed since last look
      const auto& pend = pending_[r];
      for (std::size_t i = head_[r]; i < pend.size(); ++i) {
        if (!pend[i].done && overlaps(pend[i], op.first, op.count)) {
          blocked_at_[r] = completions_[r];  // data not here yet
          return moved;
        }
      }
      blocked_at_[r] = UINT64_MAX;
      const std::uint32_t ch = cursor_ch_[r];
      if (!hooks_.can_send(r, op, ch)) return moved;
      const std::uint32_t seq = send_seq_[ch]++;
      ++cursor_[r];
      cursor_op_valid_[r] = 0;
      moved = true;
      hooks_.on_send(r, idx, seq, ch);
    } else {
      const std::uint32_t seq = recv_seq_[channel(op.peer, r)]++;
      Pending p{idx, op.first, op.count, op.kind == Op::Kind::RecvReduce, op.peer, seq, false, 0};
      auto& early = early_[r];
      for (auto it = early.begin(); it != early.end(); ++it) {
        if (it->src == op.peer && it->seq == seq) {
          p.arrived = true;
          p.src_op = it->src_op;
          posted_arrived_ = true;
          early.erase(it);
          break;
        }
      }
      pending_[r].push_back(p);
      ++open_[r];
      arrived_open_[r] += p.arrived ? 1 : 0;
      ++cursor_[r];
      cursor_op_valid_[r] = 0;
      moved = true;
    }
  }
  return moved;
}

std::uint32_t Progress::channel(Rank src, Rank dst) {
  const std::uint32_t ch = channels_.id(src, dst);
  if (ch >= send_seq_.size()) {
    send_seq_.resize(ch + 1, 0);
    recv_seq_.resize(ch + 1, 0);
  }
  return ch;
}

bool Progress::complete_ready(Rank r) {
  if (arrived_open_[r] == 0) return false;
  auto& pend = pending_[r];
  bool moved = false;
  // Visit only as far as the last arrived entry; an arrived recv completes when no earlier open
  // recv overlaps it (in-order per piece).
  std::uint32_t arrived_left = arrived_open_[r];
  for (std::size_t i = head_[r]; i < pend.size() && arrived_left > 0; ++i) {
    if (pend[i].done || !pend[i].arrived) continue;
    --arrived_left;
    // In order per piece, but reductions commute: reduces never wait for reduces.
    bool ready = true;
    for (std::size_t j = head_[r]; ready && j < i; ++j) {
      if (!pend[j].done && !(pend[j].reduce && pend[i].reduce) &&
          overlaps(pend[j], pend[i].first, pend[i].count)) {
        ready = false;
      }
    }
    if (!ready) continue;
    pend[i].done = true;
    --open_[r];
    --arrived_open_[r];
    ++completions_[r];
    moved = true;
    const Pending done = pend[i];
    hooks_.on_recv_done(r, done.op, done.src, done.src_op);
  }
  // Drop the completed prefix; compact when the tombstones dominate.
  while (head_[r] < pend.size() && pend[head_[r]].done) ++head_[r];
  if (head_[r] == pend.size()) {
    pend.clear();
    head_[r] = 0;
  } else if (head_[r] > 64 && head_[r] * 2 > pend.size()) {
    pend.erase(pend.begin(), pend.begin() + head_[r]);
    head_[r] = 0;
  }
  return moved;
}

void Progress::arrive(Rank src, Rank dst, std::uint32_t src_op, std::uint32_t seq) {
  bool matched = false;
  auto& pend = pending_[dst];
  for (std::size_t i = head_[dst]; i < pend.size(); ++i) {
    Pending& p = pend[i];
    if (!p.done && !p.arrived && p.src == src && p.seq == seq) {
      p.arrived = true;
      p.src_op = src_op;
      ++arrived_open_[dst];
      matched = true;
      break;
    }
  }
  if (!matched) early_[dst].push_back(Early{src, seq, src_op});
  pump(dst);
}

std::string Progress::describe_blocked(Rank r) const {
  if (rank_finished(r)) return fmt::format("rank {} finished", r);
  const std::uint32_t n = program_.num_ops(r);
  std::string s = fmt::format("rank {} at op {}/{}", r, cursor_[r], n);
  if (cursor_[r] < n) s += fmt::format(" ({})", to_string(program_.op(r, cursor_[r])));
  if (open_[r] > 0) {
    std::size_t first = head_[r];
    while (pending_[r][first].done) ++first;
    const Op w = program_.op(r, pending_[r][first].op);
    s += fmt::format(", waiting for {} recv(s), first: {}", open_[r], to_string(w));
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
