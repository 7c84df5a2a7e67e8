#include "report/llm_report.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace collsim::report {

namespace {

double ms(core::Time t) { return t.seconds() * 1e3; }
constexpr double kGiB = 1073741824.0;

const char* kHeader =
    "config,model,gpu,gpus,tp,pp,dp,ep,cp,vpp,micro_batch,global_batch,micro_batches,schedule,"
    "zero,recompute,sequence_parallel,matmul_efficiency,iteration_time_ms,tokens_per_s,"
    "tflops_per_gpu,model_tflops_per_gpu,mfu,compute_ms,optimizer_ms,tp_exposed_ms,"
    "pp_exposed_ms,dp_exposed_ms,ep_exposed_ms,cp_exposed_ms,bubble_ms,memory_gib,"
    "weights_gib,gradients_gib,optimizer_gib,activations_gib,gpu_memory_gib,fits";

std::string schedule(const workload::LlmParallel& p) {
  if (p.vpp > 1) return "interleaved-1f1b";
  return workload::to_string(p.schedule);
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

std::string csv(const std::vector<LlmRow>& rows) {
  std::string out = std::string(kHeader) + "\n";
  for (const LlmRow& row : rows) {
    const auto& p = row.setup.parallel;
    const auto& r = row.result;
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.3f},{:.3f},{:.1f},{:.2f},{:.2f},"
        "{:.4f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.2f},{:.2f},{:.2f},"
        "{:.2f},{:.2f},{:.2f},{}\n",
        csv_cell(row.config), csv_cell(r.model), r.gpu, r.gpus, p.tp, p.pp, p.dp, p.ep, p.cp,
        p.vpp, p.micro_batch, p.global_batch, r.micro_batches, schedule(p),
        workload::to_string(p.zero), workload::to_string(p.recompute),
        p.sequence_parallel ? "true" : "false", r.matmul_efficiency, ms(r.iteration),
        r.tokens_per_s, r.tflops_per_gpu, r.model_tflops_per_gpu, r.mfu, ms(r.compute),
        ms(r.optimizer), ms(r.tp), ms(r.pp), ms(r.dp), ms(r.ep), ms(r.cp), ms(r.bubble),
        r.memory.total() / kGiB, r.memory.weights / kGiB, r.memory.gradients / kGiB,
        r.memory.optimizer / kGiB, r.memory.activations / kGiB, r.gpu_memory / kGiB,
        r.memory.total() <= r.gpu_memory ? "true" : "false");
  }
  return out;
}

std::string json(const std::vector<LlmRow>& rows) {
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const LlmRow& row : rows) {
    const auto& c = row.setup;
    const auto& p = c.parallel;
    const auto& r = row.result;
    nlohmann::ordered_json j;
    j["config"] = row.config;
    j["model"] = {{"name", r.model},          {"layers", c.model.layers},
                  {"hidden", c.model.hidden}, {"heads", c.model.heads},
                  {"kv_heads", c.model.kv_heads}, {"ffn_hidden", c.model.ffn_hidden},
                  {"seq_len", c.model.seq_len},   {"vocab", c.model.vocab},
                  {"padded_vocab", workload::padded_vocab(c.model.vocab, p.tp)},
                  {"experts", c.model.experts},   {"top_k", c.model.top_k}};
    j["parallel"] = {{"tp", p.tp},
                     {"pp", p.pp},
                     {"dp", p.dp},
                     {"ep", p.ep},
                     {"cp", p.cp},
                     {"vpp", p.vpp},
                     {"micro_batch", p.micro_batch},
                     {"global_batch", p.global_batch},
                     {"micro_batches", r.micro_batches},
                     {"schedule", schedule(p)},
                     {"sequence_parallel", p.sequence_parallel},
                     {"zero", workload::to_string(p.zero)},
                     {"recompute", workload::to_string(p.recompute)}};
    j["gpu"] = r.gpu;
    j["gpus"] = r.gpus;
    j["cluster"] = r.cluster;
    j["topology"] = r.topology;
    j["matmul_efficiency"] = r.matmul_efficiency;
    j["iteration_time_ms"] = ms(r.iteration);
    j["tokens_per_s"] = r.tokens_per_s;
    j["tflops_per_gpu"] = r.tflops_per_gpu;
    j["model_tflops_per_gpu"] = r.model_tflops_per_gpu;
    j["mfu"] = r.mfu;
    j["critical_stage"] = r.critical_stage;
    j["split_ms"] = {{"compute", ms(r.compute)},   {"optimizer", ms(r.optimizer)},
                     {"tp_exposed", ms(r.tp)},     {"pp_exposed", ms(r.pp)},
                     {"dp_exposed", ms(r.dp)},     {"ep_exposed", ms(r.ep)},
                     {"cp_exposed", ms(r.cp)},     {"bubble", ms(r.bubble)}};
    j["memory_gib"] = {{"weights", r.memory.weights / kGiB},
                       {"gradients", r.memory.gradients / kGiB},
                       {"optimizer", r.memory.optimizer / kGiB},
                       {"activations", r.memory.activations / kGiB},
                       {"total", r.memory.total() / kGiB},
                       {"gpu", r.gpu_memory / kGiB}};
    j["messages"] = r.messages;  // every network message of the iteration
    j["events"] = r.events;
    runs.push_back(std::move(j));
  }
  nlohmann::ordered_json doc;
  doc["units"] = {{"*_ms", "milliseconds (one iteration)"},
                  {"tokens_per_s", "tokens per second"},
                  {"tflops_per_gpu", "10^12 FLOP/s per GPU, recomputation included (Narayanan "
                                     "et al. SC'21's achieved FLOP/s)"},
                  {"model_tflops_per_gpu", "10^12 FLOP/s per GPU without recomputation"},
                  {"mfu", "model FLOP/s over the GPU's dense 16-bit peak"},
                  {"memory_gib", "GiB per GPU (2^30 bytes)"}};
  doc["runs"] = std::move(runs);
  return doc.dump(2) + "\n";
}

