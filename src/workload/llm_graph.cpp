// The LLM generator (workload/llm_graph.hpp).
#include "workload/llm_graph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

#include "core/error.hpp"

namespace collsim::workload {

using collective::Collective;

std::uint32_t llm_rank(const LlmParallel& p, std::uint32_t tp, std::uint32_t cp, std::uint32_t dp,
                       std::uint32_t pp) {
  return tp + p.tp * (cp + p.cp * (dp + p.dp * pp));
}

std::vector<LlmOp> stage_schedule(const LlmParallel& p, std::uint32_t s) {
  const std::uint32_t m = p.micro_batches(), pp = p.pp, vpp = p.vpp;
  std::vector<LlmOp> ops;
  const auto op = [](bool b, std::uint32_t mb, std::uint32_t ch) {
    LlmOp o;
    o.backward = b;
    o.micro_batch = mb;
    o.chunk = ch;
    return o;
  };
  if (p.schedule == PipeSchedule::GPipe) {
    for (std::uint32_t i = 0; i < m; ++i) ops.push_back(op(false, i, 0));
    for (std::uint32_t i = 0; i < m; ++i) ops.push_back(op(true, i, 0));
    return ops;
  }
  const std::uint32_t total = m * vpp;
  const std::uint32_t warmup =
      vpp == 1 ? std::min(pp - s - 1, m) : std::min((pp - s - 1) * 2 + (vpp - 1) * pp, total);
  const std::uint32_t group = pp * vpp;
  const auto fwd = [&](std::uint32_t k) {
    if (vpp == 1) return op(false, k, 0);
    return op(false, (k / group) * pp + k % pp, (k % group) / pp);
  };
  const auto bwd = [&](std::uint32_t k) {
    if (vpp == 1) return op(true, k, 0);
    return op(true, (k / group) * pp + k % pp, vpp - 1 - (k % group) / pp);
  };
  for (std::uint32_t k = 0; k < warmup; ++k) ops.push_back(fwd(k));
  for (std::uint32_t k = 0; k < total - warmup; ++k) {
    ops.push_back(fwd(warmup + k));
    ops.push_back(bwd(k));
  }
  for (std::uint32_t k = total - warmup; k < total; ++k) ops.push_back(bwd(k));
  return ops;
}

namespace {

// A communicator kind in Megatron's rank order: rank r is in the group based at
// r - ((r / stride) % size) x stride.
struct Kind {
  std::uint32_t stride = 1, size = 1;
};

class Builder {
 public:
  explicit Builder(const LlmGraphInput& in) : in_(in), p_(in.parallel) {
    V_ = p_.pp * p_.vpp;
    if (in.layers == 0 || in.layers % V_ != 0) {
      throw core::InputError(fmt::format("llm: {} layers do not divide into pp x vpp = {} stages",
                                         in.layers, V_));
    }
    per_chunk_ = in.layers / V_;
    T_ = p_.tp * p_.cp * p_.dp;
    Graph& g = out_.graph;
    g.name = "llm iteration";
    compute_ = g.stream("compute");
    s_tp_ = g.stream("comm:tp");
    s_ep_ = g.stream("comm:ep");
    s_dp_ = g.stream("comm:dp");
    s_p2p_ = g.stream("p2p", false);
    out_.c_compute = g.category("compute");
    out_.c_optimizer = g.category("optimizer");
    out_.c_tp = g.category("tp");
    out_.c_pp = g.category("pp");
    out_.c_dp = g.category("dp");
    out_.c_ep = g.category("ep");
    out_.c_cp = g.category("cp");
  }

  LlmGraph build() {
    Graph& g = out_.graph;
    const std::uint32_t n = in_.all_ranks ? p_.gpus() : p_.pp;
    g.programs.resize(n);
    out_.ops.resize(n);
    for (std::uint32_t t = 0; t < n; ++t) {
      const std::uint32_t npu = in_.all_ranks ? t : llm_rank(p_, 0, 0, 0, t);
      g.programs[t].source = in_.all_ranks ? fmt::format("rank {} (stage {})", t, stage_of(t))
                                           : fmt::format("stage {}", t);
      g.timelines.push_back({npu, t, {}});
    }
    for (std::uint32_t s = 0; s < p_.pp; ++s) {
      out_.stage_timeline.push_back(in_.all_ranks ? llm_rank(p_, 0, 0, 0, s) : s);
    }
    for (std::uint32_t t = 0; t < n; ++t) stage(t);
    return std::move(out_);
  }

