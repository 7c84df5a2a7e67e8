// libFuzzer target for the input readers (issue 36): a scenario (YAML), an ASTRA-sim network
// (YAML or 1.0 JSON), system (JSON or 1.0 text) or text workload, chosen by the first byte. Each
// must return or throw core::InputError / core::ResourceError; anything else (another exception,
// a crash, a sanitizer report) is a finding. Built only with -DCOLLSIM_LIBFUZZER=ON and clang:
//   cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++-14 -DCOLLSIM_LIBFUZZER=ON
//   cmake --build build-fuzz --target collsim_readers_fuzzer
//   build-fuzz/collsim_readers_fuzzer -max_total_time=60 examples/
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "config/astra_config.hpp"
#include "config/scenario.hpp"
#include "core/error.hpp"
#include "workload/astra_text.hpp"

namespace {

// The readers of ASTRA-sim's files take a path: the input goes to a file of this process.
std::string file_with(const std::string& text, const char* ext) {
  const std::string path = "/tmp/collsim_readers_fuzzer_" + std::to_string(::getpid()) + ext;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  using namespace collsim;
  try {
    switch (data[0] % 6) {
      case 0:
        config::parse_scenario(text, "fuzz.yaml");
        break;
      case 1:
        config::read_astra_network(file_with(text, ".yml"), false);
        break;
      case 2:
        config::read_astra_network(file_with(text, ".json"), true);
        break;
      case 3:
        config::read_astra_system(file_with(text, ".json"), 2);
        break;
      case 4:
        config::read_astra_system(file_with(text, ".txt"), 3);
        break;
      default:
        workload::read_astra_text(file_with(text, ".txt"), {4, 4});
        break;
    }
  } catch (const core::InputError&) {
  } catch (const core::ResourceError&) {
  }
  return 0;
}
