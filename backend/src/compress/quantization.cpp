#include "compress/quantization.h"

#include <ATen/Context.h>
#include <torch/version.h>

#include <algorithm>
#include <cctype>
#include <sstream>

#include "compress/observers.h"
#include "compress/quantized_net.h"
#include "model/layers/conv_layers.h"
#include "workbench/errors.h"

namespace wb {
namespace {

using nlohmann::json;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

torch::Tensor* find(NamedTensors& tensors, const std::string& name) {
  for (auto& [n, t] : tensors) {
    if (n == name) return &t;
  }
  return nullptr;
}

void eraseNamed(NamedTensors& tensors, const std::function<bool(const std::string&)>& drop) {
  tensors.erase(
      std::remove_if(tensors.begin(), tensors.end(), [&](const auto& item) { return drop(item.first); }),
      tensors.end());
}

bool hasPrefix(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

void foldList(json& list, const std::string& prefix, ModelArtifact& a, std::vector<std::string>& folded) {
  if (!list.is_array()) return;
  for (size_t i = 0; i < list.size(); ++i) {
    json& layer = list[i];
    const std::string name = prefix + "." + std::to_string(i);
    const std::string type = layer.value("type", std::string());
    if (type == "residual") {
      if (layer.contains("layers")) foldList(layer["layers"], name + ".layers", a, folded);
      if (layer.contains("shortcut")) foldList(layer["shortcut"], name + ".shortcut", a, folded);
      continue;
    }
    if (type != "conv2d" || i + 1 >= list.size() ||
        list[i + 1].value("type", std::string()) != "batchnorm2d") {
      continue;
    }
    const std::string bn = prefix + "." + std::to_string(i + 1);
    torch::Tensor* w = find(a.weights, name + ".weight");
    const torch::Tensor gamma = a.tensor(bn + ".weight");
    const torch::Tensor beta = a.tensor(bn + ".bias");
    const torch::Tensor mean = a.tensor(bn + ".running_mean");
    const torch::Tensor var = a.tensor(bn + ".running_var");
    if (w == nullptr || !gamma.defined() || !beta.defined() || !mean.defined() || !var.defined()) {
      throw UserError("artifact " + a.name + ": the tensors of " + name + " (conv2d) and " + bn +
                          " (batchnorm2d) are incomplete",
                      "The artifact does not match its own layer list: run the earlier pass again.");
    }
    // w' = w * gamma / sqrt(var + eps) per output channel; b' = (b - mean) * gamma / sqrt(var + eps) + beta,
    // with the batch norm's own eps (layer lists written before it had one use the default).
    const double eps = list[i + 1].value("eps", BatchNorm2dLayer::kDefaultEps);
    const torch::Tensor factor = gamma.to(torch::kFloat64) / (var.to(torch::kFloat64) + eps).sqrt();
    torch::Tensor* b = find(a.weights, name + ".bias");
    const torch::Tensor bias = b != nullptr ? b->to(torch::kFloat64) : torch::zeros_like(factor);
    const torch::Tensor new_w = (w->to(torch::kFloat64) * factor.view({-1, 1, 1, 1})).to(torch::kFloat32);
    const torch::Tensor new_b =
        ((bias - mean.to(torch::kFloat64)) * factor + beta.to(torch::kFloat64)).to(torch::kFloat32);
    *w = new_w;
    if (b != nullptr) {
      *b = new_b;
    } else {
      // the bias goes right after the weight, where a conv with bias keeps it
      auto at = std::find_if(a.weights.begin(), a.weights.end(),
                             [&](const auto& item) { return item.first == name + ".weight"; });
      a.weights.insert(at + 1, {name + ".bias", new_b});
    }
    layer["bias"] = true;
    list[i + 1] = json{{"type", "identity"}};
    auto ofBn = [&](const std::string& n) { return hasPrefix(n, bn + "."); };
    eraseNamed(a.weights, ofBn);
    eraseNamed(a.buffers, ofBn);
    eraseNamed(a.masks, ofBn);
    folded.push_back(name + "+" + bn);
  }
}

void collectQuantizable(const std::vector<QNode>& nodes, std::vector<const QNode*>& out) {
  for (const QNode& n : nodes) {
    if (n.kernel == QKernel::Int8 || n.kernel == QKernel::Int8Dynamic) out.push_back(&n);
    collectQuantizable(n.body, out);
    collectQuantizable(n.shortcut, out);
  }
}

int64_t countKernel(const std::vector<QNode>& nodes, QKernel kernel) {
  int64_t count = 0;
  for (const QNode& n : nodes) {
    count += n.kernel == kernel ? 1 : 0;
    count += countKernel(n.body, kernel) + countKernel(n.shortcut, kernel);
  }
  return count;
}

// The int8 tensors and quantization record of `plan` (its outputs set in static and qat mode; `input` is null
// in dynamic mode), the float tensors of the layers that stay float, and the summary in the log.
void writeInt8(QuantizeResult& result, const ModelArtifact& folded, const std::vector<QNode>& plan,
               QuantizeMode mode, const QParams* input, const std::function<void(const std::string&)>& say) {
  ModelArtifact& out = result.artifact;
  out = folded;
  out.quantized.clear();
  std::vector<const QNode*> quantizable;
  collectQuantizable(plan, quantizable);
  for (const QNode* n : quantizable) {
    const std::string w_name = n->name + ".weight";
    const std::string b_name = n->name + ".bias";
    const torch::Tensor w = folded.tensor(w_name);
    if (!w.defined()) {
      throw UserError("artifact " + folded.name + " lacks " + w_name, "Run the earlier pass again.");
    }
    const ChannelQuantized q = quantizeWeightPerChannel(w);
    out.quantized.emplace_back(w_name, q.values);
    out.quantized.emplace_back(w_name + ".scale", q.scales);
    out.quantized.emplace_back(w_name + ".zero_point", q.zero_points);
    const torch::Tensor b = folded.tensor(b_name);
    if (b.defined()) out.quantized.emplace_back(b_name, b.detach().to(torch::kFloat32).clone());
    auto ofLayer = [&](const std::string& name) { return name == w_name || name == b_name; };
    eraseNamed(out.weights, ofLayer);
    eraseNamed(out.masks, ofLayer);
  }

  // format 2: 7-bit weights (kWeightRange), full-range activations, on every engine (observers.h says why).
  out.quantization = {{"format", kInt8Format},
                      {"mode", wordString(mode)},
                      {"engine", result.engine},
                      {"reduce_range", false},
                      {"weight_range", {kWeightRange.quant_min, kWeightRange.quant_max}},
                      {"activation_range", {kActivationRange.quant_min, kActivationRange.quant_max}},
                      {"torch_version", TORCH_VERSION},
                      {"layers", planToJson(plan)}};
  if (input != nullptr)
    out.quantization["input"] = {{"scale", input->scale}, {"zero_point", input->zero_point}};
  result.float_layers = floatLayerNotes(plan);

  std::ostringstream summary;
  summary << "int8 (" << wordOf(mode) << "): " << quantizable.size() << " layers with int8 weights";
  if (mode != QuantizeMode::Dynamic) {
    const int64_t adds = countKernel(plan, QKernel::Residual);
    const int64_t fused = countKernel(plan, QKernel::Fused);
    summary << ", " << fused << " relus fused";
    if (adds > 0) summary << ", " << adds << " residual adds in int8";
  }
  summary << ", " << result.float_layers.size() << " layers stay float";
  say(summary.str());
  for (const auto& note : result.float_layers) say("  float: " + note);
}

}  // namespace

std::vector<std::string> supportedQuantizedEngines() {
  std::vector<std::string> out;
  for (const at::QEngine e : at::globalContext().supportedQEngines()) {
    const std::string name = lower(c10::toString(e));
    if (name != "noqengine") out.push_back(name);
  }
  return out;
}

bool hasSevenBitWeights(const ModelArtifact& a) {
  return a.isQuantized() && a.quantization.value("format", 1) >= kInt8Format;
}

std::string currentQuantizedEngine() {
  return lower(c10::toString(at::globalContext().qEngine()));
}

std::string selectQuantizedEngine(const std::string& requested) {
  const std::vector<std::string> supported = supportedQuantizedEngines();
  if (supported.empty()) {
    throw UserError("this LibTorch build has no quantized engine",
                    "Use a LibTorch build with FBGEMM, oneDNN or QNNPACK.");
  }
  std::string chosen;
  std::string why;
  if (requested.empty() || requested == "auto") {
    // x86 (2.x) picks between FBGEMM and oneDNN per op; oneDNN beats QNNPACK (made for ARM phones) by an
    // order of magnitude on x86 linear layers.
    for (const char* preferred : {"x86", "fbgemm", "onednn", "qnnpack"}) {
      if (std::find(supported.begin(), supported.end(), preferred) != supported.end()) {
        chosen = preferred;
        break;
      }
    }
    if (chosen.empty()) chosen = supported.front();
    why = "auto: the fastest of this build's " + joined(supported);
  } else {
    if (std::find(supported.begin(), supported.end(), requested) == supported.end()) {
      throw UserError("the quantized engine \"" + requested +
                          "\" is not in this LibTorch build (it has: " + joined(supported) + ")",
                      "Set the quantize pass's engine to \"auto\" or to one of these.");
    }
    chosen = requested;
    why = "as requested; this build has " + joined(supported);
  }
  for (const at::QEngine e : at::globalContext().supportedQEngines()) {
    if (lower(c10::toString(e)) == chosen) at::globalContext().setQEngine(e);
  }
  return "int8 engine " + chosen + " (" + why + ")";
}

std::string selectQuantizedEngine(QuantizedEngine requested) {
  return selectQuantizedEngine(wordString(requested));
}

ModelArtifact foldBatchNorms(const ModelArtifact& input, std::vector<std::string>* folded) {
  ModelArtifact a = input;
  a.weights.clear();
  for (const auto& [n, t] : input.weights) a.weights.emplace_back(n, t.detach().clone());
  std::vector<std::string> pairs;
  foldList(a.layers, "layers", a, pairs);
  if (folded != nullptr) *folded = pairs;
  return a;
}

QuantizeResult quantizeArtifact(const ModelArtifact& input, const CompressPassConfig& pass,
                                const std::function<std::optional<torch::Tensor>()>& calibration,
                                const std::function<void(const std::string&)>& log) {
  auto say = [&](const std::string& line) {
    if (log) log(line);
  };
  if (input.isQuantized()) {
    throw UserError("artifact " + input.name + " is already int8", "Quantize once, as the last pass.");
  }
  if (input.layers.is_null() || !input.torchscript.empty()) {
    throw UserError("int8 quantization works on layer-list models, and artifact " + input.name +
                        " is a TorchScript module",
                    "Train the model as a preset or model.layers.");
  }
  if (pass.mode == QuantizeMode::Qat) {
    throw UserError("quantizeArtifact handles modes static and dynamic, not \"qat\"",
                    "qat goes through makeQatModel and convertQatModel.");
  }
  const bool static_mode = pass.mode == QuantizeMode::Static;
  QuantizeResult result;
  say(selectQuantizedEngine(pass.engine));
  result.engine = currentQuantizedEngine();

  std::vector<std::string> folded_pairs;
  ModelArtifact folded = static_mode ? foldBatchNorms(input, &folded_pairs) : input;
  if (!folded_pairs.empty()) {
    say("Folded " + std::to_string(folded_pairs.size()) + " batch norms into their convs (" +
        joined(folded_pairs) + ")");
  }
  std::vector<QNode> plan = planQuantization(artifactLayers(folded), folded.input_shape, pass.mode);

  QParams input_q;
  int64_t batches = 0;
  if (static_mode) {
    input_q = calibratePlan(plan, folded, pass.observer, kActivationRange, calibration,
                            std::max<int64_t>(1, pass.calibration_batches), batches);
    say("Calibrated activations with the " + wordString(pass.observer) + " observer over " +
        std::to_string(batches) + " batches");
  }

  writeInt8(result, folded, plan, pass.mode, static_mode ? &input_q : nullptr, say);
  if (static_mode) {
    result.artifact.quantization["observer"] = wordString(pass.observer);
    result.artifact.quantization["calibration_batches"] = batches;
    result.artifact.quantization["folded_batchnorms"] = folded_pairs;
  }
  return result;
}

QuantizeResult int8FromPlan(const ModelArtifact& folded, const std::vector<QNode>& plan, const QParams& input,
                            QuantizeMode mode, const std::function<void(const std::string&)>& log) {
  auto say = [&](const std::string& line) {
    if (log) log(line);
  };
  QuantizeResult result;
  result.engine = currentQuantizedEngine();
  writeInt8(result, folded, plan, mode, &input, say);
  return result;
}

}  // namespace wb
