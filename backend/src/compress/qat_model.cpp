#include "compress/qat_model.h"

#include <cmath>
#include <limits>
#include <sstream>

#include "compress/observers.h"
#include "compress/quantized_net.h"
#include "model/layer_net_model.h"
#include "model/layers/conv_layers.h"
#include "model/weights_file.h"
#include "workbench/errors.h"

namespace wb {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kQatMinScale = std::numeric_limits<float>::epsilon();  // torch.finfo(torch.float32).eps

// One activation point: torch's FakeQuantize around a MovingAverageMinMaxObserver, per-tensor affine quint8.
// Observing and fake-quantizing are separate calls because the int8 model quantizes a float layer's output
// only where an int8 layer reads it (possibly in both branches of a residual), but calibrates it once.
class ActivationFakeQuant {
 public:
  explicit ActivationFakeQuant(QRange range)
      : m_range(range), m_min(torch::full({}, kInf)), m_max(torch::full({}, -kInf)) {}

  // min += c * (batch min - min), likewise max; the first batch sets them (MovingAverageMinMaxObserver's
  // forward, float32 tensor arithmetic as there).
  void observe(const torch::Tensor& x) {
    if (x.numel() == 0) return;
    torch::NoGradGuard no_grad;
    const auto [lo, hi] = torch::aminmax(x.detach().to(torch::kFloat32));
    if (!seen()) {
      m_min.copy_(lo);
      m_max.copy_(hi);
    } else {
      m_min.copy_(m_min + kQatAveragingConstant * (lo - m_min));
      m_max.copy_(m_max + kQatAveragingConstant * (hi - m_max));
    }
  }

  // The state lives in the buffers alone (no flag beside them), so restoring them restores everything.
  bool seen() const { return std::isfinite(m_min.item<float>()); }

  QParams qparams() const { return affineQParams(m_min.item<float>(), m_max.item<float>(), m_range); }

  // Rounds to the quint8 grid and back; the gradient passes straight through inside the range and is zero
  // where the value was clamped (fake_quantize's own backward). Before any observation there is no range yet:
  // the identity.
  torch::Tensor apply(const torch::Tensor& x) const {
    if (!seen()) return x;
    const QParams q = qparams();
    return torch::fake_quantize_per_tensor_affine(x.to(torch::kFloat32), q.scale, q.zero_point,
                                                  m_range.quant_min, m_range.quant_max);
  }

  void to(const torch::Device& device) {
    m_min = m_min.to(device);
    m_max = m_max.to(device);
  }
  torch::Tensor& minVal() { return m_min; }
  torch::Tensor& maxVal() { return m_max; }

