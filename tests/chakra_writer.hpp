#pragma once
// Writing Chakra execution traces in tests: nodes built with the protobuf messages, written as
// ASTRA-sim does (a GlobalMetadata, then each Node, each message length-delimited).
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "workload/formats/chakra_et.pb.h"

namespace collsim::workload::chakra {

namespace pb = collsim::chakra::et;

inline pb::AttributeProto int_attr(const std::string& name, std::int64_t v) {
  pb::AttributeProto a;
  a.set_name(name);
  a.set_int64_val(v);
  return a;
}

inline pb::Node node(std::uint64_t id, pb::NodeType type, std::uint64_t us,
                     std::vector<std::uint64_t> deps = {}) {
  pb::Node n;
  n.set_id(id);
  n.set_name("n" + std::to_string(id));
  n.set_type(type);
  n.set_duration_micros(us);
  for (auto d : deps) n.add_data_deps(d);
  return n;
}

inline pb::Node coll(std::uint64_t id, pb::CollectiveCommType t, std::int64_t bytes,
                     std::vector<std::uint64_t> deps) {
  pb::Node n = node(id, pb::COMM_COLL_NODE, 0, std::move(deps));
  *n.add_attr() = int_attr("comm_type", t);
  *n.add_attr() = int_attr("comm_size", bytes);
  return n;
}

// Write `nodes` as a trace file (metadata first, each message length-delimited).
inline std::string write(const std::string& path, const std::vector<pb::Node>& nodes) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream s(&out);
    google::protobuf::io::CodedOutputStream c(&s);
    pb::GlobalMetadata m;
    m.set_version("0.0.4");
    c.WriteVarint32(static_cast<std::uint32_t>(m.ByteSizeLong()));
    m.SerializeToCodedStream(&c);
    for (const auto& n : nodes) {
      c.WriteVarint32(static_cast<std::uint32_t>(n.ByteSizeLong()));
      n.SerializeToCodedStream(&c);
    }
  }
  std::ofstream(path, std::ios::binary) << out;
  return out;
}

// A directory of this test process for trace files: TMP/collsim_<tag>_<pid>.
inline std::filesystem::path trace_dir(const std::string& tag) {
  const auto d = std::filesystem::temp_directory_path() /
                 ("collsim_" + tag + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace collsim::workload::chakra
