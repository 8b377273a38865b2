// test_gpu's own main: without CUDA every case skips, and ctest must say "skipped", not "passed". Exit code
// 77 (SKIP_RETURN_CODE in tests/CMakeLists.txt) only when cases were to run and every one of them skipped;
// when some ran (passed or failed) the usual exit code stands, so a failure is never hidden behind a skip.

#include <gtest/gtest.h>

#include "support/temporary_folder.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const wb::test::TestProgramTemporaryRoot temporary_root;  // temporary files removed at the end
  const int result = RUN_ALL_TESTS();
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  const bool all_skipped =
      unit.test_to_run_count() > 0 && unit.skipped_test_count() == unit.test_to_run_count();
  return result == 0 && all_skipped ? 77 : result;
}
