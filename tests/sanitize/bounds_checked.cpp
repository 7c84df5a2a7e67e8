// Sanitizer build check: std::vector::operator[] past size() but within capacity is invisible to
// ASan; _GLIBCXX_ASSERTIONS must catch it (CMake option COLLSIM_SANITIZE). The failed assertion
// aborts; the handler turns that into exit status 1, since CTest counts any signal as a failure.
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <vector>

extern "C" void on_abort(int) { _exit(1); }

int main() {
  std::signal(SIGABRT, on_abort);
  std::vector<int> v;
  v.reserve(8);
  v.push_back(1);
  volatile std::size_t i = 4;
  v[i] = 2;  // index 4 of a 1-element vector
  std::printf("continued after an out-of-range index\n");
  return 0;
}
