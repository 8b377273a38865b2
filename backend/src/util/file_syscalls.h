#pragma once
// The system calls behind atomic writes (util/atomic_file), called through this table so that a test can make
// one of them fail: a failing fsync or close (an I/O error, a network file system reporting a full disk
// late) cannot be caused for real on a test machine, and those are exactly the results that are easy to
// ignore. Production code never changes the table.

#include <sys/types.h>

namespace wb {

struct FileSyscalls {
  ssize_t (*write)(int fd, const void* data, size_t size);
  int (*fsync)(int fd);
  int (*close)(int fd);
  int (*rename)(const char* from, const char* to);
};

FileSyscalls& fileSyscalls();  // the table in use; the real calls unless a test replaced some

}  // namespace wb
