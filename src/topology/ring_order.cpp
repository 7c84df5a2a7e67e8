#include "topology/ring_order.hpp"

#include <cstdint>
#include <vector>

namespace collsim::topology::detail {
namespace {

// The NPU-id offsets of a reflected (boustrophedon) mixed-radix Gray path over some dimensions,
// the first listed varying fastest: consecutive entries differ by +-1 in one coordinate.
// The lowest digit that can still move in its direction moves; digits below it that could not
// move reverse, which is what makes the path snake back.
std::vector<NodeId> gray_path(const std::vector<std::uint32_t>& sizes,
                              const std::vector<std::uint32_t>& strides) {
  std::uint64_t total = 1;
  for (std::uint32_t s : sizes) total *= s;
  std::vector<NodeId> path;
  path.reserve(total);
  std::vector<std::uint32_t> digit(sizes.size(), 0);
  std::vector<bool> up(sizes.size(), true);
  NodeId id = 0;
  path.push_back(id);
  for (std::uint64_t k = 1; k < total; ++k) {
    std::size_t j = 0;
    while ((up[j] && digit[j] + 1 == sizes[j]) || (!up[j] && digit[j] == 0)) {
      up[j] = !up[j];
      ++j;
    }
    if (up[j]) {
      ++digit[j];
      id += strides[j];
    } else {
      --digit[j];
      id -= strides[j];
    }
    path.push_back(id);
  }
  return path;
}

// A Hamiltonian cycle of rows x cols, rows walked as a path R, each row a path Q:
//   row 0: Q[0..m-1]; odd rows: Q[m-1..1]; even rows >= 2: Q[1..m-1];
//   then back along column Q[0] through rows r-1..1 to the start.
// With an even number of rows the last row ends at Q[1], next to Q[0]. With an odd number it
// ends at Q[m-1], so Q must itself close (Q[m-1] next to Q[0]): a ring, fully connected or
// switch dimension.
std::vector<NodeId> snake(const std::vector<NodeId>& rows, const std::vector<NodeId>& cols) {
  const std::size_t r = rows.size();
  const std::size_t m = cols.size();
  std::vector<NodeId> order;
  order.reserve(r * m);
  for (std::size_t j = 0; j < m; ++j) order.push_back(rows[0] + cols[j]);
  for (std::size_t i = 1; i < r; ++i) {
    if (i % 2 == 1) {
      for (std::size_t j = m - 1; j >= 1; --j) order.push_back(rows[i] + cols[j]);
    } else {
      for (std::size_t j = 1; j < m; ++j) order.push_back(rows[i] + cols[j]);
    }
  }
  for (std::size_t i = r - 1; i >= 1; --i) order.push_back(rows[i] + cols[0]);
  return order;
}

std::vector<NodeId> product_order(const Topology& t) {
  const auto& dims = t.dimensions();
  const std::size_t nd = dims.size();
  std::vector<std::uint32_t> sizes(nd), strides(nd);
  std::uint32_t stride = 1;
  for (std::size_t d = 0; d < nd; ++d) {
    sizes[d] = dims[d].spec.size;
    strides[d] = stride;
    stride *= sizes[d];
  }
  if (nd == 1) return gray_path(sizes, strides);  // the identity

  // Gray path over every dimension but `skip`, and the plain walk 0..size-1 of `skip`.
  auto rest_path = [&](std::size_t skip) {
    std::vector<std::uint32_t> sz, st;
    for (std::size_t d = 0; d < nd; ++d) {
      if (d == skip) continue;
      sz.push_back(sizes[d]);
      st.push_back(strides[d]);
    }
    return gray_path(sz, st);
  };
  auto line_path = [&](std::size_t d) {
    std::vector<NodeId> p(sizes[d]);
    for (std::uint32_t i = 0; i < sizes[d]; ++i) p[i] = i * strides[d];
    return p;
  };

  // An even dimension as the rows (the last one, so that on a torus or mesh the ring starts
  // along dimension 0).
  for (std::size_t d = nd; d-- > 0;) {
    if (sizes[d] % 2 == 0) return snake(line_path(d), rest_path(d));
  }
  // All odd: a dimension that closes on itself as the row content, the rest as rows. A torus
  // 3x3 is a cycle this way although a plain grid of odd size is not.
  for (std::size_t d = 0; d < nd; ++d) {
    const DimSpec& s = dims[d].spec;
    if (traits(s.kind).closed_walk) return snake(rest_path(d), line_path(d));
  }
  // Odd lines (a mesh 3x3 is bipartite with an odd number of nodes: no Hamiltonian cycle) and
  // unidirectional rings: the Gray path, checked below.
  return gray_path(sizes, strides);
}

}  // namespace

bool one_step(const Topology& t, NodeId a, NodeId b) {
  const auto& links = t.links();
  for (LinkId l : t.out_links(a)) {
    if (links[l].dst == b) return true;
  }
  for (LinkId up : t.out_links(a)) {
    const NodeId s = links[up].dst;
    if (t.is_npu(s)) continue;
    for (LinkId down : t.in_links(b)) {
      if (links[down].src == s) return true;
    }
  }
  return false;
}

RingOrder compute_ring_order(const Topology& t) {
  RingOrder r;
  if (t.dimensions().empty()) {
    r.order.resize(t.num_npus());
    for (NodeId n = 0; n < t.num_npus(); ++n) r.order[n] = n;
  } else {
    r.order = product_order(t);
  }
  r.is_cycle = true;
  for (std::size_t i = 0; i < r.order.size() && r.is_cycle; ++i) {
    r.is_cycle = one_step(t, r.order[i], r.order[(i + 1) % r.order.size()]);
  }
  return r;
}

}  // namespace collsim::topology::detail
