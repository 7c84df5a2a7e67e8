// The list of compact topology forms. Adding one: a file defining its *_form() (with its
// builder), and its line here.
#include "topology/forms.hpp"

namespace collsim::topology {

// One line each, in the order of `collsim list` and of the "valid:" lists.
TopologyForm ring_form();                // ring.cpp
TopologyForm bidir_ring_form();          // ring.cpp
TopologyForm fully_connected_form();     // fully_connected.cpp
TopologyForm switch_form();              // switch.cpp
TopologyForm nvswitch_form();            // nvswitch.cpp
TopologyForm torus_form();               // torus.cpp
TopologyForm mesh_form();                // mesh.cpp
TopologyForm hierarchical_form();        // hierarchical.cpp
TopologyForm optical_ring_form();        // optical_ring.cpp
TopologyForm fat_tree_form();            // fat_tree.cpp
TopologyForm bigraph_form();             // bigraph.cpp
TopologyForm switch_fc_form();           // switch_fc.cpp
TopologyForm hierarchical_torus_form();  // switch_fc.cpp
TopologyForm rail_fat_tree_form();       // rail_fat_tree.cpp
TopologyForm dragonfly_form();           // dragonfly.cpp
TopologyForm file_form();                // graph_import.cpp

const core::Registry<TopologyForm>& topology_forms() {
  static const core::Registry<TopologyForm> all(
      "topology form",
      {ring_form(), bidir_ring_form(), fully_connected_form(), switch_form(), nvswitch_form(),
       torus_form(), mesh_form(), hierarchical_form(), optical_ring_form(), fat_tree_form(),
       bigraph_form(), switch_fc_form(), hierarchical_torus_form(), rail_fat_tree_form(),
       dragonfly_form(), file_form()});
  return all;
}

const TopologyForm* find_topology_form(std::string_view name) {
  return topology_forms().find(name);
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
