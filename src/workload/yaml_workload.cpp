#include "workload/yaml_workload.hpp"

#include <fstream>
#include <sstream>

#include "core/input_file.hpp"
#include "io/yaml_load.hpp"
#include "io/yaml_reader.hpp"
#include "core/parse.hpp"

namespace collsim::workload {
namespace {

Scope parse_scope(const io::YamlReader& r, const YAML::Node& n, const std::string& path) {
  const std::string s = r.scalar(n, path);
  for (Scope c : {Scope::All, Scope::DataParallel, Scope::ModelParallel}) {
    if (s == to_string(c)) return c;
  }
  r.fail(n, path,
         fmt::format("unknown scope \"{}\"; valid: all, data-parallel, model-parallel", s));
}

}  // namespace

Workload parse_yaml_workload(std::string_view text, const std::string& source) {
  io::YamlReader r(source);
  const YAML::Node root = io::load_yaml(std::string(text), source);
  r.unique_keys(root, "");
  r.check_keys(root, "", {"name", "model_parallel_npus", "layers"});
  Workload w;
  w.source = source;
  w.name = root["name"] ? r.scalar(root["name"], "name") : source;
  if (root["model_parallel_npus"]) {
    w.model_parallel_npus = r.uint(root["model_parallel_npus"], "model_parallel_npus", 0);
  }
  const YAML::Node layers = root["layers"];
  if (!layers || !layers.IsSequence() || layers.size() == 0) {
    r.fail(layers ? layers : root, "layers", "must be a non-empty list of layers");
  }
  static constexpr const char* kPassKeys[] = {"forward", "input_gradient", "weight_gradient"};
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const YAML::Node n = layers[i];
    const std::string path = fmt::format("layers[{}]", i);
    r.check_keys(n, path, {"name", "forward", "input_gradient", "weight_gradient", "update"});
    Layer l;
    l.name = n["name"] ? r.scalar(n["name"], path + ".name") : fmt::format("layer{}", i);
    for (std::size_t p = 0; p < kPasses; ++p) {
      const YAML::Node pass = n[kPassKeys[p]];
      if (!pass) continue;
      const std::string pp = path + "." + kPassKeys[p];
      r.check_keys(pass, pp, {"compute", "collective", "size", "scope"});
      if (pass["compute"]) {
        l.compute[p] = r.with_line(pass["compute"], [&] {
          return core::parse_time(r.scalar(pass["compute"], pp + ".compute"), pp + ".compute");
        });
      }
      if (pass["collective"]) {
        Comm c;
        c.collective = r.with_line(pass["collective"], [&] {
          return collective::parse_collective(r.scalar(pass["collective"], pp + ".collective"),
                                              pp + ".collective");
        });
        if (!pass["size"]) r.fail(pass, pp + ".size", "a collective needs a size, e.g. 1 MiB");
        c.size = r.with_line(pass["size"], [&] {
          return core::parse_bytes(r.scalar(pass["size"], pp + ".size"), pp + ".size");
        });
        if (pass["scope"]) c.scope = parse_scope(r, pass["scope"], pp + ".scope");
        l.comm[p] = c;
      } else if (pass["size"] || pass["scope"]) {
        r.fail(pass, pp, "size and scope need a collective");
      }
    }
    if (n["update"]) {
      l.update = r.with_line(n["update"], [&] {
        return core::parse_time(r.scalar(n["update"], path + ".update"), path + ".update");
      });
    }
    w.layers.push_back(std::move(l));
  }
  return w;
}

Workload read_yaml_workload(const std::string& path) {
  return parse_yaml_workload(core::read_input(path, "workload file"), path);
}

}  // namespace collsim::workload
