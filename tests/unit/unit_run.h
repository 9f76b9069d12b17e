/*
 * unit_run.h: how every unit test (tests/unit/MODULE/test_*.c) runs its
 * suite, written once: check's runner with its normal output (the
 * "Checks: N, Failures: F, Errors: E" line), then the exit status ctest
 * reads. A test's main builds its suite and returns unit_run(suite).
 */
#ifndef TABULA_UNIT_RUN_H
#define TABULA_UNIT_RUN_H

#include <check.h>
#include <stdlib.h>

static inline int unit_run(Suite *suite)
{
  SRunner *runner = srunner_create(suite);
  int failed;

  srunner_run_all(runner, CK_NORMAL);
  failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
