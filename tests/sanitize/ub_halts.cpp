// Sanitizer build check: UBSan must stop the program at the first undefined behaviour, not print
// a warning and carry on (CMake option COLLSIM_SANITIZE, -fno-sanitize-recover=all).
#include <climits>
#include <cstdio>

int main() {
  volatile int big = INT_MAX;
  const int wrapped = big + 1;  // signed overflow: undefined
  std::printf("continued after undefined behaviour (%d)\n", wrapped);
  return 0;
}
