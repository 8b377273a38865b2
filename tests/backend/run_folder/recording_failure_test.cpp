// A run folder whose logs cannot be appended to (a full disk, a file size limit): the write is not ignored.
// RunFolder::append throws FileWriteError naming the file; the event stream stops recording, still hands the
// batch — with the failure in it — to the subscriber, and throws once so the run ends with the error.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "backend/util/small_disk.h"
#include "run_folder/event_stream.h"
#include "run_folder/run_folder.h"
#include "support/test_experiments.h"
#include "util/atomic_file.h"
#include "workbench/errors.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

EventBatch logLines(int count, size_t length) {
  EventBatch batch;
  for (int i = 0; i < count; ++i) batch.push_back(LogLine{LogLevel::Info, std::string(length, 'x')});
  return batch;
}

TEST(RecordingFailure, AppendPastTheFileSizeLimitThrowsNamingTheFile) {
  const std::string runs = test::freshDir("recording-limit");
  const std::string message = test::runWithFileSizeLimit(64 * 1024, [&]() -> std::string {
    RunFolder folder = RunFolder::create(runs, "limit", TaskKind::Classification);
    try {
      for (int i = 0; i < 20; ++i) folder.append(logLines(4, 4096));
      return "no error";
    } catch (const FileWriteError& e) {
      return std::string(e.what()) + "\nerrno " + std::to_string(e.errorNumber());
    }
  });
  EXPECT_NE(message.find("Could not append to " + runs), std::string::npos) << message;
  EXPECT_NE(message.find("ulimit -f"), std::string::npos) << message;
  EXPECT_NE(message.find("errno " + std::to_string(EFBIG)), std::string::npos) << message;
  fs::remove_all(runs);
}

TEST(RecordingFailure, AppendOnAFullDiskSaysTheDiskIsFull) {
  // A run folder needs 64 MiB free to start; the disk fills up afterwards (another program's file).
  const auto disk = test::SmallDisk::mount(test::freshDir("recording-tmpfs"), 66 * 1024);
  if (!disk)
    GTEST_SKIP() << "cannot mount a tmpfs here (not root?); the file size limit test covers the checks";
  RunFolder folder = RunFolder::create(disk->dir(), "full", TaskKind::Classification);
  {
    std::ofstream filler(disk->dir() + "/filler", std::ios::binary);
    const std::string block(1 << 20, 'f');
    while (filler.write(block.data(), static_cast<std::streamsize>(block.size()))) {
    }
  }
  try {
    for (int i = 0; i < 100; ++i) folder.append(logLines(4, 4096));
    FAIL() << "1.6 MiB of log lines fitted on a full disk";
  } catch (const FileWriteError& e) {
    const std::string message = e.what();
    EXPECT_NE(
        message.find("The disk holding " + folder.path() + " is full: could not append to " + folder.path()),
        std::string::npos)
        << message;
    EXPECT_EQ(e.errorNumber(), ENOSPC);
  }
}

TEST(RecordingFailure, TheStreamStopsRecordingTellsTheSubscriberAndThrowsOnce) {
  const std::string runs = test::freshDir("recording-stream");
  const std::string outcome = test::runWithFileSizeLimit(64 * 1024, [&]() -> std::string {
    RunFolder folder = RunFolder::create(runs, "stream", TaskKind::Classification);
    std::string seen;
    int delivered = 0;
    EventStream stream([&](EventBatch&& batch) {
      delivered += static_cast<int>(batch.size());
      for (const Event& event : batch) {
        if (const auto* line = std::get_if<LogLine>(&event); line && line->level == LogLevel::Error) {
          seen += line->text + "\n";
        }
      }
    });
    stream.setRecorder(&folder);
    int throws = 0;
    for (int i = 0; i < 40; ++i) {
      for (int j = 0; j < 4; ++j) stream.log(LogLevel::Info, std::string(4096, 'y'));
      try {
        stream.flush();
      } catch (const FileWriteError&) {
        ++throws;
      }
    }
    return "throws " + std::to_string(throws) + "\ndelivered " + std::to_string(delivered) + "\n" + seen;
  });
  EXPECT_NE(outcome.find("throws 1\n"), std::string::npos) << outcome;
  // Every line reached the subscriber (160 posted + the one error line), recorded or not.
  EXPECT_NE(outcome.find("delivered 161\n"), std::string::npos) << outcome;
  EXPECT_NE(outcome.find("Recording stopped: Could not append to " + runs), std::string::npos) << outcome;
  fs::remove_all(runs);
}

}  // namespace
}  // namespace wb