 private:
  // The pipeline stage of timeline t.
  std::uint32_t stage_of(std::uint32_t t) const { return in_.all_ranks ? t / T_ : t; }

  // The ranks whose traffic timeline t runs: its own (all_ranks), or those of its stage in
  // data-parallel replica 0 (with one_rail, tensor-parallel index 0 only).
  std::vector<std::uint32_t> ranks_of(std::uint32_t t) const {
    if (in_.all_ranks) return {t};
    std::vector<std::uint32_t> out;
    for (std::uint32_t c = 0; c < p_.cp; ++c) {
      for (std::uint32_t x = 0; x < (in_.one_rail ? 1u : p_.tp); ++x) {
        out.push_back(llm_rank(p_, x, c, 0, t));
      }
    }
    return out;
  }

  // The timeline that runs rank r's traffic, if any.
  std::uint32_t owner(std::uint32_t r) const {
    if (in_.all_ranks) return r;
    const std::uint32_t s = r / T_, within = r % T_;
    if (within >= p_.tp * p_.cp) return kNone;  // another replica
    if (in_.one_rail && within % p_.tp != 0) return kNone;
    return s;
  }

  // The group of kind `k` holding each of `ranks` (distinct communicators launched together),
  // issued by every timeline that runs one of its members.
  std::uint32_t group(const char* what, Kind k, const std::vector<std::uint32_t>& ranks) {
    if (k.size < 2) return kNone;  // a group of one rank has nothing to exchange
    std::set<std::uint32_t> bases;
    for (std::uint32_t r : ranks) bases.insert(r - ((r / k.stride) % k.size) * k.stride);
    std::string key = fmt::format("{}", what);
    for (std::uint32_t b : bases) key += fmt::format("@{}", b);
    if (const auto it = groups_.find(key); it != groups_.end()) return it->second;
    Group gr;
    gr.name = key;
    std::set<std::uint32_t> participants;
    for (std::uint32_t b : bases) {
      collective::Communicator c;
      c.label = fmt::format("{}@{}", what, b);
      for (std::uint32_t i = 0; i < k.size; ++i) {
        c.npus.push_back(b + i * k.stride);
        if (const std::uint32_t o = owner(c.npus.back()); o != kNone) participants.insert(o);
      }
      gr.comms.push_back(std::move(c));
    }
    gr.participants.assign(participants.begin(), participants.end());
    if (in_.tp_alone && std::string_view(what) == "tp") gr.timing_class = 0;
    out_.graph.groups.push_back(std::move(gr));
    const auto id = static_cast<std::uint32_t>(out_.graph.groups.size() - 1);
    groups_.emplace(key, id);
    return id;
  }

  // Appends to stage s's program; `deps` data dependencies.
  std::uint32_t add(std::uint32_t s, Node n, const std::vector<std::uint32_t>& deps) {
    ProgramBuilder b(out_.graph.programs[s]);
    return b.add(n, deps);
  }

  // A compute node on the main stream after `prev` (and `more`); returns it, or prev if t = 0.
  std::uint32_t compute(std::uint32_t s, std::uint32_t prev, core::Time t,
                        std::vector<std::uint32_t> more = {}, std::uint32_t category = kNone) {
    if (t.ps == 0 && more.empty()) return prev;
    Node n;
    n.kind = NodeKind::Compute;
    n.stream = static_cast<std::uint16_t>(compute_);
    n.category = category == kNone ? out_.c_compute : category;
    n.duration = t;
    if (prev != kNone) more.insert(more.begin(), prev);
    return add(s, n, more);
  }

