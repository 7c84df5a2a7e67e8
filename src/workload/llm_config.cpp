#include "workload/llm_config.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <tuple>

#include "core/error.hpp"
#include "core/parse.hpp"
#include "core/suggest.hpp"
#include "core/input_file.hpp"
#include "io/yaml_load.hpp"
#include "io/yaml_reader.hpp"

namespace collsim::workload {

namespace {

LlmModel gpt(const char* name, std::uint32_t layers, std::uint32_t hidden, std::uint32_t heads) {
  LlmModel m;
  m.name = name;
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = heads;
  m.ffn_hidden = 4 * hidden;
  m.seq_len = 2048;
  m.vocab = 51200;
  m.source =
      "Narayanan et al., Efficient Large-Scale Language Model Training on GPU Clusters Using "
      "Megatron-LM (SC'21), Table 1 (sequence 2048, vocabulary 51,200)";
  return m;
}

LlmModel llama(const char* name, std::uint32_t layers, std::uint32_t hidden, std::uint32_t heads,
               std::uint32_t kv, std::uint32_t ffn, std::uint32_t seq, std::uint32_t vocab,
               const char* source) {
  LlmModel m;
  m.name = name;
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = kv;
  m.ffn_hidden = ffn;
  m.seq_len = seq;
  m.vocab = vocab;
  m.gated_mlp = true;
  m.flash_attention = true;
  m.bias = false;
  m.dropout = false;
  m.position_embedding = PositionEmbedding::Rope;
  m.source = source;
  return m;
}

std::vector<LlmModel> make_presets() {
  std::vector<LlmModel> p;
  p.push_back(gpt("gpt3-1.7b", 24, 2304, 24));
  p.push_back(gpt("gpt3-3.6b", 30, 3072, 32));
  p.push_back(gpt("gpt3-7.5b", 36, 4096, 32));
  p.push_back(gpt("gpt3-18b", 40, 6144, 48));
  p.push_back(gpt("gpt3-39b", 48, 8192, 64));
  p.push_back(gpt("gpt3-76b", 60, 10240, 80));
  p.push_back(gpt("gpt3-145b", 80, 12288, 96));
  p.push_back(gpt("gpt3-310b", 96, 16384, 128));
  p.push_back(gpt("gpt3-530b", 105, 20480, 128));
  p.push_back(gpt("gpt3-1t", 128, 25600, 160));
  LlmModel g175 = gpt("gpt3-175b", 96, 12288, 96);
  g175.source =
      "Brown et al., Language Models are Few-Shot Learners (2020), Table 2.1 (96 layers, d_model "
      "12,288, 96 heads, context 2,048); vocabulary 51,200 as Megatron-LM's padded GPT-2 BPE";
  p.push_back(g175);
  const char* l2 =
      "Touvron et al., Llama 2 (2023), Table 1 and the released config.json (context 4,096, "
      "vocabulary 32,000; 70B uses grouped-query attention with 8 KV heads)";
  p.push_back(llama("llama2-7b", 32, 4096, 32, 32, 11008, 4096, 32000, l2));
  p.push_back(llama("llama2-13b", 40, 5120, 40, 40, 13824, 4096, 32000, l2));
  p.push_back(llama("llama2-70b", 80, 8192, 64, 8, 28672, 4096, 32000, l2));
  const char* l3 =
      "Dubey et al., The Llama 3 Herd of Models (2024), Table 3 (8 KV heads, vocabulary 128,256, "
      "pre-training sequence 8,192)";
  p.push_back(llama("llama3-8b", 32, 4096, 32, 8, 14336, 8192, 128256, l3));
  p.push_back(llama("llama3-70b", 80, 8192, 64, 8, 28672, 8192, 128256, l3));
  p.push_back(llama("llama3-405b", 126, 16384, 128, 8, 53248, 8192, 128256, l3));
  LlmModel mix = llama("mixtral-8x7b", 32, 4096, 32, 8, 14336, 4096, 32000,
                       "Jiang et al., Mixtral of Experts (2024), Table 1 (8 experts, top-2, "
                       "expert FFN 14,336, 8 KV heads, vocabulary 32,000); sequence 4,096");
  mix.experts = 8;
  mix.top_k = 2;
  p.push_back(mix);
  LlmModel ds = llama("deepseek-moe-16b", 28, 2048, 16, 16, 10944, 4096, 102400,
                      "Dai et al., DeepSeekMoE (2024), Sec. 5 / Table (16B): 28 layers, hidden "
                      "2,048, 16 heads, 64 routed experts of width 1,408 with top-6 and 2 shared "
                      "experts, vocabulary 102,400, sequence 4,096; collsim makes every layer MoE "
                      "(the paper's first layer is dense)");
  ds.experts = 64;
  ds.top_k = 6;
  ds.moe_ffn_hidden = 1408;
  ds.shared_experts = 2;
  p.push_back(ds);
  return p;
}

const std::vector<std::string_view> kTop = {"model", "parallel", "system"};
const std::vector<std::string_view> kModel = {
    "preset",     "layers", "hidden",         "heads",          "kv_heads",  "ffn_hidden",
    "seq_len",    "vocab",  "experts",        "top_k",          "gated_mlp", "moe_ffn_hidden",
    "shared_experts", "flash_attention", "bias", "dropout", "position_embedding"};
const std::vector<std::string_view> kParallel = {
    "tp",          "pp",           "dp",        "ep",       "cp",         "vpp",
    "micro_batch", "global_batch", "sequence_parallel",     "zero",       "recompute",
    "schedule",    "overlap_grad_reduce",       "ep_skew",    "grad_dtype"};
const std::vector<std::string_view> kSystem = {
    "gpu",      "gpus_per_node", "nics_per_node",     "nic_bandwidth", "platform",
    "backend",  "algorithm",     "matmul_efficiency", "gpus",         "gpu_memory", "memory_efficiency"};
const std::vector<std::string_view> kPlatform = {"topology", "link_bandwidth", "link_latency"};

class Reader {
 public:
  explicit Reader(const io::YamlReader& r) : r_(r) {}

