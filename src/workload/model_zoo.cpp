#include "workload/model_zoo.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/suggest.hpp"
#include "core/input_file.hpp"
#include "io/yaml_load.hpp"
#include "io/yaml_reader.hpp"

namespace collsim::workload {
namespace fs = std::filesystem;

namespace {

std::uint64_t number(const io::YamlReader& r, const YAML::Node& n, const std::string& path) {
  const std::string s = r.scalar(n, path);
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) {
    r.fail(n, path, fmt::format("must be a whole number >= 0, got \"{}\"", s));
  }
  return v;
}

bool is_conv(const std::string& type) { return type.rfind("conv", 0) == 0; }
bool is_matmul(const std::string& type) { return type == "matmul" || type == "bmm"; }
bool is_embedding(const std::string& type) { return type.rfind("embedding", 0) == 0; }

// (m, n, k) of a row's forward product per sample.
compute::Gemm gemm_per_sample(const ModelRow& r) {
  std::uint64_t m = 1, n = 1;
  if (r.shape.empty()) return {};
  if (is_conv(r.type)) {
    n = r.shape.front();
    for (std::size_t i = 1; i < r.shape.size(); ++i) m *= r.shape[i];
  } else {
    n = r.shape.back();
    for (std::size_t i = 0; i + 1 < r.shape.size(); ++i) m *= r.shape[i];
  }
  const std::uint64_t k = std::max<std::uint64_t>(1, (r.macs + m * n - 1) / (m * n));
  return {m, n, k};
}

}  // namespace

Model parse_model(const std::string& text, const std::string& source) {
  io::YamlReader r(source);
  const YAML::Node root = io::load_yaml(text, source);
  r.unique_keys(root, "");
  r.check_keys(root, "",
               {"name", "description", "source", "params", "columns", "layers", "model_parallel",
                "recompute"});
  for (const char* k : {"name", "params", "layers"}) {
    if (!root[k]) r.fail(root, k, "missing");
  }
  Model m;
  m.name = r.scalar(root["name"], "name");
  if (root["description"]) m.description = r.scalar(root["description"], "description");
  if (root["source"]) m.source = r.scalar(root["source"], "source");
  m.params = number(r, root["params"], "params");
  if (root["model_parallel"]) {
    const std::uint64_t mp = number(r, root["model_parallel"], "model_parallel");
    if (mp < 2 || mp > 1u << 20)
      r.fail(root["model_parallel"], "model_parallel", "must be 2..2^20");
    m.model_parallel = static_cast<std::uint32_t>(mp);
  }
  if (root["recompute"]) {
    const std::string v = r.scalar(root["recompute"], "recompute");
    if (v != "true" && v != "false")
      r.fail(root["recompute"], "recompute", "must be true or false");
    m.recompute = v == "true";
  }
  const YAML::Node layers = root["layers"];
  if (!layers.IsSequence() || layers.size() == 0)
    r.fail(layers, "layers", "must be a non-empty list");
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::string path = fmt::format("layers[{}]", i);
    const YAML::Node row = layers[i];
    if (!row.IsSequence() || row.size() != 6) {
      r.fail(row, path, "must be [name, type, params, macs, activations, shape]");
    }
    ModelRow mr;
    mr.name = r.scalar(row[0], path + ".name");
    mr.type = r.scalar(row[1], path + ".type");
    mr.params = number(r, row[2], path + ".params");
    mr.macs = number(r, row[3], path + ".macs");
    mr.activations = number(r, row[4], path + ".activations");
    const std::string shape = r.scalar(row[5], path + ".shape");
    std::size_t start = 0;
    while (start <= shape.size()) {
      std::size_t x = shape.find('x', start);
      if (x == std::string::npos) x = shape.size();
      std::uint64_t d = 0;
      const auto [p, ec] = std::from_chars(shape.data() + start, shape.data() + x, d);
      if (ec != std::errc() || p != shape.data() + x || d == 0) {
        r.fail(row[5], path + ".shape",
               fmt::format("\"{}\" is not DxDx... of whole numbers", shape));
      }
      mr.shape.push_back(d);
      start = x + 1;
    }
    total += mr.params;
    m.rows.push_back(std::move(mr));
  }
  if (total != m.params) {
    r.fail(root["params"], "params",
           fmt::format("the layers have {} parameters, the file says {}", total, m.params));
  }
  return m;
}