  // A collective after `prev`, on `stream`; returns it.
  std::uint32_t coll(std::uint32_t s, std::uint32_t prev, Collective c, std::uint32_t group,
                     core::Bytes size, std::uint32_t stream, std::uint32_t category,
                     std::vector<std::uint32_t> more = {}) {
    if (size.count == 0 || group == kNone) return prev;
    Node n;
    n.kind = NodeKind::Collective;
    n.collective = c;
    n.group = group;
    n.bytes = size.count;
    n.stream = static_cast<std::uint16_t>(stream);
    n.category = category;
    n.name = out_.graph.intern(fmt::format("stage {} {} {} on {}", s,
                                           out_.graph.categories[category],
                                           collective::to_string(c),
                                           out_.graph.groups[group].name));
    if (prev != kNone) more.insert(more.begin(), prev);
    return add(s, n, more);
  }

  // A zero-time join on the main stream of everything in `deps`.
  std::uint32_t join(std::uint32_t s, const std::vector<std::uint32_t>& deps,
                     std::uint32_t category) {
    Node n;
    n.kind = NodeKind::Delay;
    n.stream = static_cast<std::uint16_t>(compute_);
    n.category = category;
    std::vector<std::uint32_t> d;
    for (std::uint32_t x : deps) {
      if (x != kNone) d.push_back(x);
    }
    return add(s, n, d);
  }

  std::uint32_t tp_coll(std::uint32_t s, std::uint32_t prev, Collective c) {
    if (p_.tp < 2) return prev;
    return coll(s, prev, c, group("tp", {1, p_.tp}, ranks_of(s)), in_.tp_bytes, s_tp_,
                out_.c_tp);
  }

  std::uint32_t ep_coll(std::uint32_t s, std::uint32_t prev) {
    if (!in_.moe || p_.ep < 2) return prev;
    return coll(s, prev, Collective::AllToAll, group("ep", {p_.tp, p_.ep}, ranks_of(s)),
                in_.ep_bytes, s_ep_, out_.c_ep);
  }

  // Ring attention: cp - 1 steps, each sending the key/value block to the next CP rank while the
  // attention core of the block in hand runs; `scale` 2 for the backward (gradients too).
  std::uint32_t cp_steps(std::uint32_t s, std::uint32_t prev, std::uint32_t scale) {
    if (p_.cp < 2) return prev;
    const core::Time chunk{in_.layer.attention_core.ps * scale / p_.cp};
    std::uint32_t at = prev;
    for (std::uint32_t k = 1; k < p_.cp; ++k) {
      std::vector<std::uint32_t> recvs;
      const std::int32_t tag = cp_tag(k);
      for (std::uint32_t r : ranks_of(s)) {
        // r's context-parallel neighbours: the next and the previous CP rank (same TP index).
        const std::uint32_t c = (r / p_.tp) % p_.cp, base = r - c * p_.tp;
        const std::uint32_t next = base + ((c + 1) % p_.cp) * p_.tp;
        const std::uint32_t prev_rank = base + ((c + p_.cp - 1) % p_.cp) * p_.tp;
        Node snd;
        snd.kind = NodeKind::Send;
        snd.stream = static_cast<std::uint16_t>(s_p2p_);
        snd.category = out_.c_cp;
        snd.src = r;
        snd.dst = next;
        snd.tag = tag;
        snd.bytes = in_.cp_bytes.count * scale;
        add(s, snd, at == kNone ? std::vector<std::uint32_t>{} : std::vector{at});
        Node rcv = snd;
        rcv.kind = NodeKind::Recv;
        rcv.src = prev_rank;
        rcv.dst = r;
        recvs.push_back(add(s, rcv, {}));
      }
      // The block in hand overlaps the exchange; the next step needs both.
      const std::uint32_t work = compute(s, at, chunk);
      recvs.push_back(work);
      at = join(s, recvs, out_.c_cp);
    }
    return at;
  }

  // The attention's compute less the blocks its ring steps run (cp > 1: cp - 1 of cp blocks of
  // the attention core, `scale` 2 backward).
  core::Time without_ring(core::Time t, std::uint32_t scale) const {
    if (p_.cp < 2) return t;
    const core::Time ring{in_.layer.attention_core.ps * scale / p_.cp * (p_.cp - 1)};
    return t > ring ? t - ring : core::Time{};
  }

