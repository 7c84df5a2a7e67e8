// A workload graph as Chakra execution traces (workload/formats/chakra_write.hpp).
#include "workload/formats/chakra_write.hpp"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "workload/formats/chakra_et.pb.h"

namespace collsim::workload::chakra {

namespace pb = collsim::chakra::et;

namespace {

pb::CollectiveCommType comm_type(collective::Collective c) {
  switch (c) {
    case collective::Collective::AllReduce:
      return pb::ALL_REDUCE;
    case collective::Collective::AllGather:
      return pb::ALL_GATHER;
    case collective::Collective::ReduceScatter:
      return pb::REDUCE_SCATTER;
    case collective::Collective::AllToAll:
      return pb::ALL_TO_ALL;
  }
  return pb::ALL_REDUCE;
}

void attr(pb::Node& n, const std::string& name, std::int64_t v) {
  pb::AttributeProto* a = n.add_attr();
  a->set_name(name);
  a->set_int64_val(v);
}

void attr_u(pb::Node& n, const std::string& name, std::uint64_t v) {
  pb::AttributeProto* a = n.add_attr();
  a->set_name(name);
  a->set_uint64_val(v);
}

void attr_s(pb::Node& n, const std::string& name, const std::string& v) {
  pb::AttributeProto* a = n.add_attr();
  a->set_name(name);
  a->set_string_val(v);
}

void attr_b(pb::Node& n, const std::string& name, bool v) {
  pb::AttributeProto* a = n.add_attr();
  a->set_name(name);
  a->set_bool_val(v);
}

const char* order(const Stream& s) {
  return !s.serial ? "concurrent" : s.lifo ? "serial-lifo" : "serial";
}

class Writer {
 public:
  Writer(const Graph& g, std::uint32_t npus, std::uint32_t dims) : g_(g), npus_(npus), dims_(dims) {}

  ChakraWritten run(const std::function<void(std::uint32_t, const std::string&)>& sink) {
    std::vector<std::uint32_t> timeline(npus_, kNone);
    if (!g_.spmd) {
      for (std::uint32_t t = 0; t < g_.timelines.size(); ++t) {
        const topology::NodeId npu = g_.timelines[t].npu;
        if (npu >= npus_) {
          throw core::InputError(fmt::format("--export-chakra: timeline {} runs on NPU {} of {}",
                                             t, npu, npus_));
        }
        if (timeline[npu] != kNone) {
          throw core::InputError(fmt::format(
              "--export-chakra: timelines {} and {} both run on NPU {}: the graph has ranks "
              "standing for others (export every rank)",
              timeline[npu], t, npu));
        }
        timeline[npu] = t;
      }
    }
    // Pass 1: every trace's nodes (the metadata names the groups, which the nodes find).
    std::vector<std::string> bodies(npus_);
    for (std::uint32_t r = 0; r < npus_; ++r) {
      const std::uint32_t t = g_.spmd ? 0 : timeline[r];
      if (t == kNone) continue;
      bodies[r] = nodes(r, g_.timelines[t]);
    }
    for (std::uint32_t r = 0; r < npus_; ++r) {
      std::string out;
      {
        google::protobuf::io::StringOutputStream s(&out);
        google::protobuf::io::CodedOutputStream c(&s);
        const pb::GlobalMetadata m = metadata();
        c.WriteVarint32(static_cast<std::uint32_t>(m.ByteSizeLong()));
        m.SerializeToCodedStream(&c);
      }
      out += bodies[r];
      bodies[r].clear();
      sink(r, out);
      ++written_.files;
    }
    return std::move(written_);
  }

 private:
  pb::GlobalMetadata metadata() const {
    pb::GlobalMetadata m;
    m.set_version("0.0.4");
    for (const Stream& s : g_.streams) {
      pb::AttributeProto* a = m.add_attr();
      a->set_name(fmt::format("{}stream.{}", kCollsimAttr, s.name));
      a->set_string_val(order(s));
    }
    for (const auto& [name, npus] : written_.groups) {
      pb::AttributeProto* a = m.add_attr();
      a->set_name(fmt::format("{}pg.{}", kCollsimAttr, name));
      for (topology::NodeId n : npus) a->mutable_int64_list()->add_values(n);
    }
    return m;
  }