 private:
  QRange m_range;
  torch::Tensor m_min, m_max;  // float32 scalars: +inf / -inf until the first batch
};

// Per-channel symmetric qint8 of the current weight, as quantizeWeightPerChannel will quantize it at convert
// (PyTorch's per-channel weight fake quant in kWeightRange): scale_c = max|w_c| / 63.5, zero point 0, [-64,
// 63].
torch::Tensor fakeQuantWeight(const torch::Tensor& weight) {
  torch::Tensor scales;
  {
    torch::NoGradGuard no_grad;
    const torch::Tensor rows = weight.detach().to(torch::kFloat32).reshape({weight.size(0), -1});
    const auto [lo, hi] = torch::aminmax(rows, 1);  // one pass over the weight: it runs every step
    const float half_range = static_cast<float>(kWeightRange.quant_max - kWeightRange.quant_min) / 2.0f;
    scales = (torch::max(-lo.clamp_max(0), hi.clamp_min(0)) / half_range).clamp_min(kQatMinScale);
  }
  const torch::Tensor zero_points = torch::zeros({weight.size(0)}, scales.options().dtype(torch::kInt));
  return torch::fake_quantize_per_channel_affine(weight.to(torch::kFloat32), scales, zero_points, 0,
                                                 kWeightRange.quant_min, kWeightRange.quant_max);
}

// A node of the static plan bound to the float network's module of that layer.
struct QatNode {
  std::string name;
  QKernel kernel = QKernel::Passthrough;
  bool relu = false;
  torch::nn::AnyModule module;      // passthrough and float layers run as they are
  torch::nn::Conv2d conv{nullptr};  // int8 conv2d: run functionally with the fake-quantized weight
  Size2 stride{1, 1}, padding{0, 0};
  int64_t groups = 1;
  torch::nn::Linear linear{nullptr};            // int8 linear, likewise
  std::shared_ptr<ActivationFakeQuant> output;  // int8, residual and float nodes: their quint8 output
  std::vector<QatNode> body, shortcut;          // residual
};

// Where the activation stands as the int8 model would hold it: quint8 already, or float with the qparams it
// gets when an int8 layer or add reads it.
struct Point {
  ActivationFakeQuant* pending = nullptr;
  bool quantized = false;
};

torch::Tensor toQuint8(const torch::Tensor& x, const Point& p) {
  return p.quantized || p.pending == nullptr ? x : p.pending->apply(x);
}

using Observers = std::vector<std::pair<std::string, std::shared_ptr<ActivationFakeQuant>>>;

std::shared_ptr<torch::nn::SequentialImpl> childList(torch::nn::Module& module, const std::string& name) {
  const auto children = module.named_children();
  const auto* child = children.find(name);
  return child == nullptr ? nullptr : std::dynamic_pointer_cast<torch::nn::SequentialImpl>(*child);
}

std::vector<QatNode> bindList(const std::vector<QNode>& plan, torch::nn::SequentialImpl& modules,
                              QRange range, Observers& observers) {
  if (modules.size() != plan.size()) throw std::logic_error("QAT: the plan does not match the network");
  std::vector<QatNode> nodes;
  auto any = modules.begin();
  for (const QNode& p : plan) {
    QatNode n;
    n.name = p.name;
    n.kernel = p.kernel;
    n.relu = p.relu;
    if (p.kernel == QKernel::Residual) {
      auto body = childList(*any->ptr(), "layers");
      auto shortcut = childList(*any->ptr(), "shortcut");
      if (!body || (!p.shortcut.empty() && !shortcut))
        throw std::logic_error("QAT: " + p.name + " is no residual");
      n.body = bindList(p.body, *body, range, observers);
      if (shortcut) n.shortcut = bindList(p.shortcut, *shortcut, range, observers);
    } else if (p.kernel == QKernel::Int8) {
      if (p.layer->type() == "conv2d") {
        const auto& c = static_cast<const Conv2dLayer&>(*p.layer);
        n.conv = torch::nn::Conv2d(std::dynamic_pointer_cast<torch::nn::Conv2dImpl>(any->ptr()));
        n.stride = c.stride();
        n.padding = c.padding();
        n.groups = c.groups();
      } else {
        n.linear = torch::nn::Linear(std::dynamic_pointer_cast<torch::nn::LinearImpl>(any->ptr()));
      }
      if (!n.conv && !n.linear) throw std::logic_error("QAT: " + p.name + " is no " + p.layer->type());
    } else if (p.kernel != QKernel::Fused) {
      n.module = *any;
    }
    if (p.kernel == QKernel::Int8 || p.kernel == QKernel::Residual || p.kernel == QKernel::Float) {
      n.output = std::make_shared<ActivationFakeQuant>(range);
      observers.emplace_back(p.name + ".activation_post_process", n.output);
    }
    nodes.push_back(std::move(n));
    ++any;
  }
  return nodes;
}

// The observers' qparams into the plan convert writes (same structure: both come from planQuantization).
void fillOutputs(std::vector<QNode>& plan, const std::vector<QatNode>& nodes) {
  for (size_t i = 0; i < plan.size(); ++i) {
    fillOutputs(plan[i].body, nodes[i].body);
    fillOutputs(plan[i].shortcut, nodes[i].shortcut);
    if (!nodes[i].output) continue;
    if (!nodes[i].output->seen()) {
      throw UserError("quantization-aware training: the activation range of " + plan[i].name +
                          " was never observed, so it has no int8 scale",
                      "Train the QAT model (at least one step in training mode) before converting it.");
    }
    plan[i].output = nodes[i].output->qparams();
  }
}

int64_t countInt8(const std::vector<QatNode>& nodes) {
  int64_t count = 0;
  for (const QatNode& n : nodes)
    count += (n.kernel == QKernel::Int8 ? 1 : 0) + countInt8(n.body) + countInt8(n.shortcut);
  return count;
}

class QatModel : public Model {
 public:
  QatModel(const ModelArtifact& float_artifact, const CompressPassConfig& pass,
           const std::function<void(const std::string&)>& log) {
    auto say = [&](const std::string& line) {
      if (log) log(line);
    };
    if (float_artifact.isQuantized()) {
      throw UserError("artifact " + float_artifact.name + " is already int8",
                      "Quantize once, as the last pass.");
    }
    if (float_artifact.layers.is_null() || !float_artifact.torchscript.empty()) {
      throw UserError("quantization-aware training works on layer-list models, and artifact " +
                          float_artifact.name + " is a TorchScript module",
                      "Train the model as a preset or model.layers.");
    }
    say(selectQuantizedEngine(pass.engine));
    m_range = kActivationRange;

    m_folded = foldBatchNorms(float_artifact, &m_foldedPairs);
    if (!m_foldedPairs.empty()) {
      std::string pairs;
      for (const auto& p : m_foldedPairs) pairs += (pairs.empty() ? "" : ", ") + p;
      say("Folded " + std::to_string(m_foldedPairs.size()) + " batch norms into their convs (" + pairs +
          "); they stay frozen through quantization-aware training");
    }
    m_float = buildFloatModel(m_folded);
    m_net = dynamic_cast<LayerNetModel*>(m_float.get());
    if (m_net == nullptr) throw std::logic_error("QAT: a layer list did not build a LayerNetModel");
    // Only the list's shape is kept: the tensors live in the network from now on.
    m_folded.weights.clear();
    m_folded.buffers.clear();

    const std::vector<QNode> plan =
        planQuantization(artifactLayers(m_folded), m_folded.input_shape, QuantizeMode::Qat);
    m_input = std::make_shared<ActivationFakeQuant>(m_range);
    m_observers.emplace_back("quant.activation_post_process", m_input);
    m_plan = bindList(plan, *m_net->net()->layers(), m_range, m_observers);

    std::ostringstream summary;
    summary << "QAT: " << countInt8(m_plan) << " int8 layers with fake-quantized per-channel weights, "
            << m_observers.size() << " activation points with moving-average min/max observers (averaging "
            << kQatAveragingConstant << ")";
    say(summary.str());
    for (const auto& note : floatLayerNotes(plan)) say("  float: " + note);
  }

