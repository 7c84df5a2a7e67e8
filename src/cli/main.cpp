// The collsim binary: the command line of cli/app.cpp on the standard streams.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"

int main(int argc, char** argv) {
  collsim::cli::install_interrupt_handlers();
  return collsim::cli::run_cli(argc, argv, std::cout, std::cerr);
}
