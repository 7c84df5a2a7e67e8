#include "report/result.hpp"

namespace collsim::report {

void derive_bandwidths(ResultRow& row) {
  const double seconds = row.time.seconds();
  row.algbw_GBps = seconds > 0 ? static_cast<double>(row.size.count) / seconds / 1e9 : 0.0;
  row.busbw_GBps = row.algbw_GBps * collective::busbw_factor(row.collective, row.npus);
}

}  // namespace collsim::report
