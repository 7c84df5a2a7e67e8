#include "collective/ir/verifier.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <optional>
#include <deque>
#include <unordered_map>

#include "collective/ir/progress.hpp"

namespace collsim::collective {
namespace {

// Contribution sets: one bitset of num_ranks bits per (rank, piece).
class Holdings {
 public:
  Holdings(std::uint32_t ranks, std::uint32_t pieces)
      : words_((ranks + 63) / 64),
        pieces_(pieces),
        bits_(static_cast<std::size_t>(ranks) * pieces * words_, 0) {}
  std::uint64_t* at(Rank r, std::uint32_t piece) {
    return bits_.data() + (static_cast<std::size_t>(r) * pieces_ + piece) * words_;
  }
  std::uint32_t words() const { return words_; }

 private:
  std::uint32_t words_;
  std::uint32_t pieces_;
  std::vector<std::uint64_t> bits_;
};

bool empty(const std::uint64_t* s, std::uint32_t w) {
  for (std::uint32_t i = 0; i < w; ++i) {
    if (s[i]) return false;
  }
  return true;
}

std::uint32_t popcount(const std::uint64_t* s, std::uint32_t w) {
  std::uint32_t n = 0;
  for (std::uint32_t i = 0; i < w; ++i) n += static_cast<std::uint32_t>(std::popcount(s[i]));
  return n;
}

bool has(const std::uint64_t* s, Rank r) { return (s[r / 64] >> (r % 64)) & 1u; }
void set(std::uint64_t* s, Rank r) { s[r / 64] |= std::uint64_t{1} << (r % 64); }

class Checker final : public Progress::Hooks {
 public:
  explicit Checker(const Program& p)
      : p_(p), held_(p.num_ranks, p.num_pieces), progress_(p, *this) {}

  Verdict run() {
    Verdict v;
    if (!structure_ok()) return fail(v);
    initialise();
    for (Lane l = 0; l < p_.num_lanes() && error_.empty(); ++l) progress_.pump(l);
    while (!in_flight_.empty() && error_.empty()) {
      const Message m = in_flight_.front();
      in_flight_.pop_front();
      if (m.kind == Message::Kind::Group) {
        progress_.arrive_group(m.src, m.seq);
      } else if (m.kind == Message::Kind::Multicast) {
        progress_.arrive_multicast(m.src, m.op, m.seq);
      } else {
        progress_.arrive(m.src, p_.op(m.src, m.op).peer, m.op, m.seq);
      }
    }
    v.ops = p_.total_ops();
    v.messages = messages_;
    if (!error_.empty()) return fail(v);
    if (!progress_.finished()) {
      error_ = "deadlock: " + progress_.describe_stuck();
      return fail(v);
    }
    if (!snapshots_.empty()) {
      const auto& [key, snap] = *snapshots_.begin();
      (void)snap;
      const Lane src = static_cast<Lane>(key >> 32);
      const auto op = static_cast<std::uint32_t>(key);
      error_ = fmt::format("{} op {} ({}) is never received", lane_name(src), op,
                           to_string(p_.op(src, op)));
      return fail(v);
    }
    check_final();
    if (!error_.empty()) return fail(v);
    v.ok = true;
    return v;
  }

  bool can_send(Lane, const Op&, std::uint32_t) override { return error_.empty(); }

  void on_send(Lane lane, std::uint32_t idx, std::uint32_t seq, std::uint32_t) override {
    const Op op = p_.op(lane, idx);
    const Rank r = p_.rank_of(lane);
    const std::uint32_t w = held_.words();
    std::vector<std::uint64_t> snap(static_cast<std::size_t>(op.count) * w);
    for (std::uint32_t i = 0; i < op.count; ++i) {
      const std::uint64_t* s = held_.at(r, op.first + i);
      if (empty(s, w) && error_.empty()) {
        error_ = fmt::format("{} op {} ({}) sends piece {} before it holds it", lane_name(lane),
                             idx, to_string(op), op.first + i);
      }
      std::copy(s, s + w, snap.begin() + static_cast<std::ptrdiff_t>(i) * w);
    }
    snapshots_.emplace((std::uint64_t{lane} << 32) | idx, std::move(snap));
    if (op.kind == Op::Kind::Send) {
      in_flight_.push_back(Message{lane, idx, seq});
    } else if (op.kind == Op::Kind::Multicast) {
      // One snapshot, received by every other rank.
      copies_left_[(std::uint64_t{lane} << 32) | idx] =
          static_cast<std::uint32_t>(progress_.domain(r).size()) - 1;
      in_flight_.push_back(Message{lane, idx, seq, Message::Kind::Multicast});
    }
    ++messages_;
  }