  // One layer's forward on stage s after `prev`.
  std::uint32_t layer_forward(std::uint32_t s, std::uint32_t prev) {
    const bool sp = p_.sequence_parallel;
    std::uint32_t at = prev;
    if (sp) at = tp_coll(s, at, Collective::AllGather);
    at = compute(s, at, without_ring(in_.layer.fwd_attention, 1));
    at = cp_steps(s, at, 1);
    at = tp_coll(s, at, sp ? Collective::ReduceScatter : Collective::AllReduce);
    if (sp) at = tp_coll(s, at, Collective::AllGather);
    at = ep_coll(s, at);
    at = compute(s, at, in_.layer.fwd_mlp);
    at = ep_coll(s, at);
    at = tp_coll(s, at, sp ? Collective::ReduceScatter : Collective::AllReduce);
    return at;
  }

  std::uint32_t layer_backward(std::uint32_t s, std::uint32_t prev) {
    const bool sp = p_.sequence_parallel;
    std::uint32_t at = prev;
    if (p_.recompute == Recompute::Full) at = layer_forward(s, at);
    if (sp) at = tp_coll(s, at, Collective::AllGather);
    at = ep_coll(s, at);
    at = compute(s, at, in_.layer.bwd_mlp);
    at = ep_coll(s, at);
    at = tp_coll(s, at, sp ? Collective::ReduceScatter : Collective::AllReduce);
    if (sp) at = tp_coll(s, at, Collective::AllGather);
    at = compute(s, at, without_ring(in_.layer.bwd_attention, 2));
    at = cp_steps(s, at, 2);
    at = tp_coll(s, at, sp ? Collective::ReduceScatter : Collective::AllReduce);
    return at;
  }

  // Messages of op (v, mb) between stages: a send per rank of timeline t to the same rank of
  // stage `to` (or a receive from the same rank of stage `from`); tag: virtual stage,
  // micro-batch, direction.
  std::vector<std::uint32_t> p2p(std::uint32_t t, bool send, std::uint32_t other,
                                 std::int32_t tag, std::uint32_t after) {
    std::vector<std::uint32_t> out;
    const std::uint32_t s = stage_of(t);
    if (in_.pp_bytes.count == 0 || other == s) return out;
    for (std::uint32_t r : ranks_of(t)) {
      Node n;
      n.kind = send ? NodeKind::Send : NodeKind::Recv;
      n.stream = static_cast<std::uint16_t>(s_p2p_);
      n.category = out_.c_pp;
      const std::uint32_t peer = r - s * T_ + other * T_;
      n.src = send ? r : peer;
      n.dst = send ? peer : r;
      n.tag = tag;
      n.bytes = in_.pp_bytes.count;
      out.push_back(add(t, n, after == kNone ? std::vector<std::uint32_t>{} : std::vector{after}));
    }
    return out;
  }

  // Ring-attention step k's messages (the context-parallel layer calls come in order on every
  // rank, so a step number per call keeps them apart from the pipeline's).
  std::int32_t cp_tag(std::uint32_t k) {
    return static_cast<std::int32_t>((1u << 30) + (cp_calls_++) * p_.cp + k);
  }

  std::int32_t pp_tag(std::uint32_t v, std::uint32_t mb, bool backward) const {
    return static_cast<std::int32_t>(((std::uint64_t{v} * p_.micro_batches() + mb) * 2 +
                                      (backward ? 1 : 0)) &
                                     0x7fffffff);
  }

  struct Bucket {
    std::uint32_t ready;  // node whose end makes it ready
    bool expert;
    double params;
  };

