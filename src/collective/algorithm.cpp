#include "collective/algorithm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>

#include "core/error.hpp"

namespace collsim::collective {

bool AlgorithmInfo::supports(Collective c) const {
  return std::find(collectives.begin(), collectives.end(), c) != collectives.end();
}

const AlgorithmInfo& find_algorithm(std::string_view name, std::string_view field) {
  return algorithms().find(name, field);
}

ParamSpec count_param(std::string_view key, std::uint64_t default_value, std::uint64_t min,
                      std::uint64_t max, std::string_view description) {
  return ParamSpec{.key = key,
                   .type = core::ParamType::Count,
                   .min = min,
                   .max = max,
                   .default_value = core::ParamValue{default_value},
                   .description = description};
}

ParamSpec choice_param(std::string_view key, std::span<const std::string_view> choices,
                       std::string_view description) {
  return ParamSpec{.key = key,
                   .type = core::ParamType::Choice,
                   .choices = choices,
                   .default_value = core::ParamValue{core::ChoiceIndex{0}},
                   .description = description};
}

namespace {

// The parameter of `info` that `key` names (an indexed one by any of its indexes), or nullptr.
const ParamSpec* find_param(const AlgorithmInfo& info, std::string_view key) {
  for (const ParamSpec& s : info.params) {
    if (core::names_param(s, key)) return &s;
  }
  return nullptr;
}

// The parameter `key` of `info`; throws core::InputError naming `field` and the valid keys.
const ParamSpec& param_of(const AlgorithmInfo& info, std::string_view key, std::string_view field) {
  if (const ParamSpec* s = find_param(info, key)) return *s;
  std::string valid;
  for (const ParamSpec& s : info.params) valid += (valid.empty() ? "" : ", ") + std::string(s.key);
  throw core::InputError(fmt::format("{}: algorithm {} has no parameter \"{}\"{}", field, info.name,
                                     key, valid.empty() ? "" : "; valid: " + valid));
}

}  // namespace

AlgorithmChoice make_choice(const AlgorithmInfo& info, ParamValues given, std::string label,
                            std::string_view field) {
  AlgorithmChoice c{&info, {}, std::move(label)};
  for (const auto& [key, value] : given) {
    const ParamSpec& spec = param_of(info, key, field);
    const std::string why =
        value < 0 ? fmt::format("must be >= {}, got {}", spec.min, value)
        : spec.type == core::ParamType::Choice
            ? core::check_param(spec, core::ChoiceIndex{static_cast<std::uint32_t>(value)})
            : core::check_param(spec, static_cast<std::uint64_t>(value));
    if (!why.empty()) {
      throw core::InputError(fmt::format("{}: {}.{} {}", field, info.name, key, why));
    }
  }
  for (const ParamSpec& s : info.params) {
    if (!s.indexed) c.params[std::string(s.key)] = core::as_integer(*s.default_value);
  }
  for (auto& [key, value] : given) c.params[key] = value;  // indexed ones: only those given
  return c;
}

AlgorithmChoice parse_algorithm(std::string_view text, std::string_view field) {
  const std::size_t colon = text.find(':');
  const AlgorithmInfo& info = find_algorithm(text.substr(0, colon), field);
  ParamValues given;
  std::string_view rest = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  while (!rest.empty()) {
    const std::size_t next = rest.find(':');
    const std::string_view kv = rest.substr(0, next);
    rest = next == std::string_view::npos ? "" : rest.substr(next + 1);
    const std::size_t eq = kv.find('=');
    if (eq == std::string_view::npos) {
      throw core::InputError(fmt::format(
          "{}: \"{}\" in \"{}\" is not key=value (e.g. ring:directions=2)", field, kv, text));
    }
    const std::string_view key = kv.substr(0, eq);
    // One parse and check for every parameter type (core/param.hpp); the message names the
    // algorithm's key as "ring.directions".
    auto value = core::parse_word(param_of(info, key, field), kv.substr(eq + 1));
    if (const auto* why = std::get_if<std::string>(&value)) {
      throw core::InputError(fmt::format("{}: {}.{} {}", field, info.name, key, *why));
    }
    given[std::string(key)] = core::as_integer(std::get<core::ParamValue>(value));
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

std::uint32_t log2_steps(Collective, std::uint32_t ranks, const ParamValues&) {
  return static_cast<std::uint32_t>(std::bit_width(ranks) - 1);
}

void require_power_of_two(std::string_view algorithm, std::uint32_t n) {
  if (n == 0 || (n & (n - 1)) != 0) {
    throw core::InputError(
        fmt::format("algorithm {} needs a power-of-two number of ranks, got {}; use ring or direct",
                    algorithm, n));
  }
}

}  // namespace collsim::collective
