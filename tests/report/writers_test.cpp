// Result writers: CSV fields quoted per RFC 4180 so that names never shift columns.
#include "report/writers.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "jobs/result.hpp"

namespace collsim::report {
namespace {

using namespace collsim::jobs;  // NOLINT: the drivers under test

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
  r.ranks = 4;
  r.dims = {topology::DimSpec{topology::DimKind::Ring, 4, core::Bandwidth{16e9},
                              core::Time::from_ns(150), 2}};
  derive_bandwidths(r);
  return r;
}

const std::string kHeader =
    "platform,topology,npus,backend,collective,algorithm,chunks,size_bytes,time_ns,algbw_GBps,"
    "busbw_GBps,speedup,messages,bytes_sent,max_link_utilization,dim_utilization,group,groups,"
    "ranks,concurrent,alone_time_ns,slowdown,dims,dim_activity,bw_utilization,backend_metrics,"
    "endpoint,endpoint_metrics,note\n";
const std::string kRest =
    ",ring:4,4,flow,all-reduce,ring,1,1024,1000.000,1.024000,1.536000,1.000000,24,3072,0.500000,"
    "0.250000,all,1,4,,0.000,1.000000,ring 4 x 16 GB/s 150 ns 2 links,,,,none,,\n";

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
                "1.024000,1.536000,1.000000,24,3072,0.500000,0.250000,all,1,4,,0.000,1.000000,"
                "ring 4 x 16 GB/s 150 ns 2 links,,,,none,,\n");
}

TEST(CsvWriter, GroupsConcurrencyAndDimensionsHaveTheirColumns) {
  // A row of a concurrent job on dim:0 groups of a two-dimensional platform: 1 us together,
  // 0.8 us alone, slowdown 1.25; the dims text holds a ';' and a comma-free description.
  ResultRow r = row("p");
  r.group = "dim:0";
  r.groups = 4;
  r.concurrent = "jobs[1]";
  r.alone_time = core::Time::from_ns(800);
  r.slowdown = 1.25;
  r.dims.push_back(topology::DimSpec{topology::DimKind::Switch, 8, core::Bandwidth{50e9},
                                     core::Time::from_ns(1700), 1});
  r.dim_activity = {1.0, 0.25};
  r.bw_utilization = 0.3;
  r.backend_metrics = {{"lightpaths", 36}, {"lightpath_wait_max_us", 2.5}};
  EXPECT_EQ(csv_row(r),
            "p,ring:4,4,flow,all-reduce,ring,1,1024,1000.000,1.024000,1.536000,1.000000,24,3072,"
            "0.500000,0.250000,dim:0,4,4,jobs[1],800.000,1.250000,ring 4 x 16 GB/s 150 ns 2 "
            "links; sw 8 x 50 GB/s 1.7 us 1 link,1.000000;0.250000,0.300000,"
            "lightpaths=36;lightpath_wait_max_us=2.5,none,,\n");
  EXPECT_EQ(render_csv({r}), csv_header() + csv_row(r));
}

TEST(CsvWriter, FieldHelper) {
  EXPECT_EQ(csv_field(""), "");
  EXPECT_EQ(csv_field("ring:directions=2"), "ring:directions=2");
  EXPECT_EQ(csv_field("\""), "\"\"\"\"");
  EXPECT_EQ(csv_field("a,\"b\""), "\"a,\"\"b\"\"\"");
}

TEST(CsvWriter, SkippedAlgorithmsHaveNoFiguresAndSayWhy) {
  jobs::ResultRow r = row("p");
  r.skipped = "needs a power-of-two number of ranks, got 6";
  // The leading columns as for any row, every figure empty, the reason in `note`: the same
  // number of columns as the header.
  const std::string line = csv_row(r);
  EXPECT_EQ(line,
            "p,ring:4,4,flow,all-reduce,ring,1,1024,,,,,,,,,all,1,4,,,,ring 4 x 16 GB/s 150 ns 2 "
            "links,,,,none,,\"skipped: needs a power-of-two number of ranks, got 6\"\n");
  EXPECT_EQ(std::count(kHeader.begin(), kHeader.end(), ','),
            std::count(line.begin(), line.end(), ',') - 1);  // one comma inside the quoted note
  const std::string table = render_table({row("p"), r});
  EXPECT_NE(table.find("  1 KiB  ring       skipped: needs a power-of-two number of ranks, got 6\n"),
            std::string::npos)
      << table;
}

}  // namespace
}  // namespace collsim::report

namespace collsim::report {
namespace {

using namespace collsim::jobs;  // NOLINT: the drivers under test

TEST(TableWriter, AReferenceRowLastInABlockKeepsTheBusiestLinksBlock) {
  // A hierarchical row lists its links and activity; the ideal row after it lists none. The
  // block must still show the hierarchical row's figures (and not the ideal row).
  ResultRow h = row("p", "hierarchical");
  h.busiest_links = {LinkUse{"link", 0, 0, 1, 0, 1024, core::Time::from_ns(500), 0.5}};
  h.dim_activity = {1.0};
  ResultRow ideal = row("p", "ideal");
  ideal.messages = 0;
  const std::string t = render_table({h, ideal});
  EXPECT_NE(t.find("  hierarchical  dims 25%  active 100%  links 0->1 50%"), std::string::npos)
      << t;
  EXPECT_EQ(t.find("  ideal         dims"), std::string::npos) << t;
}

}  // namespace
}  // namespace collsim::report

namespace collsim::report {
namespace {

TEST(TableStream, PrintsEachRowWhenItComesAndTheSameBytesAsTheWholeTable) {
  // Two blocks (platforms p and q), the first with two rows: the header comes with the first
  // row, a block's busiest links when the next block starts, nothing is held back otherwise.
  jobs::ResultRow a = row("p", "ring"), b = row("p", "hierarchical"), c = row("q", "ring");
  b.size = core::Bytes{2048};
  a.busiest_links = {jobs::LinkUse{"link", 0, 0, 1, 0, 1024, core::Time::from_ns(500), 0.5}};
  b.busiest_links = a.busiest_links;
  const std::vector<jobs::ResultRow> rows = {a, b, c};
  TableStream s(table_name_width({"ring", "hierarchical"}));
  const std::string first = s.add(a);
  EXPECT_EQ(first.rfind("p (", 0), 0u) << first;  // the block's header
  EXPECT_NE(first.find("    1 KiB  ring"), std::string::npos) << first;
  const std::string second = s.add(b);
  EXPECT_EQ(second.find("p ("), std::string::npos) << second;  // same block: no new header
  EXPECT_EQ(second.find("busiest"), std::string::npos) << second;
  const std::string third = s.add(c);
  EXPECT_NE(third.find("at 2 KiB: utilization per dimension, and the busiest links"),
            std::string::npos)
      << third;  // block p closed when block q starts
  EXPECT_NE(third.find("\nq ("), std::string::npos) << third;
  EXPECT_EQ(first + second + third + s.finish(), render_table(rows));
}

TEST(TableStream, TheAlgorithmColumnFitsTheLongestLabel) {
  EXPECT_EQ(table_name_width({}), 9u);  // "algorithm"
  EXPECT_EQ(table_name_width({"ring", "hierarchical:dim1=ring"}), 22u);
}

}  // namespace
}  // namespace collsim::report
