// The list of compact topology forms. Adding one: a *_form() in the builder's file, declared in
// forms.hpp and listed here.
#include "topology/forms.hpp"

namespace collsim::topology {

const std::vector<TopologyForm>& topology_forms() {
  static const std::vector<TopologyForm> all = {
      ring_form(),     bidir_ring_form(), fully_connected_form(), switch_form(),
      torus_form(),    mesh_form(),       hierarchical_form(),    optical_ring_form(),
      fat_tree_form(), bigraph_form(),    switch_fc_form(),       hierarchical_torus_form()};
  return all;
}

const TopologyForm* find_topology_form(std::string_view name) {
  for (const TopologyForm& f : topology_forms()) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string topology_syntaxes() {
  std::string s;
  for (const TopologyForm& f : topology_forms()) {
    s += (s.empty() ? "" : ", ") + std::string(f.syntax);
    if (f.args == FormArgs::Dims) s += " (kinds " + dim_kind_names() + ")";
  }
  return s;
}

}  // namespace collsim::topology