  // Timeline s (a stage, or a rank of it with all_ranks): its schedule, then the gradients'
  // reductions and the optimizer.
  void stage(std::uint32_t s) {
    const std::uint32_t st = stage_of(s);
    cp_calls_ = 0;
    std::vector<LlmOp> ops = stage_schedule(p_, st);
    const bool zero3 = p_.zero == Zero::Three || p_.zero == Zero::Fsdp;
    const std::vector<std::uint32_t> ranks = ranks_of(s);
    const std::uint32_t dpg = group("dp", {p_.tp, p_.cp * p_.dp}, ranks);
    const std::uint32_t edpg =
        group("edp", {p_.tp * p_.ep, std::max(1u, p_.cp * p_.dp / p_.ep)}, ranks);
    const core::Bytes dense{static_cast<std::uint64_t>(in_.layer_dense_params * 2)};
    const core::Bytes expert{static_cast<std::uint64_t>(in_.layer_expert_params * 2)};
    std::uint32_t last = kNone;  // the main stream's last node
    std::vector<Bucket> buckets;
    // The last backward op of each chunk on this stage: its layers' gradients are final then.
    std::vector<std::size_t> last_bwd(p_.vpp, ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].backward) last_bwd[ops[i].chunk] = i;
    }
    for (std::size_t oi = 0; oi < ops.size(); ++oi) {
      LlmOp& op = ops[oi];
      const std::uint32_t v = op.chunk * p_.pp + st;
      std::vector<std::uint32_t> inputs;
      if (!op.backward && v > 0) {
        inputs = p2p(s, false, (v - 1) % p_.pp, pp_tag(v, op.micro_batch, false), kNone);
      }
      if (op.backward && v + 1 < V_) {
        inputs = p2p(s, false, (v + 1) % p_.pp, pp_tag(v, op.micro_batch, true), kNone);
      }
      // The op starts when the previous one has ended and its input has arrived.
      if (last != kNone) inputs.insert(inputs.begin(), last);
      std::uint32_t at = join(s, inputs, out_.c_pp);
      op.first = at;
      const bool first_chunk = v == 0, last_chunk = v == V_ - 1;
      if (!op.backward) {
        if (first_chunk) at = compute(s, at, in_.embed_fwd);
        std::uint32_t gathered = kNone, started = at;
        for (std::uint32_t l = 0; l < per_chunk_; ++l) {
          if (zero3) {  // this layer's parameters, gathered from when the previous layer started
            gathered = gather(s, gathered, started, dpg, edpg, dense, expert);
            at = join(s, {at, gathered}, out_.c_dp);
          }
          started = at;
          at = layer_forward(s, at);
        }
        if (last_chunk) at = compute(s, at, in_.head_fwd);
      } else {
        if (last_chunk) at = compute(s, at, in_.head_bwd);
        std::uint32_t gathered = kNone, started = at;
        for (std::uint32_t l = per_chunk_; l-- > 0;) {
          if (zero3) {
            gathered = gather(s, gathered, started, dpg, edpg, dense, expert);
            at = join(s, {at, gathered}, out_.c_dp);
          }
          started = at;
          at = layer_backward(s, at);
          if (zero3) {  // gradients scattered behind
            const std::uint32_t rs =
                coll(s, at, Collective::ReduceScatter, dpg, dense, s_dp_, out_.c_dp);
            sharded_.push_back(expert.count ? coll(s, rs, Collective::ReduceScatter, edpg, expert,
                                                   s_dp_, out_.c_dp)
                                            : rs);
          }
          if (!zero3 && oi == last_bwd[op.chunk]) {
            const double extra = (v == 0 || v == V_ - 1) ? in_.embed_params : 0;
            // Layers are reduced in backward order; the embedding's gradient with the chunk's
            // last layer (its first in the backward pass).
            add_bucket(buckets, at, l, extra);
          }
        }
        if (first_chunk) at = compute(s, at, in_.embed_bwd);
      }
      const std::vector<std::uint32_t> sent =
          !op.backward && v + 1 < V_
              ? p2p(s, true, (v + 1) % p_.pp, pp_tag(v + 1, op.micro_batch, false), at)
          : op.backward && v > 0
              ? p2p(s, true, (v - 1) % p_.pp, pp_tag(v - 1, op.micro_batch, true), at)
              : std::vector<std::uint32_t>{};
      (void)sent;
      op.last = at;
      last = at;
    }
    out_.ops[s] = ops;
    finish_stage(s, last, buckets, dpg, edpg);
  }

  // ZeRO-3 / FSDP: a layer's parameters all-gathered (dense, then expert) after the previous
  // gather on the data-parallel stream, from when `started` ends.
  std::uint32_t gather(std::uint32_t s, std::uint32_t previous, std::uint32_t started,
                       std::uint32_t dpg, std::uint32_t edpg, core::Bytes dense,
                       core::Bytes expert) {
    std::uint32_t at =
        coll(s, previous, Collective::AllGather, dpg, dense, s_dp_, out_.c_dp, {started});
    if (expert.count) at = coll(s, at, Collective::AllGather, edpg, expert, s_dp_, out_.c_dp);
    return at;
  }

