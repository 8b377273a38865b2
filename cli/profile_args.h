#pragma once
// What `profile` and `train --profile` share: the START:N span of steps, and the profile printed as the
// table (PyTorch's key_averages().table() layout) with where its trace is.

#include <optional>
#include <string>

#include "cli_app.h"
#include "workbench/profile_report.h"

namespace wb::cli {

// "START:N": N optimizer steps after the first START (50:10 records steps 51–60). nullopt when the text is
// not two whole numbers, START 0 or more and N 1 or more.
std::optional<ProfileRequest> parseProfileSpan(const std::string& text);
CLI::Validator profileSpanCheck();

// The table (`rows` rows by `sort`) and the files, on stdout.
void printProfile(const ProfileReport& report, ProfileSort sort, int64_t rows);

}  // namespace wb::cli
