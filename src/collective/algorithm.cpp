#include "collective/algorithm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "core/error.hpp"

namespace collsim::collective {

bool AlgorithmInfo::supports(Collective c) const {
  return std::find(collectives.begin(), collectives.end(), c) != collectives.end();
}

const AlgorithmInfo& find_algorithm(std::string_view name, std::string_view field) {
  for (const AlgorithmInfo& a : algorithms()) {
    if (a.name == name) return a;
  }
  std::string valid;
  for (const AlgorithmInfo& a : algorithms()) valid += (valid.empty() ? "" : ", ") + a.name;
  throw core::InputError(
      fmt::format("{}: unknown algorithm \"{}\"; valid: {}", field, name, valid));
}

AlgorithmChoice make_choice(const AlgorithmInfo& info, std::map<std::string, std::int64_t> given,
                            std::string label, std::string_view field) {
  AlgorithmChoice c{&info, {}, std::move(label)};
  // Not a structured binding: clang before 16 cannot capture one in the lambda below.
  for (const auto& entry : given) {
    const std::string& key = entry.first;
    const std::int64_t value = entry.second;
    auto spec = std::find_if(info.params.begin(), info.params.end(),
                             [&](const ParamSpec& s) { return s.key == key; });
    if (spec == info.params.end()) {
      std::string valid;
      for (const ParamSpec& s : info.params) valid += (valid.empty() ? "" : ", ") + s.key;
      throw core::InputError(fmt::format("{}: algorithm {} has no parameter \"{}\"{}", field,
                                         info.name, key, valid.empty() ? "" : "; valid: " + valid));
    }
    if (value < spec->min || value > spec->max) {
      throw core::InputError(fmt::format("{}: {}.{} must be in [{}, {}], got {}", field, info.name,
                                         key, spec->min, spec->max, value));
    }
  }
  for (const ParamSpec& s : info.params) {
    auto it = given.find(s.key);
    c.params[s.key] = it == given.end() ? s.default_value : it->second;
  }
  return c;
}

AlgorithmChoice parse_algorithm(std::string_view text, std::string_view field) {
  const std::size_t colon = text.find(':');
  const AlgorithmInfo& info = find_algorithm(text.substr(0, colon), field);
  std::map<std::string, std::int64_t> given;
  std::string_view rest = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  while (!rest.empty()) {
    const std::size_t next = rest.find(':');
    const std::string_view kv = rest.substr(0, next);
    rest = next == std::string_view::npos ? "" : rest.substr(next + 1);
    const std::size_t eq = kv.find('=');
    std::int64_t value = 0;
    const char* end = kv.data() + kv.size();
    const std::string_view key = kv.substr(0, eq == std::string_view::npos ? kv.size() : eq);
    auto spec = std::find_if(info.params.begin(), info.params.end(),
                             [&](const ParamSpec& s) { return s.key == key; });
    if (eq != std::string_view::npos && spec != info.params.end() && !spec->choices.empty()) {
      const std::string_view name = kv.substr(eq + 1);
      auto it = std::find(spec->choices.begin(), spec->choices.end(), name);
      if (it == spec->choices.end()) {
        std::string valid;
        for (const std::string& c : spec->choices) valid += (valid.empty() ? "" : ", ") + c;
        throw core::InputError(fmt::format("{}: {}.{} must be one of {}, got \"{}\"", field,
                                           info.name, key, valid, name));
      }
      given[std::string(key)] = it - spec->choices.begin();
      continue;
    }
    if (eq == std::string_view::npos ||
        std::from_chars(kv.data() + eq + 1, end, value).ptr != end || eq + 1 == kv.size()) {
      throw core::InputError(fmt::format(
          "{}: \"{}\" in \"{}\" is not key=integer (e.g. ring:directions=2)", field, kv, text));
    }
    given[std::string(kv.substr(0, eq))] = value;
  }
  return make_choice(info, std::move(given), std::string(text), field);
}

std::string refusal(const AlgorithmInfo& info, const topology::Topology& topo) {
  return info.requires_topology ? info.requires_topology(topo) : std::string();
}

Program build_program(const AlgorithmChoice& choice, const topology::Topology& topo, Collective c,
                      core::Bytes size, std::uint32_t chunks) {
  return build_program(choice, topo, whole(topo), c, size, chunks);
}

namespace {

// What build_program and program_size check before calling the algorithm.
void check_request(const AlgorithmChoice& choice, const topology::Topology& topo,
                   const Communicator& comm, Collective c, std::uint32_t chunks) {
  const AlgorithmInfo& info = *choice.info;
  if (info.staged) {
    throw core::InputError(fmt::format(
        "algorithm {} runs as stages per dimension, not as one program on a group", info.name));
  }
  if (!info.supports(c)) {
    std::string valid;
    for (Collective k : info.collectives)
      valid += (valid.empty() ? "" : ", ") + std::string(to_string(k));
    throw core::InputError(fmt::format("algorithm {} does not implement {}; it implements: {}",
                                       info.name, to_string(c), valid));
  }
  if (chunks == 0) throw core::InputError("chunks: must be >= 1, got 0");
  if (const std::string why = refusal(info, topo); !why.empty()) {
    throw core::InputError(fmt::format("algorithm {}: {}", info.name, why));
  }
  // Piece ids are 32-bit (Op is 16 bytes): all-to-all has N^2 pieces per chunk.
  const std::uint64_t per_chunk = c == Collective::AllToAll
                                      ? std::uint64_t{comm.size()} * comm.size()
                                      : std::uint64_t{comm.size()};
  if (per_chunk * chunks > 0xffffffffull) {
    throw core::InputError(fmt::format(
        "chunks: {} on {} ranks in {} chunk{} has {} pieces; collsim numbers pieces with 32 bits "
        "(at most 4294967295): use fewer chunks or ranks",
        to_string(c), comm.size(), chunks, chunks == 1 ? "" : "s", per_chunk * chunks));
  }
  if (comm.size() < 2) {
    throw core::InputError(fmt::format("group {}: a collective needs at least 2 ranks, got {}",
                                       comm.label, comm.size()));
  }
}

}  // namespace

Program build_program(const AlgorithmChoice& choice, const topology::Topology& topo,
                      const Communicator& comm, Collective c, core::Bytes size,
                      std::uint32_t chunks) {
  check_request(choice, topo, comm, c, chunks);
  Program p = choice.info->build(BuildRequest{topo, comm, c, size, chunks, choice.params});
  if (!comm.is_identity(topo.num_npus())) p.npus = comm.npus;
  return p;
}

ProgramSize program_size(const AlgorithmChoice& choice, const topology::Topology& topo,
                         const Communicator& comm, Collective c, std::uint32_t chunks) {
  if (choice.info->size == nullptr) return {};
  check_request(choice, topo, comm, c, chunks);
  return choice.info->size(BuildRequest{topo, comm, c, core::Bytes{1}, 1, choice.params});
}

std::uint64_t ceil_log2(std::uint64_t n) {
  std::uint64_t k = 0;
  while ((std::uint64_t{1} << k) < n) ++k;
  return k;
}

void add_step(Program& p, const std::vector<Transfer>& step, bool reduce, std::uint32_t stream) {
  for (const Transfer& t : step)
    p.ops[p.lane(t.from, stream)].push_back(Op{Op::Kind::Send, t.to, t.first, t.count, reduce});
  const Op::Kind k = reduce ? Op::Kind::RecvReduce : Op::Kind::Recv;
  for (const Transfer& t : step)
    p.ops[p.lane(t.to, stream)].push_back(Op{k, t.from, t.first, t.count});
}

void require_power_of_two(std::string_view algorithm, std::uint32_t n) {
  if (n == 0 || (n & (n - 1)) != 0) {
    throw core::InputError(
        fmt::format("algorithm {} needs a power-of-two number of ranks, got {}; use ring or direct",
                    algorithm, n));
  }
}

}  // namespace collsim::collective
