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
      cursor_(p.num_lanes(), 0),
      pending_(p.num_lanes()),
      head_(p.num_lanes(), 0),
      open_(p.num_lanes(), 0),
      arrived_open_(p.num_lanes(), 0),
      early_(p.num_lanes()),
      done_(p.num_lanes(), 0),
      completions_(p.num_lanes(), 0),
      blocked_at_(p.num_lanes(), UINT64_MAX),
      waiting_barrier_(p.num_lanes(), 0),
      channels_(p.num_lanes()),
      cursor_op_(p.num_lanes()),
      cursor_ch_(p.num_lanes(), 0),
      cursor_op_valid_(p.num_lanes(), 0) {
  num_ops_.reserve(p.num_lanes());
  for (Lane l = 0; l < p.num_lanes(); ++l) num_ops_.push_back(p.num_ops(l));
  if (p.in_network_switch == kNoSwitch && p.rank_switch.empty()) return;
  // In-network domains: the ranks on each switch, in rank order (one domain when rank_switch is
  // empty or malformed: the verifier reports the latter).
  const std::uint32_t n = p.num_ranks;
  const bool per_rank = p.rank_switch.size() == n;
  std::vector<std::pair<std::uint32_t, Rank>> by_switch;
  by_switch.reserve(n);
  for (Rank r = 0; r < n; ++r) by_switch.emplace_back(per_rank ? p.rank_switch[r] : 0, r);
  std::sort(by_switch.begin(), by_switch.end());
  domain_of_.assign(n, 0);
  for (std::uint32_t i = 0; i < n; ++i) {
    if (i == 0 || by_switch[i].first != by_switch[i - 1].first) domain_start_.push_back(i);
    domain_of_[by_switch[i].second] = static_cast<std::uint32_t>(domain_start_.size() - 1);
    domain_ranks_.push_back(by_switch[i].second);
  }
  domain_start_.push_back(n);
}

bool Progress::lane_finished(Lane l) const { return cursor_[l] == num_ops_[l] && open_[l] == 0; }

void Progress::pump_all() {
  for (Lane l = 0; l < program_.num_lanes(); ++l) pump(l);
}

void Progress::pump(Lane l) {
  pump_one(l);
  // A lane that completed a barrier released the others; pump them here, iteratively, so that a
  // schedule of many barriers does not recurse once per barrier.
  if (releasing_) return;
  releasing_ = true;
  while (!released_.empty()) {
    std::vector<Lane> batch;
    batch.swap(released_);
    for (Lane x : batch) pump_one(x);
  }
  releasing_ = false;
}

void Progress::pump_one(Lane r) {
  // Completions unblock sends; issuing only unblocks completions when it posts a recv whose
  // message had already arrived. So: complete, issue, and go round again only in that case.
  do {
    posted_arrived_ = false;
    complete_ready(r);
    issue(r);
  } while (posted_arrived_);
  if (!done_[r] && lane_finished(r)) {
    done_[r] = 1;
    ++lanes_done_;
  }
}

