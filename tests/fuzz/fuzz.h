/*
 * fuzz.h: the entry points every fuzz target under tests/fuzz/ defines.
 *
 * A target is one C file defining LLVMFuzzerTestOneInput (and, if it needs
 * set-up, LLVMFuzzerInitialize), one corpus directory corpus/NAME/, and one
 * line tabula_fuzz_target(NAME ...) in tests/fuzz/CMakeLists.txt. With
 * -DTABULA_FUZZ=ON (clang) it links against libFuzzer; otherwise against
 * replay.c, a plain main() that runs every file of the corpus once, which is
 * what ctest does in every build (so gcc builds cover the targets too).
 *
 * A target reports a broken property by printing what broke and calling
 * abort(): libFuzzer then keeps the input as a crash, the replay driver dies
 * and its ctest fails.
 */
#ifndef TABULA_FUZZ_H
#define TABULA_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#endif /* TABULA_FUZZ_H */
