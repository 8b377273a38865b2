#include "editor/data_section.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QLineEdit>
#include <vector>

#include "editor/form_fields.h"
#include "editor/json_path.h"
#include "workbench/experiment_keys.h"

namespace wb::gui {

DataSection::DataSection(FormFields& fields) : m_fields(fields) {
  QFormLayout* form = fields.addSection(tr("Data"), QStringLiteral("data"));
  addSourceFields(form);
  addAugmentationFields(form);
  addLoaderFields(form);
  addImageFolderFields(form);
  addTableFields(form);
  addTextFields(form);
  addSyntheticFields(form);
}

bool DataSection::isCsv() const {
  return m_fields.word("data.dataset") == QLatin1String(wordOf(DatasetName::Csv).data());
}

// A table or a file of labelled texts: the path names a file (a text dataset may also be a folder of class
// folders, typed or pasted).
bool DataSection::pathIsFile() const {
  return isCsv() || m_fields.word("data.dataset") == QLatin1String(wordOf(DatasetName::Text).data());
}

// Which data, where it lies, and how much of it trains and validates.
void DataSection::addSourceFields(QFormLayout* form) {
  m_fields.addChoice<DatasetName>(form, "data.dataset", tr("Dataset"),
                                  {{DatasetName::FashionMnist, tr("Fashion-MNIST")},
                                   {DatasetName::Mnist, tr("MNIST")},
                                   {DatasetName::Cifar10, tr("CIFAR-10")},
                                   {DatasetName::Csv, tr("CSV table")},
                                   {DatasetName::ImageFolder, tr("Image folder (your JPEG/PNG images)")},
                                   {DatasetName::Text, tr("Labelled texts (CSV, TSV, JSON Lines)")},
                                   {DatasetName::Synthetic, tr("Synthetic (no download)")}},
                                  tr("Which data to train on."));
  // The CSV dataset is a file even though the field usually names a folder.
  FieldBinding* path = m_fields.addPath(
      form, "data.path", tr("Path"),
      tr("Folder of the IDX/CIFAR files, the image folder (one subfolder of images per class), the CSV "
         "file, or the labelled texts (a CSV, TSV or JSON Lines file, or a folder of class folders of .txt "
         "files). Empty: /usr/share/datasets/<dataset>."),
      true, tr("Tables and texts (*.csv *.tsv *.jsonl *.ndjson);;All files (*)"),
      [this] { return pathIsFile(); });
  qobject_cast<QLineEdit*>(path->input())->setPlaceholderText(tr("default: /usr/share/datasets/<dataset>"));
  m_fields.addInteger(form, "data.limit", tr("Limit"), tr("Use only the first N training samples; 0 = all."),
                      tr(" samples"));
  m_fields.addNumber(
      form, "data.val_fraction", tr("Validation fraction"),
      tr("Share of the training split held out for validation, in [0, 1). 0 = no validation."));
}

void DataSection::addAugmentationFields(QFormLayout* form) {
  m_fields.addBool(form, "data.augment.enabled", tr("Augmentation"),
                   tr("Random crops and flips of training images each epoch."));
  m_fields.addBool(form, "data.augment.random_crop", tr("Random crop"),
                   tr("Pad, then crop back at a random offset."));
  m_fields.addInteger(form, "data.augment.crop_padding", tr("Crop padding"),
                      tr("Padding of the random crop."), tr(" px"));
  m_fields.addBool(
      form, "data.augment.random_resized_crop", tr("Random resized crop"),
      tr("Image folder: torchvision's RandomResizedCrop to the crop size (8–100 % of the area, ratio "
         "3/4–4/3)."));
  m_fields.addBool(form, "data.augment.horizontal_flip", tr("Horizontal flip"),
                   tr("Mirror half of the images. Good for clothes and objects, harmful for digits."));
}

// How batches reach the training step: prepared ahead, by worker threads, augmented where.
void DataSection::addLoaderFields(QFormLayout* form) {
  m_fields.addInteger(form, "data.prefetch", tr("Prefetch"),
                      tr("Batches prepared ahead of the training step."), tr(" batches"));
  m_fields.addInteger(
      form, "data.workers", tr("Loader workers"),
      tr("Image folder: threads that read, decode and augment batches (PyTorch's num_workers); 0 = the "
         "training thread."));
  m_fields.addChoice<AugmentPlace>(
      form, "data.augment_on", tr("Augment on"),
      {{AugmentPlace::Workers, tr("Loader workers")}, {AugmentPlace::Device, tr("Training device")}},
      tr("Image folder: where the random crop, flip and normalization run. Device: the workers stop at "
         "8-bit pixels, a quarter of the bytes travel, the GPU crops (bilinear, not antialiased)."));
}

// data.images: how an image folder's files become the model's input.
void DataSection::addImageFolderFields(QFormLayout* form) {
  m_fields.addInteger(
      form, "data.images.resize", tr("Resize"),
      tr("Image folder: the shorter side becomes this (torchvision's Resize, antialiased bilinear); 0 = as "
         "stored."),
      tr(" px"));
  m_fields.addInteger(
      form, "data.images.crop", tr("Crop"),
      tr("Image folder: the square the model sees: center crop for evaluation, random resized crop for "
         "training; 0 = none."),
      tr(" px"));
  m_fields.addInteger(form, "data.images.channels", tr("Channels"),
                      tr("Image folder: 3 = RGB (convert(\"RGB\")), 1 = grey (convert(\"L\"))."));
  m_fields.addChoice<BadFilePolicy>(
      form, "data.images.bad_files", tr("Unreadable files"),
      {{BadFilePolicy::Error, tr("Stop and name them")}, {BadFilePolicy::Skip, tr("Skip and list them")}},
      tr("Image folder: what to do with a file that cannot be decoded."));
  m_fields.addChoice<ImageNormalization>(
      form, "data.images.normalize", tr("Normalization"),
      {{ImageNormalization::Folder, tr("This folder's mean and std")},
       {ImageNormalization::ImageNet, tr("ImageNet's (pretrained weights)")}},
      tr("Image folder: whose mean and std Normalize uses. Weights trained on ImageNet expect ImageNet's."));
  m_fields.addBool(
      form, "data.images.jpeg_draft", tr("JPEG draft decoding"),
      tr("Image folder: decode JPEGs at 1/2, 1/4 or 1/8 scale when that still covers the resize and crop "
         "(Pillow's Image.draft): much faster, but other pixels than torchvision's loader gives."));
}

// A CSV table's label column, and the test split of a table or an image folder.
void DataSection::addTableFields(QFormLayout* form) {
  m_fields.addText(form, "data.label_column", tr("Label column"),
                   tr("CSV: the column holding the class (0, 1, 2, …)."));
  m_fields.addPath(
      form, "data.test_path", tr("Test file or folder"),
      tr("CSV or texts: a separate test file; image folder: a folder with the same classes. Empty = test "
         "fraction."),
      true, tr("Tables and texts (*.csv *.tsv *.jsonl *.ndjson);;All files (*)"),
      [this] { return pathIsFile(); });
  m_fields.addNumber(form, "data.test_fraction", tr("Test fraction"),
                     tr("CSV, texts or image folder without a test path: share kept for the test."));
}

// data.text: which columns hold the texts and labels, and how they become tokens.
void DataSection::addTextFields(QFormLayout* form) {
  m_fields.addText(form, "data.text.text_column", tr("Text column"),
                   tr("Texts: the column (CSV/TSV header, JSON Lines key) holding the text."));
  m_fields.addText(form, "data.text.text_pair_column", tr("Second text column"),
                   tr("Texts: a second text for sentence pairs (entailment, paraphrase); empty for single "
                      "texts."));
  m_fields.addText(
      form, "data.text.label_column", tr("Text label column"),
      tr("Texts: the column holding each text's label (any words; sorted, they are the classes)."));
  m_fields.addPath(form, "data.text.tokenizer", tr("Tokenizer"),
                   tr("Texts: a model folder or a tokenizer file (tokenizer.json, vocab.txt, a SentencePiece "
                      ".model). Empty: the Hugging Face model's own folder."),
                   true, tr("Tokenizers (*.json *.txt *.model);;All files (*)"));
  m_fields.addInteger(form, "data.text.max_length", tr("Max length"),
                      tr("Texts: tokens per text with the special ones; longer texts are cut and counted."),
                      tr(" tokens"));
  m_fields.addBool(form, "data.text.bucket_by_length", tr("Bucket by length"),
                   tr("Texts: batches of texts of similar length, so padding to each batch's longest wastes "
                      "little (the run log says how much)."));
  m_fields.addChoice<BadFilePolicy>(
      form, "data.text.bad_rows", tr("Bad rows"),
      {{BadFilePolicy::Error, tr("Stop and name the line")}, {BadFilePolicy::Skip, tr("Skip and list them")}},
      tr("Texts: what to do with a row without a label or a text, or not UTF-8."));
}

void DataSection::addSyntheticFields(QFormLayout* form) {
  m_fields.addInteger(form, "data.synthetic.samples", tr("Samples"),
                      tr("Synthetic: training samples to generate."));
  m_fields.addInteger(form, "data.synthetic.classes", tr("Classes"), tr("Synthetic: number of classes."));
  m_fields.addList(
      form, "data.synthetic.shape", tr("Sample shape"),
      tr("Synthetic: [channels, height, width] for images or [features] for vectors, e.g. 1, 28, 28."));
}

void DataSection::updateInputs() {
  FieldBinding* augment = m_fields.binding("data.augment.enabled");
  const bool augmentOn = static_cast<QCheckBox*>(augment->input())->isChecked();
  for (const auto& b : m_fields.bindings()) {
    if (pathIsUnder(b->path(), "data.augment") && b.get() != augment) b->input()->setEnabled(augmentOn);
  }
}

void DataSection::afterLoad() {
  m_dataset = m_fields.word("data.dataset");
}

void DataSection::afterEdit() {
  const QString dataset = m_fields.word("data.dataset");
  if (dataset == m_dataset) return;
  m_dataset = dataset;
  // The paths name the other dataset's files, and the keys only the other dataset reads (an image folder's
  // resize, a CSV file's label column) would stay in the experiment unseen: all go back to their defaults.
  const nlohmann::json defaults = experimentToJson(Experiment{});
  nlohmann::json doc = m_fields.document();
  std::vector<FieldBinding*> reset;
  for (const auto& b : m_fields.bindings()) {
    const std::string& path = b->path();
    const ExperimentKey* key = findExperimentKey(path);
    const bool otherDatasets = key != nullptr && key->applies_when.path == "data.dataset" &&
                               !key->applies_when.heldBy(dataset.toStdString());
    if (path != "data.path" && path != "data.test_path" && !otherDatasets) continue;
    const nlohmann::json* value = jsonAt(doc, path);
    const nlohmann::json* fallback = jsonAt(defaults, path);
    if (fallback == nullptr || (value != nullptr && *value == *fallback)) continue;
    setJsonAt(doc, path, *fallback);
    reset.push_back(b.get());
  }
  // The fields' own change signals: this edit is reported once, by the editor.
  m_fields.quietly([&] {
    for (FieldBinding* b : reset) b->load(doc);
  });
}

}  // namespace wb::gui
