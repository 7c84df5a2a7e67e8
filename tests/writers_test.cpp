// Result writers: CSV fields quoted per RFC 4180 so that names never shift columns.
#include "report/writers.hpp"

#include <gtest/gtest.h>

#include "report/result.hpp"

namespace collsim::report {
namespace {

// A 1 KiB all-reduce on 4 NPUs in 1 us: algbw 1.024 GB/s, busbw 1.024 x 2 x 3 / 4 = 1.536 GB/s.
ResultRow row(std::string platform, std::string algorithm = "ring") {
  ResultRow r;
  r.platform = std::move(platform);
  r.topology = "ring:4";
  r.npus = 4;
  r.backend = "flow";
  r.algorithm = std::move(algorithm);
  r.size = core::Bytes{1024};
  r.time = core::Time::from_ns(1000);
  r.messages = 24;
  r.bytes_sent = 3072;
  r.max_link_utilization = 0.5;
  r.dim_utilization = {0.25};
  derive_bandwidths(r);
  return r;
}

const std::string kHeader =
    "platform,topology,npus,backend,collective,algorithm,chunks,size_bytes,time_ns,algbw_GBps,"
    "busbw_GBps,speedup,messages,bytes_sent,max_link_utilization,dim_utilization\n";
const std::string kRest =
    ",ring:4,4,flow,all-reduce,ring,1,1024,1000.000,1.024000,1.536000,1.000000,24,3072,0.500000,"
    "0.250000\n";

TEST(CsvWriter, PlainNamesAreWrittenAsTheyAre) {
  EXPECT_EQ(render_csv({row("torus-8x8")}), kHeader + "torus-8x8" + kRest);
}

TEST(CsvWriter, CommaQuoteAndLineBreaksAreQuotedPerRfc4180) {
  EXPECT_EQ(render_csv({row("a,b"), row("say \"hi\""), row("two\nlines"), row("cr\rhere")}),
            kHeader + "\"a,b\"" + kRest + "\"say \"\"hi\"\"\"" + kRest + "\"two\nlines\"" + kRest +
                "\"cr\rhere\"" + kRest);
}

TEST(CsvWriter, EveryTextColumnIsQuotedWhenNeeded) {
  ResultRow r = row("p", "x,y");
  r.topology = "t,1";
  r.backend = "flow:eject=8 GB/s,\"b\"";
  EXPECT_EQ(render_csv({r}),
            kHeader +
                "p,\"t,1\",4,\"flow:eject=8 GB/s,\"\"b\"\"\",all-reduce,\"x,y\",1,1024,1000.000,"
                "1.024000,1.536000,1.000000,24,3072,0.500000,0.250000\n");
}

TEST(CsvWriter, FieldHelper) {
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("ring:directions=2"), "ring:directions=2");
  EXPECT_EQ(csv_field("\""), "\"\"\"\"");
  EXPECT_EQ(csv_field("a,\"b\""), "\"a,\"\"b\"\"\"");
}

}  // namespace
}  // namespace collsim::report
