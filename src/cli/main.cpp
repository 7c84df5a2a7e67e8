// The collsim binary: the command line of cli/app.cpp on the standard streams.
#include <iostream>

#include "cli/commands.hpp"

int main(int argc, char** argv) { return collsim::cli::run_cli(argc, argv, std::cout, std::cerr); }