std::vector<std::string> model_dirs() {
  std::vector<std::string> out;
  if (const char* env = std::getenv("COLLSIM_MODELS")) out.emplace_back(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) out.push_back((exe.parent_path() / ".." / "share" / "collsim" / "models").string());
#ifdef COLLSIM_MODELS_DIR
  out.emplace_back(COLLSIM_MODELS_DIR);
#endif
  return out;
}

std::vector<std::string> model_names() {
  for (const std::string& d : model_dirs()) {
    std::error_code ec;
    if (!fs::is_directory(d, ec)) continue;
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(d)) {
      if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
    }
    if (names.empty()) continue;
    std::sort(names.begin(), names.end());
    return names;
  }
  return {};
}

Model find_model(const std::string& name, const std::string& field) {
  for (const std::string& d : model_dirs()) {
    const fs::path p = fs::path(d) / (name + ".yaml");
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) continue;
    return parse_model(core::read_input(p.string(), "model file"), p.string());
  }
  std::string names;
  for (const std::string& n : model_names()) names += (names.empty() ? "" : ", ") + n;
  throw core::InputError(fmt::format(
      "{}: \"{}\" is neither a workload file nor a model of the zoo{}; models: {}", field, name,
      core::did_you_mean_in(name, names),
      names.empty() ? "(none found: set COLLSIM_MODELS to the models/ directory)" : names));
}

std::vector<LayerWork> layer_work(const Model& m, const BuildOptions& o) {
  std::vector<LayerWork> out;
  const double b = o.batch, p = o.bytes_per_element;
  bool open = false;  // the last layer can take element-wise rows
  for (const ModelRow& r : m.rows) {
    const bool starts = r.macs > 0 || is_embedding(r.type) || !open;
    if (starts) {
      out.push_back(LayerWork{r.name, {}, 0, r.activations, 0});
      open = !is_embedding(r.type);
      auto& pw = out.back().pass;
      if (r.macs > 0) {
        const compute::Gemm g = gemm_per_sample(r);
        out.back().inputs = g.m * g.k;
        const std::uint64_t bm = static_cast<std::uint64_t>(b) * g.m;
        const double flops = 2.0 * b * static_cast<double>(r.macs);
        pw[0].gemms.push_back({bm, g.n, g.k});
        pw[0].flops += flops;
        pw[1].gemms.push_back({bm, g.k, g.n});
        pw[1].flops += flops;
        if (is_matmul(r.type)) {  // the gradient of both operands
          pw[1].gemms.push_back({bm, g.k, g.n});
          pw[1].flops += flops;
        }
        if (r.params > 0) {
          pw[2].gemms.push_back({g.k, g.n, bm});
          pw[2].flops += flops;
        }
      }
    }
    LayerWork& l = out.back();
    l.params += r.params;
    const double traffic = 2.0 * b * static_cast<double>(r.activations) * p;
    l.pass[0].bytes += traffic + static_cast<double>(r.params) * p;
    l.pass[1].bytes += traffic + static_cast<double>(r.params) * p;
    if (r.params > 0) l.pass[2].bytes += traffic + static_cast<double>(r.params) * p;
  }
  return out;
}