  void on_group_ready(Lane dst, std::uint32_t block) override {
    in_flight_.push_back(Message{dst, 0, block, Message::Kind::Group});
  }

  // A RecvSwitch: the union of every rank's contribution to the group, each counted once.
  void receive_group(Lane lane, std::uint32_t idx, const Op& rv, std::uint32_t block) {
    const Rank r = p_.rank_of(lane);
    const std::uint32_t w = held_.words();
    std::vector<std::uint64_t> sum(static_cast<std::size_t>(rv.count) * w, 0);
    for (Rank from : progress_.domain(r)) {
      const Lane src = p_.lane(from, p_.stream_of(lane));
      const std::uint32_t src_op = progress_.group_op(block, from);
      const Op sd = p_.op(src, src_op);
      if (sd.first != rv.first || sd.count != rv.count) {
        error_ = fmt::format("{} op {} ({}) is matched by {} op {} ({}): pieces differ",
                             lane_name(lane), idx, to_string(rv), lane_name(src), src_op,
                             to_string(sd));
        return;
      }
      auto node = snapshots_.extract((std::uint64_t{src} << 32) | src_op);
      const std::vector<std::uint64_t>& snap = node.mapped();
      for (std::size_t k = 0; k < sum.size(); ++k) {
        if (sum[k] & snap[k]) {
          const Rank twice = static_cast<Rank>(k % w * 64 + std::countr_zero(sum[k] & snap[k]));
          error_ = fmt::format(
              "{} op {} ({}) receives the switch's reduction of piece {}: rank {}'s "
              "contribution counted twice",
              lane_name(lane), idx, to_string(rv), rv.first + k / w, twice);
          return;
        }
        sum[k] |= snap[k];
      }
    }
    for (std::uint32_t i = 0; i < rv.count; ++i) {
      std::copy(sum.begin() + static_cast<std::ptrdiff_t>(i) * w,
                sum.begin() + static_cast<std::ptrdiff_t>(i + 1) * w, held_.at(r, rv.first + i));
    }
  }

  void on_recv_done(Lane lane, std::uint32_t idx, Lane src, std::uint32_t src_op) override {
    if (!error_.empty()) return;
    const Op rv = p_.op(lane, idx);
    if (rv.kind == Op::Kind::RecvSwitch) {
      receive_group(lane, idx, rv, src_op);
      return;
    }
    const Op sd = p_.op(src, src_op);
    const Rank r = p_.rank_of(lane);
    if (rv.first != sd.first || rv.count != sd.count) {
      error_ = fmt::format("{} op {} ({}) is matched by {} op {} ({}): pieces differ",
                           lane_name(lane), idx, to_string(rv), lane_name(src), src_op,
                           to_string(sd));
      return;
    }
    const std::uint64_t key = (std::uint64_t{src} << 32) | src_op;
    std::vector<std::uint64_t> snap;
    if (sd.kind == Op::Kind::Multicast && --copies_left_[key] > 0) {
      snap = snapshots_.at(key);  // other ranks still to receive it
    } else {
      snap = std::move(snapshots_.extract(key).mapped());
      copies_left_.erase(key);
    }
    const std::uint32_t w = held_.words();
    for (std::uint32_t i = 0; i < rv.count; ++i) {
      std::uint64_t* dst = held_.at(r, rv.first + i);
      const std::uint64_t* in = snap.data() + static_cast<std::size_t>(i) * w;
      if (rv.kind == Op::Kind::RecvReduce) {
        for (std::uint32_t k = 0; k < w; ++k) {
          if (dst[k] & in[k]) {
            const Rank twice = static_cast<Rank>(k * 64 + std::countr_zero(dst[k] & in[k]));
            error_ = fmt::format(
                "{} op {} ({}) reduces piece {}: rank {}'s contribution counted twice",
                lane_name(lane), idx, to_string(rv), rv.first + i, twice);
            return;
          }
          dst[k] |= in[k];
        }
      } else {
        std::copy(in, in + w, dst);
      }
    }
    if (sd.reduce != (rv.kind == Op::Kind::RecvReduce)) {
      error_ = fmt::format("{} op {} ({}) is matched by {} op {} ({}), whose reduce flag says {}",
                           lane_name(lane), idx, to_string(rv), lane_name(src), src_op,
                           to_string(sd), sd.reduce ? "reduce" : "copy");
    }
  }