  bool boolean(const YAML::Node& n, const std::string& path) const {
    const std::string s = r_.scalar(n, path);
    if (s == "true" || s == "True" || s == "yes") return true;
    if (s == "false" || s == "False" || s == "no") return false;
    r_.fail(n, path, fmt::format("must be true or false, got \"{}\"", s));
  }
  double number(const YAML::Node& n, const std::string& path, double lo, double hi) const {
    const std::string s = r_.scalar(n, path);
    double v = 0;
    try {
      std::size_t used = 0;
      v = std::stod(s, &used);
      if (used != s.size()) throw std::invalid_argument(s);
    } catch (const std::exception&) {
      r_.fail(n, path, fmt::format("must be a number, got \"{}\"", s));
    }
    if (!std::isfinite(v) || v < lo || v > hi) {
      r_.fail(n, path, fmt::format("must be in [{:g}, {:g}], got {}", lo, hi, s));
    }
    return v;
  }
  std::uint32_t uint(const YAML::Node& map, const char* key, const std::string& section,
                     std::uint32_t min, std::uint32_t fallback) const {
    const YAML::Node n = map[key];
    if (!n) return fallback;
    return r_.uint(n, section + "." + key, min);
  }

 private:
  const io::YamlReader& r_;
};

void need(bool ok, const io::YamlReader& r, const YAML::Node& at, const std::string& path,
          const std::string& why) {
  if (!ok) r.fail(at, path, why);
}

}  // namespace

const char* to_string(Zero z) {
  switch (z) {
    case Zero::None: return "0";
    case Zero::One: return "1";
    case Zero::Two: return "2";
    case Zero::Three: return "3";
    case Zero::Fsdp: return "fsdp";
  }
  return "?";
}
const char* to_string(Recompute r) {
  switch (r) {
    case Recompute::None: return "none";
    case Recompute::Selective: return "selective";
    case Recompute::Full: return "full";
  }
  return "?";
}
const char* to_string(PipeSchedule s) {
  return s == PipeSchedule::GPipe ? "gpipe" : "1f1b";
}
const char* to_string(GradDtype g) { return g == GradDtype::Fp32 ? "fp32" : "16bit"; }

const std::vector<LlmModel>& llm_presets() {
  static const std::vector<LlmModel> presets = make_presets();
  return presets;
}

const LlmModel& find_llm_preset(std::string_view name, std::string_view field) {
  std::vector<std::string_view> names;
  std::string list;
  for (const LlmModel& m : llm_presets()) {
    if (m.name == name) return m;
    names.push_back(m.name);
    list += (list.empty() ? "" : ", ") + m.name;
  }
  throw core::InputError(fmt::format("{}: unknown model preset \"{}\"{}; valid: {}", field, name,
                                     core::did_you_mean(name, names), list));
}

std::uint64_t padded_vocab(std::uint32_t vocab, std::uint32_t tp) {
  const std::uint64_t multiple = 128ull * tp;
  return (vocab + multiple - 1) / multiple * multiple;
}

bool valid_split(const LlmConfig& c) {
  const LlmModel& mo = c.model;
  const LlmParallel& pa = c.parallel;
  const std::uint64_t gpus = std::uint64_t{pa.tp} * pa.cp * pa.dp * pa.pp;
  if (gpus > (1u << 17) || pa.micro_batch > (1u << 16)) return false;
  if (std::uint64_t{pa.dp} * pa.micro_batch > pa.global_batch ||
      pa.global_batch % (pa.dp * pa.micro_batch) != 0) {
    return false;
  }
  if (pa.micro_batches() > 100000 ||
      std::uint64_t{pa.pp} * pa.vpp * pa.micro_batches() > 20000000) {
    return false;
  }
  if (mo.layers % (pa.pp * pa.vpp) != 0 || mo.heads % pa.tp != 0) return false;
  if (mo.kv_heads % pa.tp != 0 && pa.tp % mo.kv_heads != 0) return false;
  if (mo.ffn_hidden % pa.tp != 0 || mo.expert_ffn() % pa.tp != 0) return false;
  if (pa.vpp > 1 && (pa.pp == 1 || pa.schedule != PipeSchedule::OneFOneB ||
                     pa.micro_batches() % pa.pp != 0)) {
    return false;
  }
  if (pa.cp > 1 && mo.seq_len % (2 * pa.cp) != 0) return false;
  if ((pa.dp * pa.cp) % pa.ep != 0) return false;
  return mo.experts == 0 ? pa.ep == 1 : mo.experts % pa.ep == 0;
}

LlmConfig parse_llm_config(const std::string& text, const std::string& source) {
  const io::YamlReader r(source);
  const YAML::Node root = io::load_yaml(text, source);
  if (!root || !root.IsMap()) {
    throw core::InputError(source + ": must be a map with model, parallel and system");
  }
  r.unique_keys(root, "");
  r.check_keys(root, "", kTop);
  const Reader rd(r);
  for (const char* sec : {"model", "parallel", "system"}) {
    if (!root[sec]) r.fail(root, sec, "missing (required)");
  }
  LlmConfig c;

  // model
  const YAML::Node m = root["model"];
  r.check_keys(m, "model", kModel);
  if (m["preset"]) c.model = find_llm_preset(r.scalar(m["preset"], "model.preset"), "model.preset");
  else c.model.name = "custom";
  LlmModel& mo = c.model;
  const bool preset = static_cast<bool>(m["preset"]);
  const auto size = [&](const char* key, std::uint32_t& v, std::uint32_t min) {
    if (m[key]) {
      v = r.uint(m[key], std::string("model.") + key, min);
    } else if (!preset) {
      r.fail(m, std::string("model.") + key, "missing (required without a preset)");
    }
  };
  size("layers", mo.layers, 1);
  size("hidden", mo.hidden, 1);
  size("heads", mo.heads, 1);
  size("ffn_hidden", mo.ffn_hidden, 1);
  size("seq_len", mo.seq_len, 1);
  size("vocab", mo.vocab, 1);
  if (m["preset"] && (m["layers"] || m["hidden"] || m["heads"] || m["ffn_hidden"] ||
                      m["seq_len"] || m["vocab"] || m["kv_heads"] || m["experts"])) {
    mo.name += "*";  // a preset with sizes overridden
  }
  mo.kv_heads = rd.uint(m, "kv_heads", "model", 1, preset && !m["heads"] ? mo.kv_heads : mo.heads);
  mo.experts = rd.uint(m, "experts", "model", 0, mo.experts);
  mo.top_k = rd.uint(m, "top_k", "model", 1, mo.top_k);
  mo.moe_ffn_hidden = rd.uint(m, "moe_ffn_hidden", "model", 1, mo.moe_ffn_hidden);
  mo.shared_experts = rd.uint(m, "shared_experts", "model", 0, mo.shared_experts);
  if (m["gated_mlp"]) mo.gated_mlp = rd.boolean(m["gated_mlp"], "model.gated_mlp");
  if (m["flash_attention"]) {
    mo.flash_attention = rd.boolean(m["flash_attention"], "model.flash_attention");
  }
  if (m["bias"]) mo.bias = rd.boolean(m["bias"], "model.bias");
  if (m["dropout"]) mo.dropout = rd.boolean(m["dropout"], "model.dropout");
  if (m["position_embedding"]) {
    const std::string pe = r.scalar(m["position_embedding"], "model.position_embedding");
    if (pe == "learned") mo.position_embedding = PositionEmbedding::Learned;
    else if (pe == "rope") mo.position_embedding = PositionEmbedding::Rope;
    else r.fail(m["position_embedding"], "model.position_embedding",
                fmt::format("must be learned or rope, got \"{}\"", pe));
  }
  // Bounds that keep every size, byte count and time of the run finite (far above any model).
  for (const auto& [key, v, max] :
       {std::tuple{"layers", mo.layers, 100000u}, std::tuple{"hidden", mo.hidden, 1u << 20},
        std::tuple{"heads", mo.heads, 1u << 16}, std::tuple{"ffn_hidden", mo.ffn_hidden, 1u << 24},
        std::tuple{"seq_len", mo.seq_len, 1u << 24}, std::tuple{"vocab", mo.vocab, 1u << 24},
        std::tuple{"experts", mo.experts, 1u << 16},
        std::tuple{"moe_ffn_hidden", mo.moe_ffn_hidden, 1u << 24},
        std::tuple{"shared_experts", mo.shared_experts, 1u << 10}}) {
    need(v <= max, r, m[key] ? m[key] : m, std::string("model.") + key,
         fmt::format("at most {}, got {}", max, v));
  }
  need(mo.hidden % mo.heads == 0, r, m, "model.heads",
       fmt::format("hidden ({}) must be divisible by heads ({})", mo.hidden, mo.heads));
  need(mo.heads % mo.kv_heads == 0, r, m, "model.kv_heads",
       fmt::format("heads ({}) must be divisible by kv_heads ({})", mo.heads, mo.kv_heads));
  if (mo.experts > 0) {
    need(mo.top_k <= mo.experts, r, m, "model.top_k",
         fmt::format("must be <= experts ({}), got {}", mo.experts, mo.top_k));
  }

  // parallel
  const YAML::Node p = root["parallel"];
  r.check_keys(p, "parallel", kParallel);
  LlmParallel& pa = c.parallel;
  // A job-only config (system.gpus given) may leave the split to `collsim llm --search`.
  const YAML::Node sys_gpus = root["system"].IsMap() ? root["system"]["gpus"] : YAML::Node();
  const bool job_only = static_cast<bool>(sys_gpus);
  for (const char* key : {"tp", "pp", "dp", "micro_batch", "global_batch"}) {
    if (!p[key] && (!job_only || std::string_view(key) == "global_batch")) {
      r.fail(p, std::string("parallel.") + key, "missing (required)");
    }
  }
  LlmGiven& gv = c.given;
  gv.tp = static_cast<bool>(p["tp"]);
  gv.pp = static_cast<bool>(p["pp"]);
  gv.dp = static_cast<bool>(p["dp"]);
  gv.ep = static_cast<bool>(p["ep"]);
  gv.cp = static_cast<bool>(p["cp"]);
  gv.vpp = static_cast<bool>(p["vpp"]);
  gv.micro_batch = static_cast<bool>(p["micro_batch"]);
  gv.sequence_parallel = static_cast<bool>(p["sequence_parallel"]);
  gv.zero = static_cast<bool>(p["zero"]);
  gv.recompute = static_cast<bool>(p["recompute"]);
  pa.tp = rd.uint(p, "tp", "parallel", 1, 1);
  pa.pp = rd.uint(p, "pp", "parallel", 1, 1);
  pa.dp = rd.uint(p, "dp", "parallel", 1, 1);
  pa.ep = rd.uint(p, "ep", "parallel", 1, 1);
  pa.cp = rd.uint(p, "cp", "parallel", 1, 1);
  pa.vpp = rd.uint(p, "vpp", "parallel", 1, 1);
  pa.micro_batch = rd.uint(p, "micro_batch", "parallel", 1, 1);
  pa.global_batch = rd.uint(p, "global_batch", "parallel", 1, 1);
  if (p["sequence_parallel"]) {
    pa.sequence_parallel = rd.boolean(p["sequence_parallel"], "parallel.sequence_parallel");
  }
  if (p["overlap_grad_reduce"]) {
    pa.overlap_grad_reduce = rd.boolean(p["overlap_grad_reduce"], "parallel.overlap_grad_reduce");
  }
  if (p["ep_skew"]) pa.ep_skew = rd.number(p["ep_skew"], "parallel.ep_skew", 1.0, 1e6);
  if (p["grad_dtype"]) {
    const std::string g = r.scalar(p["grad_dtype"], "parallel.grad_dtype");
    if (g == "16bit") pa.grad_dtype = GradDtype::Bits16;
    else if (g == "fp32") pa.grad_dtype = GradDtype::Fp32;
    else r.fail(p["grad_dtype"], "parallel.grad_dtype",
                fmt::format("must be 16bit or fp32, got \"{}\"", g));
  }
  if (p["zero"]) {
    const std::string z = r.scalar(p["zero"], "parallel.zero");
    if (z == "0") pa.zero = Zero::None;
    else if (z == "1") pa.zero = Zero::One;
    else if (z == "2") pa.zero = Zero::Two;
    else if (z == "3") pa.zero = Zero::Three;
    else if (z == "fsdp") pa.zero = Zero::Fsdp;
    else r.fail(p["zero"], "parallel.zero", fmt::format("must be 0, 1, 2, 3 or fsdp, got \"{}\"", z));
  }
  if (p["recompute"]) {
    const std::string s = r.scalar(p["recompute"], "parallel.recompute");
    if (s == "none") pa.recompute = Recompute::None;
    else if (s == "selective") pa.recompute = Recompute::Selective;
    else if (s == "full") pa.recompute = Recompute::Full;
    else r.fail(p["recompute"], "parallel.recompute",
                fmt::format("must be none, selective or full, got \"{}\"", s));
  }
  if (p["schedule"]) {
    const std::string s = r.scalar(p["schedule"], "parallel.schedule");
    if (s == "1f1b") pa.schedule = PipeSchedule::OneFOneB;
    else if (s == "gpipe") pa.schedule = PipeSchedule::GPipe;
    else r.fail(p["schedule"], "parallel.schedule",
                fmt::format("must be 1f1b or gpipe (vpp > 1 makes 1f1b interleaved), got \"{}\"", s));
  }
  std::uint32_t job_gpus = 0;
  if (job_only) {
    job_gpus = r.uint(sys_gpus, "system.gpus", 1);
    need(job_gpus <= (1u << 17), r, sys_gpus, "system.gpus",
         fmt::format("at most 131,072, got {}", job_gpus));
    if (!gv.dp && gv.tp && gv.pp) {  // dp follows from the GPUs
      const std::uint64_t model = std::uint64_t{pa.tp} * pa.cp * pa.pp;
      need(job_gpus % model == 0, r, sys_gpus, "system.gpus",
           fmt::format("{} GPUs are not a multiple of tp x cp x pp = {}", job_gpus, model));
      pa.dp = static_cast<std::uint32_t>(job_gpus / model);
    }
  }
  c.complete = !job_only || (gv.tp && gv.pp && gv.micro_batch);
  if (c.complete) {
    const std::uint64_t gpus = std::uint64_t{pa.tp} * pa.cp * pa.dp * pa.pp;
    need(gpus <= (1u << 17), r, p, "parallel",
         fmt::format("tp x cp x dp x pp = {} GPUs; at most 131,072", gpus));
    need(pa.micro_batch <= (1u << 16), r, p["micro_batch"], "parallel.micro_batch",
         fmt::format("at most 65,536, got {}", pa.micro_batch));
    need(std::uint64_t{pa.dp} * pa.micro_batch <= pa.global_batch &&
             pa.global_batch % (pa.dp * pa.micro_batch) == 0,
         r, p["global_batch"], "parallel.global_batch",
         fmt::format("must be a multiple of dp x micro_batch = {}, got {}",
                     std::uint64_t{pa.dp} * pa.micro_batch, pa.global_batch));
    need(pa.micro_batches() <= 100000, r, p["global_batch"], "parallel.global_batch",
         fmt::format("{} micro-batches per iteration; at most 100,000", pa.micro_batches()));
    need(std::uint64_t{pa.pp} * pa.vpp * pa.micro_batches() <= 20000000, r, p, "parallel",
         fmt::format("pp x vpp x micro-batches = {} passes per direction; at most 20,000,000",
                     std::uint64_t{pa.pp} * pa.vpp * pa.micro_batches()));
    need(mo.layers % (pa.pp * pa.vpp) == 0, r, p["pp"], "parallel.pp",
         fmt::format("layers ({}) must be divisible by pp x vpp = {}", mo.layers, pa.pp * pa.vpp));
    need(mo.heads % pa.tp == 0, r, p["tp"], "parallel.tp",
         fmt::format("heads ({}) must be divisible by tp ({})", mo.heads, pa.tp));
    need(mo.kv_heads % pa.tp == 0 || pa.tp % mo.kv_heads == 0, r, p["tp"], "parallel.tp",
         fmt::format("kv_heads ({}) and tp ({}) must divide one another", mo.kv_heads, pa.tp));
    need(mo.ffn_hidden % pa.tp == 0 && mo.expert_ffn() % pa.tp == 0, r, p["tp"], "parallel.tp",
         fmt::format("ffn_hidden ({}) must be divisible by tp ({})", mo.expert_ffn(), pa.tp));
    if (pa.vpp > 1) {
      need(pa.pp > 1, r, p["vpp"], "parallel.vpp", "vpp > 1 needs pp > 1 (interleaved 1F1B)");
      need(pa.schedule == PipeSchedule::OneFOneB, r, p["vpp"], "parallel.vpp",
           "vpp > 1 is interleaved 1F1B; schedule gpipe takes vpp 1");
      need(pa.micro_batches() % pa.pp == 0, r, p["vpp"], "parallel.vpp",
           fmt::format("interleaved 1F1B needs the micro-batches ({}) divisible by pp ({}), as "
                       "Megatron-LM does",
                       pa.micro_batches(), pa.pp));
    }
    if (pa.cp > 1) {
      need(mo.seq_len % (2 * pa.cp) == 0, r, p["cp"], "parallel.cp",
           fmt::format("seq_len ({}) must be divisible by 2 x cp = {}", mo.seq_len, 2 * pa.cp));
    }
    need((pa.dp * pa.cp) % pa.ep == 0, r, p["ep"], "parallel.ep",
         fmt::format("must divide dp x cp = {}, got {}", pa.dp * pa.cp, pa.ep));
    if (mo.experts == 0) {
      need(pa.ep == 1, r, p["ep"], "parallel.ep", "a dense model (experts: 0) takes ep 1");
    } else {
      need(mo.experts % pa.ep == 0, r, p["ep"], "parallel.ep",
           fmt::format("must divide experts ({}), got {}", mo.experts, pa.ep));
    }
    if (job_only) {
      need(std::uint64_t{pa.tp} * pa.cp * pa.dp * pa.pp == job_gpus, r, sys_gpus, "system.gpus",
           fmt::format("{} GPUs, but tp x cp x dp x pp = {}", job_gpus,
                       std::uint64_t{pa.tp} * pa.cp * pa.dp * pa.pp));
    }
  }

  // system
  const YAML::Node s = root["system"];
  r.check_keys(s, "system", kSystem);
  if (!s["gpu"]) r.fail(s, "system.gpu", "missing (required)");
  LlmSystem& sy = c.system;
  sy.gpu = r.scalar(s["gpu"], "system.gpu");
  sy.gpus_per_node = rd.uint(s, "gpus_per_node", "system", 1, 8);
  need(sy.gpus_per_node <= 1024, r, s["gpus_per_node"], "system.gpus_per_node",
       fmt::format("at most 1,024, got {}", sy.gpus_per_node));
  if (s["nics_per_node"]) {
    sy.nics_per_node = r.uint(s["nics_per_node"], "system.nics_per_node", 1);
  }
  if (s["nic_bandwidth"]) {
    const std::string t = r.scalar(s["nic_bandwidth"], "system.nic_bandwidth");
    sy.nic_bandwidth = r.with_line(s["nic_bandwidth"], [&] {
      return core::parse_bandwidth(t, "system.nic_bandwidth");
    });
  }
  if (s["matmul_efficiency"]) {
    sy.matmul_efficiency = rd.number(s["matmul_efficiency"], "system.matmul_efficiency", 0.01, 1.0);
  }
  if (s["memory_efficiency"]) {
    sy.memory_efficiency =
        rd.number(s["memory_efficiency"], "system.memory_efficiency", 0.01, 1.0);
  }
  sy.gpus = job_gpus;
  if (s["gpu_memory"]) {
    const std::string t = r.scalar(s["gpu_memory"], "system.gpu_memory");
    sy.gpu_memory = r.with_line(s["gpu_memory"], [&] {
      return core::parse_bytes(t, "system.gpu_memory");
    });
    need(sy.gpu_memory->count > 0, r, s["gpu_memory"], "system.gpu_memory", "must be positive");
  }
  if (s["backend"]) sy.backend = r.scalar(s["backend"], "system.backend");
  if (s["algorithm"]) sy.algorithm = r.scalar(s["algorithm"], "system.algorithm");
  if (const YAML::Node pl = s["platform"]) {
    r.check_keys(pl, "system.platform", kPlatform);
    for (const char* key : {"topology", "link_bandwidth", "link_latency"}) {
      if (!pl[key]) r.fail(pl, std::string("system.platform.") + key, "missing (required)");
    }
    LlmPlatform lp;
    lp.topology = r.scalar(pl["topology"], "system.platform.topology");
    const std::string bw = r.scalar(pl["link_bandwidth"], "system.platform.link_bandwidth");
    lp.link_bandwidth = r.with_line(pl["link_bandwidth"], [&] {
      return core::parse_bandwidth(bw, "system.platform.link_bandwidth");
    });
    const std::string lat = r.scalar(pl["link_latency"], "system.platform.link_latency");
    lp.link_latency = r.with_line(pl["link_latency"], [&] {
      return core::parse_time(lat, "system.platform.link_latency");
    });
    if (s["nics_per_node"] || s["nic_bandwidth"]) {
      r.fail(pl, "system.platform",
             "nics_per_node and nic_bandwidth shape the standard cluster; a platform gives its "
             "own links");
    }
    sy.platform = lp;
  }
  return c;
}

LlmConfig load_llm_config(const std::string& path) {
  return parse_llm_config(core::read_input(path, "LLM config"), path);
}

}  // namespace collsim::workload