Workload data_parallel(const Model& m, const compute::ComputeModel& compute,
                       const BuildOptions& o) {
  for (const ModelRow& r : m.rows) {
    if (r.type == "embedding_bag") {
      throw core::InputError(fmt::format(
          "model {}: its embedding tables ({}) are model-parallel in practice (DLRM: an "
          "all-to-all per iteration); data parallelism would all-reduce them. Use an ASTRA-sim "
          "HYBRID_DLRM workload file",
          m.name, r.name));
    }
  }
  if (o.batch == 0) throw core::InputError("batch: must be >= 1, got 0");
  if (o.bytes_per_element == 0) throw core::InputError("precision: must be >= 1 byte");
  Workload w;
  w.name = m.name;
  w.source = fmt::format(
      "model zoo: {} ({}), data parallel, batch {} per NPU, {}-byte "
      "gradients, {}",
      m.name, m.source, o.batch, o.bytes_per_element, compute.describe());
  w.model_parallel_npus = 1;
  for (const LayerWork& lw : layer_work(m, o)) {
    Layer l;
    l.name = lw.name;
    for (std::size_t p = 0; p < kPasses; ++p) l.compute[p] = compute.time(lw.pass[p]);
    if (lw.params > 0) {
      l.comm[2] = Comm{collective::Collective::AllReduce,
                       core::Bytes{lw.params * o.bytes_per_element}, Scope::All};
    }
    w.layers.push_back(std::move(l));
  }
  return w;
}

Workload hybrid_dlrm(const Model& m, const compute::ComputeModel& compute, const BuildOptions& o) {
  Model tables, rest;
  tables.name = rest.name = m.name;
  for (const ModelRow& r : m.rows) (r.type == "embedding_bag" ? tables : rest).rows.push_back(r);
  if (tables.rows.empty()) {
    throw core::InputError(
        fmt::format("model {}: no embedding tables (embedding_bag rows) for "
                    "DLRM's hybrid parallelism",
                    m.name));
  }
  if (o.batch == 0) throw core::InputError("batch: must be >= 1, got 0");
  // The MLPs and the interaction, data parallel, in the order bottom MLP, interaction, top.
  std::stable_partition(rest.rows.begin(), rest.rows.end(),
                        [](const ModelRow& r) { return r.name.rfind("bot", 0) == 0; });
  Workload w = data_parallel(rest, compute, o);
  w.name = m.name;
  w.source = fmt::format(
      "model zoo: {} ({}), embedding tables model parallel, MLPs data "
      "parallel, batch {} per NPU, {}-byte elements, {}",
      m.name, m.source, o.batch, o.bytes_per_element, compute.describe());
  std::uint64_t pooled = 0;  // output elements of every table per sample
  for (const ModelRow& r : tables.rows) pooled += r.activations;
  Layer emb;
  emb.name = "embeddings";
  compute::PassWork lookup;
  lookup.bytes = 2.0 * o.batch * static_cast<double>(pooled) * o.bytes_per_element;
  emb.compute[0] = compute.time(lookup);
  emb.compute[1] = compute.time(lookup);  // scattering the gradients back into the tables
  const core::Bytes a2a{static_cast<std::uint64_t>(o.batch) * pooled * o.bytes_per_element};
  std::uint32_t interaction = 1;
  for (std::uint32_t i = 0; i < w.layers.size(); ++i) {
    if (w.layers[i].name.rfind("bot", 0) == 0) interaction = i + 2;  // +1 for the embeddings
  }
  emb.comm[0] = Comm{collective::Collective::AllToAll, a2a, Scope::All, true, interaction};
  emb.comm[1] = Comm{collective::Collective::AllToAll, a2a, Scope::All, true, 0};
  w.layers.insert(w.layers.begin(), std::move(emb));
  return w;
}

std::uint32_t model_parallel_group(std::uint32_t up_to, const std::vector<std::uint32_t>& dims) {
  std::uint32_t m = 1;
  if (dims.size() == 1) {
    for (std::uint32_t d = 1; d <= dims[0] && d <= up_to; ++d) {
      if (dims[0] % d == 0) m = d;
    }
    return m;
  }
  for (std::uint32_t d : dims) {
    if (static_cast<std::uint64_t>(m) * d > up_to) break;
    m *= d;
  }
  return m;
}