 private:
  struct Message {
    enum class Kind : std::uint8_t { Send, Multicast, Group };
    Lane src;  ///< Group: the destination lane
    std::uint32_t op;
    std::uint32_t seq;  ///< Multicast and Group: the block
    Kind kind = Kind::Send;
  };

  Verdict fail(Verdict v) {
    v.ok = false;
    v.reason = error_;
    return v;
  }

  std::string lane_name(Lane l) const {
    if (p_.streams == 1) return fmt::format("rank {}", l);
    return fmt::format("rank {} stream {}", p_.rank_of(l), p_.stream_of(l));
  }

  bool structure_ok() {
    const std::uint32_t n = p_.num_ranks;
    if (n < 2) {
      error_ = "program has fewer than 2 ranks";
      return false;
    }
    if (p_.streams == 0) {
      error_ = "program has 0 streams per rank";
      return false;
    }
    if (!p_.generator && p_.ops.size() != p_.num_lanes()) {
      error_ = fmt::format("program lists ops for {} lanes, expected {} ({} ranks x {} streams)",
                           p_.ops.size(), p_.num_lanes(), n, p_.streams);
      return false;
    }
    if (!permutation(p_.owner, n, "owner") || !distinct(p_.npus, "npus")) return false;
    if (!p_.rank_switch.empty() &&
        (p_.rank_switch.size() != n || p_.in_network_switch == kNoSwitch)) {
      error_ = p_.rank_switch.size() != n
                   ? fmt::format("program rank_switch names {} switches for {} ranks",
                                 p_.rank_switch.size(), n)
                   : std::string("program rank_switch is set without in_network_switch");
      return false;
    }
    std::optional<std::uint32_t> barriers;
    for (Lane l = 0; l < p_.num_lanes(); ++l) {
      const Rank r = p_.rank_of(l);
      std::uint32_t lane_barriers = 0;
      for (std::uint32_t i = 0; i < p_.num_ops(l); ++i) {
        const Op op = p_.op(l, i);
        if (op.is_wait()) {
          lane_barriers += op.kind == Op::Kind::Barrier ? 1 : 0;
          continue;
        }
        const bool own_peer = op.kind == Op::Kind::SwitchReduce;
        const bool self_peer = op.kind == Op::Kind::RecvSwitch || op.kind == Op::Kind::Multicast;
        if ((own_peer || self_peer) && p_.in_network_switch == kNoSwitch) {
          error_ = fmt::format("{} op {} ({}): the program names no in-network switch",
                               lane_name(l), i, to_string(op));
          return false;
        }
        const char* bad = op.peer >= n                     ? "peer out of range"
                          : self_peer && op.peer != r      ? "peer must be the rank itself"
                          : op.kind == Op::Kind::SwitchReduce && op.reduce
                              ? "reduce flag on a switch reduction"
                          : own_peer && p_.switch_of(op.peer) != p_.switch_of(r)
                              ? "peer on another switch"
                          : op.peer == r && !own_peer && !self_peer ? "peer is the rank itself"
                          : op.count == 0  ? "empty piece range"
                          : std::uint64_t{op.first} + op.count > p_.num_pieces
                              ? "piece range beyond the piece space"
                          : op.is_recv() && op.reduce ? "reduce flag on a recv"
                                                      : nullptr;
        if (bad) {
          error_ = fmt::format("{} op {} ({}): {}", lane_name(l), i, to_string(op), bad);
          return false;
        }
      }
      if (!barriers) barriers = lane_barriers;
      if (*barriers != lane_barriers) {
        error_ = fmt::format("{} has {} barriers, {} has {}: every lane needs the same number",
                             lane_name(0), *barriers, lane_name(l), lane_barriers);
        return false;
      }
    }
    return p_.streams == 1 || streams_disjoint();
  }

  bool permutation(const std::vector<Rank>& v, std::uint32_t n, const char* what) {
    if (v.empty()) return true;
    std::vector<std::uint8_t> seen(n, 0);
    for (Rank x : v) {
      if (v.size() != n || x >= n || seen[x]) {
        error_ = fmt::format("program {} is not a permutation of the {} ranks", what, n);
        return false;
      }
      seen[x] = 1;
    }
    return true;
  }