  // NPU r's trace body: its timeline's nodes, each length-delimited.
  std::string nodes(std::uint32_t r, const Timeline& tl) {
    const Program& p = g_.programs[tl.program];
    std::string out;
    google::protobuf::io::StringOutputStream s(&out);
    google::protobuf::io::CodedOutputStream c(&s);
    for (std::size_t i = 0; i < p.nodes.size(); ++i) {
      const Node& n = p.nodes[i];
      pb::Node e;
      e.set_id(n.id);
      e.set_name(g_.name_of(n));
      for (std::uint32_t k = 0; k < std::uint32_t{n.data_deps} + n.ctrl_deps; ++k) {
        const std::uint64_t id = p.nodes[p.deps[n.deps_begin + k]].id;
        if (k < n.data_deps) {
          e.add_data_deps(id);
        } else {
          e.add_ctrl_deps(id);
        }
      }
      attr_s(e, std::string(kCollsimAttr) + "stream", g_.streams[n.stream].name);
      attr_s(e, std::string(kCollsimAttr) + "category", g_.categories[n.category]);
      switch (n.kind) {
        case NodeKind::Compute:
        case NodeKind::Delay:
          e.set_type(pb::COMP_NODE);
          e.set_duration_micros(static_cast<std::uint64_t>(std::llround(n.duration.us())));
          attr_u(e, std::string(kCollsimAttr) + "duration_ps",
                 static_cast<std::uint64_t>(n.duration.ps));
          if (n.kind == NodeKind::Delay) attr_b(e, std::string(kCollsimAttr) + "delay", true);
          if (n.flops > 0) attr(e, "num_ops", static_cast<std::int64_t>(n.flops));
          if (n.bytes > 0) attr_u(e, "tensor_size", n.bytes);
          if (n.cpu) attr_b(e, "is_cpu_op", true);
          break;
        case NodeKind::Collective:
          e.set_type(pb::COMM_COLL_NODE);
          attr(e, "comm_type", comm_type(n.collective));
          attr_u(e, "comm_size", n.bytes);
          if (n.chunks) attr_u(e, std::string(kCollsimAttr) + "chunks", n.chunks);
          communicator(e, r, g_.groups[tl.group_of(n.group)], p, i);
          break;
        case NodeKind::Send:
        case NodeKind::Recv: {
          e.set_type(n.kind == NodeKind::Send ? pb::COMM_SEND_NODE : pb::COMM_RECV_NODE);
          const topology::NodeId src = n.src == kSelf ? r : n.src;
          const topology::NodeId dst = n.dst == kSelf ? r : n.dst;
          attr(e, "comm_src", src);
          attr(e, "comm_dst", dst);
          attr(e, "comm_tag", n.tag);
          attr_u(e, "comm_size", n.bytes);
          break;
        }
        case NodeKind::MemLoad:
        case NodeKind::MemStore:
          e.set_type(n.kind == NodeKind::MemLoad ? pb::MEM_LOAD_NODE : pb::MEM_STORE_NODE);
          attr_u(e, "tensor_size", n.bytes);
          break;
      }
      c.WriteVarint32(static_cast<std::uint32_t>(e.ByteSizeLong()));
      e.SerializeToCodedStream(&c);
      ++written_.nodes;
    }
    c.Trim();
    return out;
  }

  // The communicator of NPU r in group `gr`: every NPU (nothing to write), the dimensions of a
  // hierarchical collective (involved_dim), or the one holding r (pg_name).
  void communicator(pb::Node& e, std::uint32_t r, const Group& gr, const Program& p,
                    std::size_t i) {
    if (gr.comms.empty()) {
      if (gr.dims.empty()) return;
      pb::AttributeProto* a = e.add_attr();
      a->set_name("involved_dim");
      for (std::uint32_t d = 0; d < dims_; ++d) {
        a->mutable_bool_list()->add_values(std::find(gr.dims.begin(), gr.dims.end(), d) !=
                                           gr.dims.end());
      }
      return;
    }
    for (std::size_t k = 0; k < gr.comms.size(); ++k) {
      const auto& npus = gr.comms[k].npus;
      if (std::find(npus.begin(), npus.end(), r) == npus.end()) continue;
      if (gr.comms.size() == 1 && gr.comms[0].is_identity(npus_)) return;  // the world
      const std::string name = fmt::format("{}#{}", gr.name, k);
      written_.groups.emplace(name, npus);
      attr_s(e, "pg_name", name);
      return;
    }
    throw core::InputError(fmt::format(
        "--export-chakra: {}: node {} runs on group {}, which has no communicator holding NPU {}",
        p.source, i, gr.name, r));
  }

  const Graph& g_;
  std::uint32_t npus_, dims_;
  ChakraWritten written_;
};

}  // namespace

ChakraWritten write_chakra(const Graph& g, std::uint32_t npus, std::uint32_t dims,
                           const std::function<void(std::uint32_t, const std::string&)>& sink) {
  return Writer(g, npus, dims).run(sink);
}

std::string comm_groups_json(const std::map<std::string, std::vector<topology::NodeId>>& groups) {
  std::string out = "{";
  bool first = true;
  for (const auto& [name, npus] : groups) {
    out += fmt::format("{}\n  \"{}\": [", first ? "" : ",", name);
    for (std::size_t k = 0; k < npus.size(); ++k) out += fmt::format("{}{}", k ? ", " : "", npus[k]);
    out += "]";
    first = false;
  }
  out += "\n}\n";
  return out;
}

}  // namespace collsim::workload::chakra
