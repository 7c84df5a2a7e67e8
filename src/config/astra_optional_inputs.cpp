// `collsim astra`'s remote-memory and communicator-group files (astra_optional_inputs.hpp).
#include "config/astra_optional_inputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.hpp"
#include "core/input_file.hpp"

namespace collsim::config {

namespace {

nlohmann::json read_json(const std::string& path, const char* flag) {
  const std::string text = core::read_input(path, std::string(flag) + " file");
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, out_of_range 406 (1e999)
    throw core::InputError(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
}

double number(const nlohmann::json& j, const std::string& path, const char* key, bool positive) {
  if (!j.contains(key)) throw core::InputError(fmt::format("{}: {}: missing", path, key));
  const auto& v = j.at(key);
  if (!v.is_number() || v.get<double>() < 0 || (positive && v.get<double>() == 0)) {
    throw core::InputError(fmt::format("{}: {}: must be a {} number, got {}", path, key,
                                       positive ? "positive" : "non-negative", v.dump()));
  }
  return v.get<double>();
}

}  // namespace

jobs::RemoteMemory read_remote_memory(const std::string& path, std::uint32_t npus) {
  using Kind = jobs::RemoteMemory::Kind;
  const nlohmann::json j = read_json(path, "--remote-memory-configuration");
  if (!j.is_object()) throw core::InputError(fmt::format("{}: must be a JSON object", path));
  static const std::set<std::string> known{"memory-type", "remote-mem-latency", "remote-mem-bw",
                                           "num-nodes", "num-npus-per-node"};
  for (const auto& [k, v] : j.items()) {
    if (!known.count(k)) {
      throw core::InputError(
          fmt::format("{}: {}: not a remote-memory key (memory-type, "
                      "remote-mem-latency, remote-mem-bw, num-nodes, "
                      "num-npus-per-node)",
                      path, k));
    }
  }
  if (!j.contains("memory-type") || !j["memory-type"].is_string()) {
    throw core::InputError(fmt::format("{}: memory-type: missing", path));
  }
  const std::string type = j["memory-type"];
  jobs::RemoteMemory m;
  if (type == "NO_MEMORY_EXPANSION") return m;
  if (type == "PER_NODE_MEMORY_EXPANSION") {
    m.kind = Kind::PerNode;
  } else if (type == "PER_NPU_MEMORY_EXPANSION") {
    m.kind = Kind::PerNpu;
  } else if (type == "MEMORY_POOL") {
    m.kind = Kind::Pool;
  } else {
    throw core::InputError(fmt::format(
        "{}: memory-type: \"{}\" is not NO_MEMORY_EXPANSION, PER_NODE_MEMORY_EXPANSION, "
        "PER_NPU_MEMORY_EXPANSION or MEMORY_POOL",
        path, type));
  }
  m.latency = core::time_from_user(std::trunc(number(j, path, "remote-mem-latency", false)), 1e3,
                                   path + ": remote-mem-latency (ns)");
  m.bandwidth = core::Bandwidth{number(j, path, "remote-mem-bw", true) * 1e9};
  if (!std::isfinite(m.bandwidth.bytes_per_s)) {
    throw core::InputError(fmt::format("{}: remote-mem-bw: too large", path));
  }
  if (m.kind == Kind::PerNode) {
    const double per = number(j, path, "num-npus-per-node", true);
    if (per > UINT32_MAX || per != static_cast<double>(static_cast<std::uint32_t>(per)) ||
        npus % static_cast<std::uint32_t>(per) != 0) {
      throw core::InputError(fmt::format(
          "{}: num-npus-per-node: {} does not divide the platform's {} NPUs", path, per, npus));
    }
    m.npus_per_node = static_cast<std::uint32_t>(per);
    if (j.contains("num-nodes") &&
        number(j, path, "num-nodes", true) != static_cast<double>(npus / m.npus_per_node)) {
      throw core::InputError(
          fmt::format("{}: num-nodes: {} x num-npus-per-node {} is not the "
                      "platform's {} NPUs",
                      path, j["num-nodes"].dump(), m.npus_per_node, npus));
    }
  }
  return m;
}

std::map<std::string, std::vector<topology::NodeId>> read_comm_groups(const std::string& path,
                                                                      std::uint32_t npus) {
  const nlohmann::json j = read_json(path, "--comm-group-configuration");
  if (!j.is_object()) {
    throw core::InputError(
        fmt::format("{}: must be a JSON object of groups, {{\"1\": [0, 1, ...], ...}}", path));
  }
  std::map<std::string, std::vector<topology::NodeId>> out;
  for (const auto& [name, list] : j.items()) {
    if (!list.is_array() || list.size() < 2) {
      throw core::InputError(
          fmt::format("{}: group \"{}\": must list at least 2 NPUs", path, name));
    }
    std::vector<topology::NodeId> g;
    for (const auto& v : list) {
      if (!v.is_number_integer() || v.get<std::int64_t>() < 0 ||
          v.get<std::int64_t>() >= static_cast<std::int64_t>(npus)) {
        throw core::InputError(fmt::format("{}: group \"{}\": {} is not an NPU of the {}", path,
                                           name, v.dump(), npus));
      }
      const auto id = static_cast<topology::NodeId>(v.get<std::int64_t>());
      if (std::find(g.begin(), g.end(), id) != g.end()) {
        throw core::InputError(fmt::format("{}: group \"{}\": NPU {} twice", path, name, id));
      }
      g.push_back(id);
    }
    out.emplace(name, std::move(g));
  }
  return out;
}

}  // namespace collsim::config
