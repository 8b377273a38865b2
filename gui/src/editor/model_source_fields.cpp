#include "editor/model_source_fields.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QPlainTextEdit>
#include <map>
#include <string>

#include "editor/form_fields.h"
#include "editor/json_path.h"

namespace wb::gui {

ModelSourceFields::ModelSourceFields(FormFields& fields, QFormLayout* form) : m_source(new QComboBox) {
  m_source->setObjectName(QStringLiteral("modelSource"));
  m_source->addItem(tr("Built-in preset"));
  m_source->addItem(tr("Layer list (JSON)"));
  m_source->addItem(tr("TorchScript file"));
  m_source->addItem(tr("Hugging Face folder (BERT, DistilBERT)"));
  m_source->setToolTip(
      tr("A model is exactly one of: a preset, a layer list, a TorchScript file, a Hugging Face folder."));
  form->addRow(tr("Model from"), m_source);
  QObject::connect(m_source, qOverload<int>(&QComboBox::currentIndexChanged), &m_alive,
                   [&fields] { fields.reportEdit(); });

  FieldBinding* preset =
      fields.addChoice(form, "model.preset", tr("Preset"),
                       {{"mlp", tr("MLP")},
                        {"cnn", tr("CNN")},
                        {"resnet", tr("ResNet")},
                        {"vit", tr("Vision Transformer")},
                        {"resnet18", tr("ResNet-18 (torchvision)")},
                        {"resnet50", tr("ResNet-50 (torchvision)")},
                        {"vit_b_16", tr("ViT-B/16 (torchvision, 224×224 images)")},
                        {"mobilenet_v3_large", tr("MobileNetV3-Large (torchvision)")},
                        {"efficientnet_b0", tr("EfficientNet-B0 (torchvision)")},
                        {"convnext_tiny", tr("ConvNeXt-Tiny (torchvision, 32×32 images and up)")}},
                       tr("A built-in architecture sized to the data."));
  auto* layersEdit = new QPlainTextEdit;
  layersEdit->setPlaceholderText(
      QStringLiteral("[\n  {\"type\": \"flatten\"},\n  {\"type\": \"linear\", \"out_features\": 256},\n"
                     "  {\"type\": \"relu\"},\n  {\"type\": \"linear\", \"out_features\": 10}\n]"));
  layersEdit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  layersEdit->setMinimumHeight(220);
  layersEdit->setTabChangesFocus(true);
  FieldBinding* layers =
      fields.add(form, tr("Layers"), std::make_unique<JsonBinding>("model.layers", layersEdit),
                 tr("A list of typed layers (docs/experiment.md lists every type); the engine checks "
                    "each against the data's shape."));
  FieldBinding* script = fields.addPath(form, "model.torchscript", tr("TorchScript file"),
                                        tr("A .pt file saved with torch.jit.script(model).save(path)."),
                                        false, tr("TorchScript (*.pt *.pth);;All files (*)"));
  FieldBinding* huggingface = fields.addPath(
      form, "model.huggingface", tr("Hugging Face folder"),
      tr("A BERT or DistilBERT folder as transformers saves it (config.json, model.safetensors or "
         "pytorch_model.bin, its tokenizer): it starts from those weights with a classifier for your labels. "
         "Texts only (data.dataset text)."),
      true);
  preset->setInactiveValue([this] { return m_source->currentIndex() == Preset; }, "");
  huggingface->setInactiveValue([this] { return m_source->currentIndex() == HuggingFace; }, "");
  layers->setInactiveValue([this] { return m_source->currentIndex() == Layers; }, nullptr);
  script->setInactiveValue([this] { return m_source->currentIndex() == TorchScript; }, "");
}

std::optional<bool> ModelSourceFields::applies(const FieldBinding& field) const {
  const int source = m_source->currentIndex();
  const std::map<std::string, bool> fromSource = {
      {"model.preset", source == Preset},
      {"model.layers", source == Layers},
      {"model.torchscript", source == TorchScript},
      {"model.huggingface", source == HuggingFace},
  };
  const auto found = fromSource.find(field.path());
  return found == fromSource.end() ? std::nullopt : std::optional<bool>(found->second);
}

void ModelSourceFields::beforeLoad(const nlohmann::json& doc, nlohmann::json& forFields) {
  const nlohmann::json* script = jsonAt(doc, "model.torchscript");
  const nlohmann::json* layers = jsonAt(doc, "model.layers");
  const nlohmann::json* huggingface = jsonAt(doc, "model.huggingface");
  if (huggingface && huggingface->is_string() && !huggingface->get<std::string>().empty()) {
    m_source->setCurrentIndex(HuggingFace);
  } else if (script && script->is_string() && !script->get<std::string>().empty()) {
    m_source->setCurrentIndex(TorchScript);
  } else if (layers && !layers->is_null()) {
    m_source->setCurrentIndex(Layers);
  } else {
    m_source->setCurrentIndex(Preset);
  }
  // An empty preset means "not a preset": keep the preset picker on a real choice for when the user switches.
  const nlohmann::json* preset = jsonAt(doc, "model.preset");
  if (preset && preset->is_string() && preset->get<std::string>().empty()) forFields["model"].erase("preset");
}

void ModelSourceFields::setLocked(bool locked) {
  m_source->setEnabled(!locked);
}

}  // namespace wb::gui