  bool distinct(const std::vector<std::uint32_t>& v, const char* what) {
    if (v.empty()) return true;
    if (v.size() != p_.num_ranks) {
      error_ = fmt::format("program {} names {} NPUs for {} ranks", what, v.size(), p_.num_ranks);
      return false;
    }
    std::vector<std::uint32_t> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      error_ = fmt::format("program {} puts two ranks on one NPU", what);
      return false;
    }
    return true;
  }

  // Streams of a rank share no data: a piece one stream receives into is neither read nor
  // written by another stream of that rank (program.hpp), so no cross-stream order is needed.
  bool streams_disjoint() {
    constexpr std::int64_t kNone = -1, kMany = -2;
    for (Rank r = 0; r < p_.num_ranks; ++r) {
      std::vector<std::int64_t> writer(p_.num_pieces, kNone), reader(p_.num_pieces, kNone);
      for (std::uint32_t s = 0; s < p_.streams; ++s) {
        const Lane l = p_.lane(r, s);
        for (std::uint32_t i = 0; i < p_.num_ops(l); ++i) {
          const Op op = p_.op(l, i);
          if (op.is_wait()) continue;
          for (std::uint32_t q = op.first; q < op.first + op.count; ++q) {
            auto& slot = op.is_recv() ? writer[q] : reader[q];
            slot = slot == kNone || slot == s ? s : kMany;
          }
        }
      }
      for (std::uint32_t q = 0; q < p_.num_pieces; ++q) {
        if (writer[q] == kNone) continue;
        if (writer[q] == kMany || (reader[q] != kNone && reader[q] != writer[q])) {
          error_ = fmt::format(
              "rank {}: piece {} is received by stream {} and used by another stream; streams "
              "of a rank must not share pieces",
              r, q, writer[q] == kMany ? std::string("several") : std::to_string(writer[q]));
          return false;
        }
      }
    }
    return true;
  }

  void initialise() {
    const std::uint32_t n = p_.num_ranks;
    for (Rank r = 0; r < n; ++r) {
      for (std::uint32_t piece = 0; piece < p_.num_pieces; ++piece) {
        const bool holds = p_.collective == Collective::AllToAll ? p_.piece_owner(piece / n) == r
                           : p_.collective == Collective::AllGather ? p_.piece_owner(piece) == r
                                                                    : true;
        if (holds) set(held_.at(r, piece), r);
      }
    }
  }

  void check_final() {
    const std::uint32_t n = p_.num_ranks;
    const std::uint32_t w = held_.words();
    const char* name = to_string(p_.collective);
    for (Rank r = 0; r < n; ++r) {
      for (std::uint32_t piece = 0; piece < p_.num_pieces; ++piece) {
        const std::uint64_t* s = held_.at(r, piece);
        switch (p_.collective) {
          case Collective::AllReduce:
          case Collective::ReduceScatter: {
            if (p_.collective == Collective::ReduceScatter && p_.piece_owner(piece) != r) continue;
            const std::uint32_t got = popcount(s, w);
            if (got != n) {
              Rank missing = 0;
              while (has(s, missing)) ++missing;
              error_ = fmt::format(
                  "{}: rank {} ends with piece {} reduced over {} of {} ranks (missing rank {})",
                  name, r, piece, got, n, missing);
              return;
            }
            break;
          }
          case Collective::AllGather:
          case Collective::AllToAll: {
            if (p_.collective == Collective::AllToAll && p_.piece_owner(piece) != r) continue;
            const Rank origin = p_.collective == Collective::AllToAll ? p_.piece_owner(piece / n)
                                                                      : p_.piece_owner(piece);
            if (popcount(s, w) != 1 || !has(s, origin)) {
              error_ = fmt::format("{}: rank {} ends without rank {}'s piece {}", name, r, origin,
                                   piece);
              return;
            }
            break;
          }
        }
      }
    }
  }

  const Program& p_;
  Holdings held_;
  Progress progress_;
  std::deque<Message> in_flight_;
  std::unordered_map<std::uint64_t, std::vector<std::uint64_t>> snapshots_;
  std::unordered_map<std::uint64_t, std::uint32_t> copies_left_;  // multicasts: receivers left
  std::uint64_t messages_ = 0;
  std::string error_;
};

}  // namespace

Verdict verify(const Program& p) { return Checker(p).run(); }

}  // namespace collsim::collective
