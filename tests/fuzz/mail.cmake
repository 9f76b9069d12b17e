# The mail path's fuzz target: raw message -> mail_parse ->
# cleaning -> the command reader (fuzz_mail.c). Included by
# tests/fuzz/CMakeLists.txt; seeds in corpus/fuzz_mail/.
tabula_fuzz_target(fuzz_mail tabula_service)
if(TABULA_FUZZ)
  # Beyond replaying the seeds: a short deterministic run (fixed seed, a
  # bounded number of inputs), whose new inputs go to the build tree.
  file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fuzz_mail-found)
  add_test(NAME fuzz_mail_short
           COMMAND fuzz_mail -seed=1 -runs=3000 -max_len=8192 -timeout=10
                   ${CMAKE_CURRENT_BINARY_DIR}/fuzz_mail-found
                   ${CMAKE_CURRENT_SOURCE_DIR}/corpus/fuzz_mail)
endif()