std::string table(const std::vector<LlmRow>& rows) {
  std::string out;
  for (const LlmRow& row : rows) {
    const auto& p = row.setup.parallel;
    const auto& r = row.result;
    out += fmt::format("{}: {} on {} x {}\n", row.config, r.model, r.gpus, r.gpu);
    out += fmt::format("  cluster          {}\n", r.cluster);
    if (!r.topology.empty()) out += fmt::format("  --topology       {}\n", r.topology);
    out += fmt::format(
        "  parallel         tp {} pp {} dp {} ep {} cp {} vpp {}, micro-batch {} x {} "
        "({}), ZeRO {}, recompute {}, sequence parallel {}\n",
        p.tp, p.pp, p.dp, p.ep, p.cp, p.vpp, p.micro_batch, r.micro_batches, schedule(p),
        workload::to_string(p.zero), workload::to_string(p.recompute),
        p.sequence_parallel ? "on" : "off");
    out += fmt::format("  iteration        {:.3f} ms   {:.0f} tokens/s   {:.1f} TFLOP/s per GPU "
                       "({:.1f} model)   MFU {:.1f}%\n",
                       ms(r.iteration), r.tokens_per_s, r.tflops_per_gpu,
                       r.model_tflops_per_gpu, 100 * r.mfu);
    const double it = ms(r.iteration);
    const auto line = [&](const char* name, core::Time t) {
      out += fmt::format("    {:<16}{:>12.3f} ms  {:5.1f}%\n", name, ms(t),
                         it > 0 ? 100 * ms(t) / it : 0.0);
    };
    out += fmt::format("  split (stage {}, sums to the iteration):\n", r.critical_stage);
    line("compute", r.compute);
    line("optimizer", r.optimizer);
    line("TP exposed", r.tp);
    line("PP exposed", r.pp);
    line("DP exposed", r.dp);
    line("EP exposed", r.ep);
    line("CP exposed", r.cp);
    line("bubble", r.bubble);
    out += fmt::format(
        "  memory per GPU   {:.2f} GiB of {:.0f} (weights {:.2f}, gradients {:.2f}, optimizer "
        "{:.2f}, activations {:.2f}){}\n",
        r.memory.total() / kGiB, r.gpu_memory / kGiB, r.memory.weights / kGiB,
        r.memory.gradients / kGiB, r.memory.optimizer / kGiB, r.memory.activations / kGiB,
        r.memory.total() <= r.gpu_memory ? "" : "  DOES NOT FIT");
  }
  return out;
}

}  // namespace

std::string render_llm(const std::vector<LlmRow>& rows, Format f) {
  switch (f) {
    case Format::Csv: return csv(rows);
    case Format::Json: return json(rows);
    case Format::Table: break;
  }
  return table(rows);
}

std::string render_llm_trace(const LlmRow& row) {
  nlohmann::ordered_json events = nlohmann::ordered_json::array();
  for (std::size_t s = 0; s < row.result.timeline.size(); ++s) {
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", s},
                      {"args", {{"name", fmt::format("stage {}", s)}}}});
    for (const auto& op : row.result.timeline[s]) {
      events.push_back({{"name", fmt::format("{}{} chunk {}", op.kind, op.micro_batch, op.chunk)},
                        {"cat", op.kind == 'F' ? "forward" : "backward"},
                        {"ph", "X"},
                        {"pid", 0},
                        {"tid", s},
                        {"ts", op.start.us()},
                        {"dur", (op.end - op.start).us()}});
    }
  }
  nlohmann::ordered_json doc;
  doc["traceEvents"] = std::move(events);
  doc["displayTimeUnit"] = "ms";
  return doc.dump() + "\n";
}

}  // namespace collsim::report