  // Megatron DDP's buckets: max(40M, 1M x DP size) parameters, filled in backward order.
  void add_bucket(std::vector<Bucket>& buckets, std::uint32_t ready, std::uint32_t l,
                  double extra) {
    const double shard = static_cast<double>(p_.cp) * p_.dp;
    const double limit = std::max(40e6, 1e6 * shard);
    const bool overlap = p_.overlap_grad_reduce;
    dense_acc_ += in_.layer_dense_params + (l + 1 == per_chunk_ ? extra : 0);
    expert_acc_ += in_.layer_expert_params;
    (void)overlap;
    if (dense_acc_ >= limit || l == 0) {
      buckets.push_back({ready, false, dense_acc_});
      dense_acc_ = 0;
    }
    if (expert_acc_ > 0 && (expert_acc_ >= limit || l == 0)) {
      buckets.push_back({ready, true, expert_acc_});
      expert_acc_ = 0;
    }
  }

  void finish_stage(std::uint32_t s, std::uint32_t last, const std::vector<Bucket>& buckets,
                    std::uint32_t dpg, std::uint32_t edpg) {
    const Collective grad = p_.zero == Zero::None ? Collective::AllReduce : Collective::ReduceScatter;
    std::vector<std::uint32_t> reduced = sharded_;
    sharded_.clear();
    for (const Bucket& b : buckets) {
      const core::Bytes bytes{static_cast<std::uint64_t>(b.params * 2)};
      const std::uint32_t ready = p_.overlap_grad_reduce ? b.ready : last;
      reduced.push_back(
          coll(s, ready, grad, b.expert ? edpg : dpg, bytes, s_dp_, out_.c_dp));
    }
    // The tied word embedding lives on the first and the last stage: Megatron all-reduces its
    // gradient between them after the data-parallel reduction (finalize_model_grads).
    const std::uint32_t st = stage_of(s);
    if (p_.pp > 1 && (st == 0 || st + 1 == p_.pp)) {
      const std::uint32_t eg = group("embedding", {T_ * (p_.pp - 1), 2}, ranks_of(s));
      std::vector<std::uint32_t> before = reduced;
      before.push_back(last);
      reduced = {coll(s, kNone, Collective::AllReduce, eg,
                      core::Bytes{static_cast<std::uint64_t>(in_.embed_params * 2)}, s_dp_,
                      out_.c_dp, before)};
    }
    std::vector<std::uint32_t> deps = reduced;
    deps.insert(deps.begin(), last);
    const std::uint32_t waited = join(s, deps, out_.c_dp);
    const std::uint32_t opt = compute(s, waited, in_.optimizer.at(st), {}, out_.c_optimizer);
    // The distributed optimizer's parameter all-gathers after the step (ZeRO-1/2).
    if (p_.zero == Zero::One || p_.zero == Zero::Two) {
      std::vector<std::uint32_t> gathered{opt};
      std::uint32_t at = opt;
      for (const Bucket& b : buckets) {
        const core::Bytes bytes{static_cast<std::uint64_t>(b.params * 2)};
        at = coll(s, at, Collective::AllGather, b.expert ? edpg : dpg, bytes, s_dp_, out_.c_dp);
        gathered.push_back(at);
      }
      join(s, gathered, out_.c_dp);
    }
  }

  const LlmGraphInput& in_;
  const LlmParallel& p_;
  LlmGraph out_;
  std::uint32_t V_ = 1, per_chunk_ = 1, T_ = 1;
  std::uint32_t compute_ = 0, s_tp_ = 0, s_ep_ = 0, s_dp_ = 0, s_p2p_ = 0;
  std::map<std::string, std::uint32_t> groups_;
  std::vector<std::uint32_t> sharded_;  // ZeRO-3 gradient reduce-scatters of the stage
  double dense_acc_ = 0, expert_acc_ = 0;
  std::uint32_t cp_calls_ = 0;  // ring-attention steps so far on the timeline being built
};

}  // namespace

LlmGraph llm_graph(const LlmGraphInput& in) { return Builder(in).build(); }

}  // namespace collsim::workload
