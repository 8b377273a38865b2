// A pipeline is one rank with several stage devices: its step metrics carry one entry per device (the
// window's memory chart draws a curve each). Stages sharing a device share its entry; CUDA devices report
// their own allocator's figures, the CPU the process's RSS; the entries survive metrics.jsonl.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model/model.h"
#include "pipeline/pipeline_model.h"
#include "run_folder/stage_memory_scalars.h"
#include "train/metrics_window.h"
#include "workbench/event_json.h"

namespace wb {
namespace {

TEST(PipelineDeviceMetrics, StagesSharingADeviceAreOneEntry) {
  ModelConfig config;
  config.layers = nlohmann::json::array({{{"type", "flatten"}},
                                         {{"type", "linear"}, {"out_features", 8}},
                                         {{"type", "relu"}},
                                         {{"type", "linear"}, {"out_features", 4}}});
  PipelineConfig pipeline;
  pipeline.enabled = true;
  pipeline.stages = {{"cpu", "0..1"}, {"cpu", "2"}, {"cpu", "3"}};
  const std::unique_ptr<Model> model = cutIntoStages(buildModel(config, {1, 4, 4}, 4), pipeline);
  const std::vector<StageDevice> devices = dynamic_cast<const PipelineModel&>(*model).stageDevices();
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_TRUE(devices[0].device.is_cpu());
  EXPECT_EQ(devices[0].stages, (std::vector<int64_t>{0, 1, 2}));
}

TEST(PipelineDeviceMetrics, EachDeviceHasItsEntry) {
  GpuFigures gpu;
  gpu.not_sampled.clear();
  gpu.utilization_pct = 50;
  // As a pipeline on cuda:0 and cuda:1 would have them (no CUDA here: their allocator figures stay -1).
  const std::vector<StageDevice> stages = {{torch::Device(torch::kCUDA, 0), {0}},
                                           {torch::Device(torch::kCUDA, 1), {1, 2}}};
  const std::vector<DeviceMetrics> entries =
      stageDeviceMetrics(stages, torch::Device(torch::kCUDA), 123.0, 4096, gpu);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].device, "cuda:0");
  EXPECT_EQ(entries[1].device, "cuda:1");
  EXPECT_EQ(entries[1].stages, (std::vector<int64_t>{1, 2}));
  for (const DeviceMetrics& d : entries) {
    EXPECT_EQ(d.rank, 0);  // one rank
    EXPECT_EQ(d.samples_per_sec, 123.0);
    EXPECT_EQ(d.cpu_rss_bytes, 4096);
  }
  // The rank's GPU figures on its own device's entry only ("cuda" is cuda:0).
  EXPECT_TRUE(entries[0].gpu.sampled());
  EXPECT_FALSE(entries[1].gpu.sampled());

  // Through metrics.jsonl and back.
  StepMetrics m;
  m.devices = entries;
  m.devices[1].cuda_allocated_bytes = 5 << 20;
  const std::optional<Event> read = eventFromJson(eventToJson(Event{m}));
  ASSERT_TRUE(read.has_value());
  const StepMetrics& back = std::get<StepMetrics>(*read);
  ASSERT_EQ(back.devices.size(), 2u);
  EXPECT_EQ(back.devices[1].stages, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(back.devices[1].cuda_allocated_bytes, 5 << 20);
  EXPECT_TRUE(back.devices[0].stages == std::vector<int64_t>{0});
}

TEST(PipelineDeviceMetrics, TheCpuIsOneEntryWithTheProcessRss) {
  const std::vector<DeviceMetrics> entries =
      stageDeviceMetrics({{torch::kCPU, {0, 1}}}, torch::kCPU, 10.0, 777, GpuFigures{});
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].device, "cpu");
  EXPECT_EQ(entries[0].cpu_rss_bytes, 777);
  EXPECT_EQ(entries[0].cuda_allocated_bytes, -1);
  EXPECT_EQ(entries[0].stages, (std::vector<int64_t>{0, 1}));
}

// TensorBoard: each CUDA stage device's memory under memory/<device>/; the CPU's entry (the process's RSS,
// already memory/cpu_rss_mib) and a data-parallel rank's add nothing.
TEST(PipelineDeviceMetrics, TensorBoardHasEachCudaStageDevicesMemory) {
  StepMetrics m;
  m.devices = stageDeviceMetrics({{torch::kCPU, {0}}, {torch::Device(torch::kCUDA, 1), {1}}}, torch::kCPU,
                                 1.0, 1, GpuFigures{});
  m.devices[1].cuda_allocated_bytes = 3 << 20;
  m.devices[1].cuda_reserved_bytes = 4 << 20;
  m.devices[1].cuda_peak_bytes = 5 << 20;
  DeviceMetrics rank;
  rank.device = "cuda:2";
  rank.cuda_allocated_bytes = 1 << 20;
  m.devices.push_back(rank);
  std::vector<std::pair<std::string, double>> scalars;
  appendStageMemoryScalars(scalars, m);
  const std::vector<std::pair<std::string, double>> expected = {{"memory/cuda:1/cuda_allocated_mib", 3.0},
                                                                {"memory/cuda:1/cuda_reserved_mib", 4.0},
                                                                {"memory/cuda:1/cuda_peak_mib", 5.0}};
  EXPECT_EQ(scalars, expected);
}

}  // namespace
}  // namespace wb