bool Progress::issue(Lane r) {
  const std::uint32_t end = num_ops_[r];
  bool moved = false;
  while (cursor_[r] < end) {
    const std::uint32_t idx = cursor_[r];
    if (!cursor_op_valid_[r]) {
      cursor_op_[r] = program_.op(r, idx);
      const Op& c = cursor_op_[r];
      if (c.is_send()) {
        cursor_ch_[r] = channel(r, program_.lane(c.peer, program_.stream_of(r)));
      } else if (c.kind == Op::Kind::SwitchReduce) {  // a channel space of its own per (l, d)
        cursor_ch_[r] =
            channel(r, program_.num_lanes() + program_.lane(c.peer, program_.stream_of(r)));
      } else if (c.kind == Op::Kind::Multicast) {
        cursor_ch_[r] = channel(r, kSwitchLane);
      }
      cursor_op_valid_[r] = 1;
    }
    const Op op = cursor_op_[r];
    if (op.kind == Op::Kind::Fence) {
      if (open_[r] > 0) return moved;  // earlier recvs still open
      ++cursor_[r];
      cursor_op_valid_[r] = 0;
      moved = true;
    } else if (op.kind == Op::Kind::Barrier) {
      if (open_[r] > 0 || waiting_barrier_[r]) return moved;
      waiting_barrier_[r] = 1;
      at_barrier_.push_back(r);
      if (at_barrier_.size() < program_.num_lanes()) return moved;
      // Every lane is at this barrier: all pass it. The others are pumped by pump().
      for (Lane x : at_barrier_) {
        waiting_barrier_[x] = 0;
        ++cursor_[x];
        cursor_op_valid_[x] = 0;
        if (x != r) released_.push_back(x);
      }
      at_barrier_.clear();
      moved = true;
    } else if (op.is_send() || op.is_switch_send()) {
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
      ++cursor_[r];
      cursor_op_valid_[r] = 0;
      moved = true;
      if (op.kind != Op::Kind::Send) {
        issue_switch(r, idx, op, ch);
        continue;
      }
      const std::uint32_t seq = send_seq_[ch]++;
      hooks_.on_send(r, idx, seq, ch);
    } else {
      Lane src = kSwitchLane;
      std::uint32_t seq = 0;
      if (op.kind == Op::Kind::RecvSwitch) {
        seq = recv_seq_[channel(r, program_.num_lanes() + r)]++;
      } else {
        src = program_.lane(op.peer, program_.stream_of(r));
        seq = recv_seq_[channel(src, r)]++;
      }
      Pending p{idx, op.first, op.count, op.kind == Op::Kind::RecvReduce, src, seq, false, 0};
      auto& early = early_[r];
      for (auto it = early.begin(); it != early.end(); ++it) {
        if (it->src == src && it->seq == seq) {
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

std::uint32_t Progress::new_block() {
  if (!free_blocks_.empty()) {
    const std::uint32_t b = free_blocks_.back();
    free_blocks_.pop_back();
    return b;
  }
  const auto b = static_cast<std::uint32_t>(blocks_.size());
  blocks_.resize(blocks_.size() + 3 + 2 * std::size_t{program_.num_ranks}, 0);
  return b;
}

void Progress::issue_switch(Lane l, std::uint32_t idx, const Op& op, std::uint32_t ch) {
  const std::uint32_t n = program_.num_ranks;
  const std::uint32_t stream = program_.stream_of(l);
  const Rank r = program_.rank_of(l);
  if (op.kind == Op::Kind::Multicast) {
    const std::uint32_t b = new_block();
    for (Rank to : domain(r)) {
      if (to == r) continue;
      const std::uint32_t c = channel(l, program_.lane(to, stream));
      blocks_[b + 3 + to] = send_seq_[c]++;
    }
    ++send_seq_[ch];
    hooks_.on_send(l, idx, b, ch);
    return;
  }
  // SwitchReduce: contribution k of this lane to d belongs to group (d, k).
  const Lane dst = program_.lane(op.peer, stream);
  const std::uint32_t k = send_seq_[ch]++;
  hooks_.on_send(l, idx, k, ch);
  const std::uint64_t key = (std::uint64_t{dst} << 32) | k;
  auto it = groups_.find(key);
  if (it == groups_.end()) {
    const std::uint32_t b = new_block();
    blocks_[b] = 0;
    blocks_[b + 1] = dst;
    blocks_[b + 2] = k;
    it = groups_.emplace(key, b).first;
  }
  const std::uint32_t b = it->second;
  blocks_[b + 3 + r] = idx;
  blocks_[b + 3 + n + r] = ch;
  if (++blocks_[b] < domain(op.peer).size()) return;
  groups_.erase(it);
  hooks_.on_group_ready(dst, b);
}

void Progress::arrive_group(Lane dst, std::uint32_t block) {
  const std::uint32_t k = blocks_[block + 2];
  bool matched = false;
  auto& pend = pending_[dst];
  for (std::size_t i = head_[dst]; i < pend.size(); ++i) {
    Pending& p = pend[i];
    if (!p.done && !p.arrived && p.src == kSwitchLane && p.seq == k) {
      p.arrived = true;
      p.src_op = block;
      ++arrived_open_[dst];
      matched = true;
      break;
    }
  }
  if (!matched) early_[dst].push_back(Early{kSwitchLane, k, block});
  pump(dst);
}

void Progress::arrive_multicast(Lane src, std::uint32_t src_op, std::uint32_t block) {
  const Rank r = program_.rank_of(src);
  for (Rank to : domain(r)) {
    if (to != r) arrive(src, to, src_op, blocks_[block + 3 + to]);
  }
  free_block(block);
}

std::uint32_t Progress::channel(Lane src, Lane dst) {
  const std::uint32_t ch = channels_.id(src, dst);
  if (ch >= send_seq_.size()) {
    send_seq_.resize(ch + 1, 0);
    recv_seq_.resize(ch + 1, 0);
  }
  return ch;
}

bool Progress::complete_ready(Lane r) {
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
    if (done.src == kSwitchLane) free_block(done.src_op);
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

void Progress::arrive(Lane src, Rank dst_rank, std::uint32_t src_op, std::uint32_t seq) {
  const Lane dst = program_.lane(dst_rank, program_.stream_of(src));
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

std::string Progress::lane_name(Lane l) const {
  if (program_.streams == 1) return fmt::format("rank {}", l);
  return fmt::format("rank {} stream {}", program_.rank_of(l), program_.stream_of(l));
}

std::string Progress::describe_blocked(Lane r) const {
  if (lane_finished(r)) return lane_name(r) + " finished";
  const std::uint32_t n = num_ops_[r];
  std::string s = fmt::format("{} at op {}/{}", lane_name(r), cursor_[r], n);
  if (cursor_[r] < n) s += fmt::format(" ({})", to_string(program_.op(r, cursor_[r])));
  if (waiting_barrier_[r]) {
    s += fmt::format(", at a barrier with {} of {} lanes", at_barrier_.size(),
                     program_.num_lanes());
  }
  if (open_[r] > 0) {
    std::size_t first = head_[r];
    while (pending_[r][first].done) ++first;
    const Op w = program_.op(r, pending_[r][first].op);
    s += fmt::format(", waiting for {} recv(s), first: {}", open_[r], to_string(w));
  }
  return s;
}

std::string Progress::describe_stuck(std::size_t limit) const {
  std::vector<Lane> stuck;
  for (Lane l = 0; l < program_.num_lanes(); ++l) {
    if (!lane_finished(l)) stuck.push_back(l);
  }
  std::string s = fmt::format("{} of {} {} unfinished: ", stuck.size(), program_.num_lanes(),
                              program_.streams == 1 ? "ranks" : "rank streams");
  for (std::size_t i = 0; i < std::min(limit, stuck.size()); ++i) {
    if (i) s += "; ";
    s += describe_blocked(stuck[i]);
  }
  if (stuck.size() > limit) s += fmt::format("; and {} more", stuck.size() - limit);
  return s;
}

}  // namespace collsim::collective
