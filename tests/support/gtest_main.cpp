// The main of the engine's test executables: GoogleTest's, except that a run in which some case skipped and
// none failed exits 77, which ctest (SKIP_RETURN_CODE in tests/CMakeLists.txt) reports as "skipped", not
// "passed", after listing the skipped cases and why. A failure is never hidden behind a skip: it keeps its
// exit code. (test_gpu has its own main: there every case skips without a GPU.) Temporary files go to a
// folder of the program's own, removed at its end (support/temporary_folder.h).

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "support/temporary_folder.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const wb::test::TestProgramTemporaryRoot temporary_root;
  const int result = RUN_ALL_TESTS();
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  if (result != 0 || unit.skipped_test_count() == 0) return result;
  std::printf("\n%d of %d cases skipped, so this executable reports itself skipped:\n",
              unit.skipped_test_count(), unit.test_to_run_count());
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    const ::testing::TestSuite& suite = *unit.GetTestSuite(i);
    for (int j = 0; j < suite.total_test_count(); ++j) {
      const ::testing::TestInfo& info = *suite.GetTestInfo(j);
      if (!info.should_run() || !info.result()->Skipped()) continue;
      std::string why;
      for (int k = 0; k < info.result()->total_part_count(); ++k) {
        const auto& part = info.result()->GetTestPartResult(k);
        if (part.skipped() && part.message() != nullptr) why = part.message();
      }
      std::printf("  %s.%s: %s\n", suite.name(), info.name(), why.c_str());
    }
  }
  return 77;
}