  torch::Tensor forward(const torch::Tensor& input) override {
    const auto sizes = input.sizes();
    const Shape& shape = m_folded.input_shape;
    if (input.dim() != static_cast<int64_t>(shape.size()) + 1 ||
        !std::equal(shape.begin(), shape.end(), sizes.begin() + 1)) {
      throw UserError("the model was built for samples of shape " + shapeToString(shape) +
                          " but got a batch of shape " + shapeToString(Shape(sizes.begin(), sizes.end())),
                      "check that the data is the data the model was built for");
    }
    if (m_training) m_input->observe(input);
    Point point{m_input.get(), false};
    return runList(m_plan, input, point);
  }

  std::vector<torch::Tensor> parameters() override { return m_float->parameters(); }
  NamedTensors namedParameters() override { return m_float->namedParameters(); }
  NamedTensors namedBuffers() override {
    NamedTensors buffers = m_float->namedBuffers();
    for (auto& [name, observer] : m_observers) {
      buffers.emplace_back(name + ".min_val", observer->minVal());
      buffers.emplace_back(name + ".max_val", observer->maxVal());
    }
    return buffers;
  }

  void train(bool on) override {
    m_training = on;
    m_float->train(on);
  }

  void to(const torch::Device& device) override {
    m_float->to(device);
    for (auto& item : m_observers) item.second->to(device);
  }

  // Parameters and buffers (observers included) by name, as LayerNetModel writes them.
  void save(const std::string& file) override {
    torch::serialize::OutputArchive archive;
    for (const auto& [name, tensor] : namedParameters()) archive.write(name, tensor);
    for (const auto& [name, tensor] : namedBuffers()) archive.write(name, tensor, /*is_buffer=*/true);
    writeWeightsFile(file, [&archive](const std::string& temp) { archive.save_to(temp); });
  }

  void load(const std::string& file) override {
    requireWeightsFile(file);
    torch::serialize::InputArchive archive;
    archive.load_from(file, torch::Device(torch::kCPU));
    NamedTensors targets = namedParameters();
    const NamedTensors buffers = namedBuffers();
    targets.insert(targets.end(), buffers.begin(), buffers.end());
    torch::NoGradGuard no_grad;
    copyCheckedWeights(file, targets, [&archive](const std::string& name, torch::Tensor& tensor) {
      return archive.try_read(name, tensor);
    });
  }

  ModelInfo info() const override { return m_float->info(); }

