#pragma once
// Writers for result rows: an aligned table for people, CSV and JSON for programs. CSV and JSON
// name every unit in the column name (time_ns, algbw_GBps with GB = 10^9 bytes).
#include <string>
#include <string_view>
#include <vector>

#include "jobs/result.hpp"

namespace collsim::report {

enum class Format { Table, Csv, Json };

/// "table", "csv" or "json"; throws core::InputError naming `field` otherwise.
Format parse_format(std::string_view text, std::string_view field);

std::string render(const std::vector<jobs::ResultRow>& rows, Format f);
std::string render_table(const std::vector<jobs::ResultRow>& rows);

/// render_table's text, a row at a time, so a long sweep shows each row as it finishes: add()
/// returns the text to print for a row (a block's header before its first row; a concurrent
/// job's block, whose column widths need all its rows, when the next block starts), finish()
/// the rest (the last block's busiest links, the analytical-backend footnote). The algorithm
/// column is `name_width` wide: render_table takes it from all rows, a streaming caller from the
/// labels it will run (table_name_width), so both print the same bytes.
class TableStream {
 public:
  explicit TableStream(std::size_t name_width);
  std::string add(const jobs::ResultRow& row);
  std::string finish();

 private:
  std::string close_block();
  std::size_t name_w_;
  std::vector<jobs::ResultRow> block_;  // the rows of the block being printed
  bool any_ = false;                    // a block was printed (the next starts after a blank line)
  bool oversubscribed_ = false;
};
/// The algorithm column's width for rows with these algorithm labels (at least "algorithm").
std::size_t table_name_width(const std::vector<std::string>& labels);
/// Text fields are quoted per RFC 4180 (see csv_field), so a platform named "a,b" keeps its column.
std::string render_csv(const std::vector<jobs::ResultRow>& rows);
/// One CSV field per RFC 4180: text containing a comma, a double quote, CR or LF is enclosed in
/// double quotes, with each embedded double quote doubled; other text is returned unchanged.
std::string csv_field(std::string_view text);
/// The CSV header line, and one row's line (render_csv = header + every row), so that rows can
/// be written as runs finish.
std::string csv_header();
std::string csv_row(const jobs::ResultRow& row);
/// "ring 4 x 16 GB/s 150 ns 2 links; fc 8 x ..." : a platform's dimensions as they ran.
std::string describe_dims(const std::vector<topology::DimSpec>& dims);
/// The links of a table block's header: ", 16 GB/s 150 ns links" when every dimension has the
/// same, else ", links 200 GB/s 90 ns / 25 GB/s 200 ns" (per dimension); "" without dimensions.
std::string link_summary(const std::vector<topology::DimSpec>& dims);
/// "31% 19% (avg 25%)": per-dimension utilization, with Themis's average when there are several.
std::string dims_text(const std::vector<double>& dim_utilization, double bw_utilization);
/// "0->1 100%, NPU 3 injection 97%": the busiest links (and NIC caps) as tables list them.
std::string links_text(const std::vector<jobs::LinkUse>& busiest);
/// A backend or endpoint figure as tables show it, never in exponent form: whole numbers below
/// 10^15 in full ("33040123"), others to 4 significant digits ("0.05882", "426.3"); beyond that
/// range "%.4g".
std::string figure_text(double v);
std::string render_json(const std::vector<jobs::ResultRow>& rows);

/// Themis Fig. 9 as CSV: for every row of a hierarchical collective, each dimension's activity
/// per window (jobs::activity_series), one line per window and dimension:
///   platform,backend,algorithm,size_bytes,dim,window_start_ns,window_end_ns,active_share
/// (dim 0-based; the last window ends at the run's end). Rows without activity add nothing.
std::string render_activity_csv(const std::vector<jobs::ResultRow>& rows, core::Time window);

/// Write `content` to `path` as one report::OutputFile (output_file.hpp): a regular file via a
/// temporary file beside it and a rename, so a failure leaves no half-written file and an
/// existing one as it was; a FIFO or device in place. Throws core::InputError naming `option` and
/// the path if it cannot be written.
void write_file_atomically(const std::string& path, const std::string& content,
                           std::string_view option = "--output");

}  // namespace collsim::report
