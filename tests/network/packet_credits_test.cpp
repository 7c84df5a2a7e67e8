// The packet backend's credit unit (network/packet_credits.hpp): a return's credits arriving per
// flit (one flit time apart, the tail's last) or per packet (all at the tail), and the three
// queries the router makes of a VC's returns, against arrival times written out by hand.
#include "network/packet_credits.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace collsim::network::packet {
namespace {

// A time in ns, to the picosecond.
core::Time ns(double v) { return core::Time::from_ps(std::llround(v * 1e3)); }

TEST(PacketCredits, PerFlitReturnArrivesOneFlitTimeApartTheTailLast) {
  // 4 flits, the last at 10 ns, 1 ns apart: at 7, 8, 9, 10 ns.
  const CreditBack r{ns(10), ns(1), 4, 0, kNil};
  EXPECT_EQ(r.arrived(ns(6.999)), 0u);
  EXPECT_EQ(r.arrived(ns(7)), 1u);
  EXPECT_EQ(r.arrived(ns(8.5)), 2u);
  EXPECT_EQ(r.arrived(ns(10)), 4u);
  EXPECT_EQ(r.arrived(ns(50)), 4u);
  EXPECT_EQ(r.time_of(1), ns(7));
  EXPECT_EQ(r.time_of(4), ns(10));
}

TEST(PacketCredits, PerPacketReturnArrivesWhole) {
  const CreditBack r{ns(10), ns(0), 4, 0, kNil};
  EXPECT_EQ(r.arrived(ns(9.999)), 0u);
  EXPECT_EQ(r.arrived(ns(10)), 4u);
  EXPECT_EQ(r.time_of(1), ns(10));
}

struct Vc {
  CreditPool pool;
  Fifo back;
  void add(CreditBack r) {
    const std::uint32_t id = pool.acquire();
    pool[id] = r;
    back.push_back(pool, id);
  }
};

TEST(PacketCredits, OnlyTheFrontReturnCountsAsPartlyBack) {
  Vc vc;
  vc.add({ns(10), ns(1), 4, 1, kNil});  // one of its credits already applied
  vc.add({ns(14), ns(1), 4, 0, kNil});
  EXPECT_EQ(partial_credits(vc.back, vc.pool, ns(8)), 1u);  // flits 1, 2 back, 1 applied
  EXPECT_EQ(partial_credits(Fifo{}, vc.pool, ns(8)), 0u);
  // credits_by: what is applied plus what is back, through the first return not wholly back.
  EXPECT_EQ(credits_by(vc.back, vc.pool, 5, ns(8)), 6u);
  EXPECT_EQ(credits_by(vc.back, vc.pool, 5, ns(10.5)), 5u + 3);  // the second's at 11 .. 14
  EXPECT_EQ(credits_by(vc.back, vc.pool, 5, ns(12)), 5u + 3 + 2);
  EXPECT_EQ(credits_by(vc.back, vc.pool, 5, ns(20)), 5u + 3 + 4);
}

TEST(PacketCredits, CreditsArriveStrictlyAfterNowOrNever) {
  Vc vc;
  vc.add({ns(10), ns(1), 4, 0, kNil});  // at 7, 8, 9, 10 ns
  vc.add({ns(20), ns(1), 4, 0, kNil});  // at 17 .. 20 ns
  EXPECT_EQ(credits_arrive(vc.back, vc.pool, 1, ns(8)), ns(9));  // flits 1, 2 are back at 8
  EXPECT_EQ(credits_arrive(vc.back, vc.pool, 2, ns(8)), ns(10));
  EXPECT_EQ(credits_arrive(vc.back, vc.pool, 3, ns(8)), ns(17));  // into the second return
  EXPECT_EQ(credits_arrive(vc.back, vc.pool, 6, ns(8)), ns(20));
  EXPECT_EQ(credits_arrive(vc.back, vc.pool, 7, ns(8)), core::Time::max());  // not in flight
}

}  // namespace
}  // namespace collsim::network::packet