  QuantizeResult convert(const CompressPassConfig& pass, const std::function<void(const std::string&)>& log) {
    const std::string selected = selectQuantizedEngine(pass.engine);
    if (log) log(selected);
    ModelArtifact folded =
        artifactFromModel(*m_float, m_folded.layers, "", m_folded.input_shape, m_folded.num_classes);
    folded.name = m_folded.name;
    folded.masks = m_folded.masks;
    std::vector<QNode> plan = planQuantization(artifactLayers(folded), folded.input_shape, QuantizeMode::Qat);
    fillOutputs(plan, m_plan);
    if (!m_input->seen()) {
      throw UserError("quantization-aware training: the input's range was never observed",
                      "Train the QAT model (at least one step in training mode) before converting it.");
    }
    QuantizeResult result = int8FromPlan(folded, plan, m_input->qparams(), QuantizeMode::Qat, log);
    result.artifact.quantization["observer"] = "moving_average_minmax";
    result.artifact.quantization["averaging_constant"] = kQatAveragingConstant;
    result.artifact.quantization["folded_batchnorms"] = m_foldedPairs;
    return result;
  }

 private:
  // The int8 model's forward (QuantizedNet::runList) in float, fake-quantizing where it holds quint8.
  torch::Tensor runList(std::vector<QatNode>& nodes, torch::Tensor x, Point& point) {
    for (QatNode& n : nodes) {
      switch (n.kernel) {
        case QKernel::Int8: {
          x = toQuint8(x, point);
          if (n.conv) {
            x = torch::conv2d(x, fakeQuantWeight(n.conv->weight), n.conv->bias, {n.stride.h, n.stride.w},
                              {n.padding.h, n.padding.w}, {1, 1}, n.groups);
          } else {
            x = torch::linear(x, fakeQuantWeight(n.linear->weight), n.linear->bias);
          }
          if (n.relu) x = torch::relu(x);
          x = quantizeOutput(n, x, point);
          break;
        }
        case QKernel::Residual: {
          Point body_point = point;
          Point shortcut_point = point;
          const torch::Tensor body = runList(n.body, x, body_point);
          const torch::Tensor shortcut = n.shortcut.empty() ? x : runList(n.shortcut, x, shortcut_point);
          x = toQuint8(body, body_point) + toQuint8(shortcut, shortcut_point);
          if (n.relu) x = torch::relu(x);
          x = quantizeOutput(n, x, point);
          break;
        }
        case QKernel::Fused:  // its relu ran in the layer before
          break;
        case QKernel::Passthrough:
          x = n.module.forward(x);
          break;
        case QKernel::Float:
          // Observed here, as calibration observes it, but quantized only where an int8 layer reads it.
          x = n.module.forward(x);
          if (m_training) n.output->observe(x);
          point = {n.output.get(), false};
          break;
        case QKernel::Int8Dynamic:
          throw std::logic_error("QAT: a static plan has no dynamic layers");
      }
    }
    return x;
  }

  // An int8 layer's or add's output: the int8 model holds it as quint8 with the observer's qparams.
  torch::Tensor quantizeOutput(QatNode& n, const torch::Tensor& x, Point& point) {
    if (m_training) n.output->observe(x);
    point = {n.output.get(), true};
    return n.output->apply(x);
  }

  QRange m_range;
  ModelArtifact m_folded;  // layers, shape, name and masks of the folded artifact; no tensors
  std::vector<std::string> m_foldedPairs;
  std::unique_ptr<Model> m_float;  // the folded float network whose parameters train
  LayerNetModel* m_net = nullptr;
  std::vector<QatNode> m_plan;
  std::shared_ptr<ActivationFakeQuant> m_input;
  Observers m_observers;   // input first, then the plan's points in order
  bool m_training = true;  // torch modules start in training mode
};

}  // namespace

std::unique_ptr<Model> makeQatModel(const ModelArtifact& float_artifact, const CompressPassConfig& pass,
                                    const std::function<void(const std::string&)>& log) {
  return std::make_unique<QatModel>(float_artifact, pass, log);
}

QuantizeResult convertQatModel(Model& qat, const CompressPassConfig& pass,
                               const std::function<void(const std::string&)>& log) {
  auto* model = dynamic_cast<QatModel*>(&qat);
  if (model == nullptr) {
    throw UserError("convertQatModel needs the model makeQatModel made",
                    "Train the QAT model, then convert it.");
  }
  return model->convert(pass, log);
}

}  // namespace wb