namespace {
bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
// 1/m of a pass: every GEMM's n split m ways.
compute::PassWork split(compute::PassWork w, std::uint32_t m) {
  for (auto& g : w.gemms) g.n = (g.n + m - 1) / m;
  w.flops /= m;
  w.bytes /= m;
  return w;
}
}  // namespace

Workload tensor_parallel(const Model& m, const compute::ComputeModel& compute,
                         const BuildOptions& o) {
  const std::uint32_t mp = o.model_parallel;
  if (mp < 2) {
    throw core::InputError(
        fmt::format("model {}: tensor parallelism needs a group of 2 or more NPUs, got {} (the "
                    "platform's leading dimensions are larger than model_parallel {})",
                    m.name, mp, m.model_parallel));
  }
  if (o.batch == 0) throw core::InputError("batch: must be >= 1, got 0");
  if (o.bytes_per_element == 0) throw core::InputError("precision: must be >= 1 byte");
  Workload w;
  w.name = m.name;
  w.source = fmt::format(
      "model zoo: {} ({}), tensor parallel over {} NPUs{}, data parallel across groups, batch "
      "{} per group, {}-byte elements, {}",
      m.name, m.source, mp, m.recompute ? " with activation recomputation" : "", o.batch,
      o.bytes_per_element, compute.describe());
  w.model_parallel_npus = mp;
  bool found = false;
  for (const LayerWork& lw : layer_work(m, o)) {
    Layer l;
    l.name = lw.name;
    for (std::size_t p = 0; p < kPasses; ++p) l.compute[p] = compute.time(split(lw.pass[p], mp));
    const core::Bytes act{static_cast<std::uint64_t>(o.batch) * lw.activations *
                          o.bytes_per_element};
    const bool row_parallel = ends_with(lw.name, "out_proj") || ends_with(lw.name, "fc2");
    const bool column_parallel = ends_with(lw.name, "qkv_proj") || ends_with(lw.name, "fc1");
    found = found || row_parallel || column_parallel;
    const bool forward_ar = row_parallel || ends_with(lw.name, "wte");
    if (forward_ar) l.comm[0] = Comm{collective::Collective::AllReduce, act, Scope::ModelParallel};
    if (m.recompute) l.compute[1] += l.compute[0];
    if (column_parallel) {
      const core::Bytes in{static_cast<std::uint64_t>(o.batch) * lw.inputs * o.bytes_per_element};
      l.comm[1] = Comm{collective::Collective::AllReduce, in, Scope::ModelParallel};
    } else if (m.recompute && row_parallel) {  // the recomputed forward's all-reduce
      l.comm[1] = Comm{collective::Collective::AllReduce, act, Scope::ModelParallel};
    }
    if (lw.params > 0) {
      l.comm[2] =
          Comm{collective::Collective::AllReduce,
               core::Bytes{(lw.params + mp - 1) / mp * o.bytes_per_element}, Scope::DataParallel};
    }
    w.layers.push_back(std::move(l));
  }
  if (!found) {
    throw core::InputError(fmt::format(
        "model {}: tensor parallelism needs attention or MLP layers named *qkv_proj / "
        "*out_proj / *fc1 / *fc2 (Megatron's column- and row-parallel pairs); it has none",
        m.name));
  }
  return w;
}

Workload build_workload(const Model& m, const compute::ComputeModel& compute,
                        const BuildOptions& o) {
  for (const ModelRow& r : m.rows) {
    if (r.type == "embedding_bag") return hybrid_dlrm(m, compute, o);
  }
  if (o.model_parallel > 1) return tensor_parallel(m, compute, o);
  return data_parallel(m, compute, o);
}

}  // namespace collsim::workload
