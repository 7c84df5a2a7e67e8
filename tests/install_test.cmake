# CTest Install.PutsCollsimInBin: `cmake --install BUILD_DIR --prefix PREFIX` installs a collsim
# that runs, in PREFIX/bin, and the model zoo beside it. Run as cmake -DBUILD_DIR=... -DPREFIX=... -DVERSION=... -P this file.
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}"
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
execute_process(COMMAND "${PREFIX}/bin/collsim" --version RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out STREQUAL "collsim ${VERSION}\n")
  message(FATAL_ERROR "${PREFIX}/bin/collsim --version: status ${rc}, printed \"${out}\"")
endif()
# The model zoo goes to PREFIX/share/collsim/models, where the installed collsim looks first.
if(NOT EXISTS "${PREFIX}/share/collsim/models/resnet50.yaml")
  message(FATAL_ERROR "the model zoo was not installed in ${PREFIX}/share/collsim/models")
endif()
file(REMOVE_RECURSE "${PREFIX}")
