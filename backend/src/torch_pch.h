#pragma once
// The precompiled header every engine module and engine test reuses. LibTorch's headers cost ~15 s per
// translation unit on two cores; compiled once here, they cost nothing after.
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>
