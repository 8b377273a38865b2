// workbench-cli tokenize: a text as a model's tokenizer sees it — its pieces, ids and type ids — with the
// same ids as Hugging Face's tokenizers, to check a tokenizer before training with it. `-` reads one text a
// line from standard input.
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_commands.h"
#include "workbench/token_preview.h"

namespace wb::cli {
namespace {

struct TokenizeArgs {
  std::string tokenizer;
  std::vector<std::string> texts;
  std::string pair;
  std::int64_t max_length = 0;
  bool no_special_tokens = false;
  bool json = false;
};

template <typename T>
std::string joined(const std::vector<T>& items) {
  std::string out;
  for (const T& item : items) {
    if (!out.empty()) out += ' ';
    if constexpr (std::is_same_v<T, std::string>) {
      out += item;
    } else {
      out += std::to_string(item);
    }
  }
  return out;
}

void print(const TokenizeArgs& args, const TokenPreview& preview) {
  if (args.json) {
    nlohmann::json out{{"tokenizer", preview.tokenizer}, {"vocabulary_size", preview.vocabulary_size},
                       {"tokens", preview.tokens},       {"ids", preview.ids},
                       {"type_ids", preview.type_ids},   {"truncated", preview.truncated}};
    std::cout << out.dump() << "\n";
    return;
  }
  std::cout << "tokens:   " << joined(preview.tokens) << "\n"
            << "ids:      " << joined(preview.ids) << "\n";
  if (!args.pair.empty()) std::cout << "type ids: " << joined(preview.type_ids) << "\n";
  if (preview.truncated > 0) {
    std::cout << "truncated: " << preview.truncated << " tokens dropped to fit --max-length "
              << args.max_length << "\n";
  }
}

int tokenize(const TokenizeArgs& args) {
  std::vector<std::string> texts = args.texts;
  if (texts.size() == 1 && texts.front() == "-") {
    texts.clear();
    for (std::string line; std::getline(std::cin, line);) texts.push_back(line);
  }
  bool first = true;
  for (const std::string& text : texts) {
    TokenPreviewRequest request{args.tokenizer, text, std::nullopt, std::nullopt, !args.no_special_tokens};
    if (!args.pair.empty()) request.pair = args.pair;
    if (args.max_length > 0) request.max_length = args.max_length;
    const TokenPreview preview = previewTokens(request);
    if (first && !args.json) {
      std::cout << args.tokenizer << ": " << preview.tokenizer << ", " << preview.vocabulary_size << " ids\n";
    }
    first = false;
    print(args, preview);
  }
  return kExitOk;
}

}  // namespace

void addTokenizeCommand(CLI::App& program) {
  CLI::App* command = addCommand(
      program, "tokenize",
      "show a text as a model's tokenizer sees it: pieces, ids, type ids\n"
      "Encodes each TEXT with the tokenizer of a Hugging Face model folder (its tokenizer.json, else BERT's "
      "vocab.txt with tokenizer_config.json), or with that file itself, and prints its pieces and ids — the "
      "ids "
      "Hugging Face's tokenizers gives — with the special tokens the model expects ([CLS] ... [SEP] for "
      "BERT). "
      "`-` reads one text a line from standard input.",
      "Examples:\n"
      "  workbench-cli tokenize ~/models/bert-base-uncased \"Hello, world!\"\n"
      "  workbench-cli tokenize vocab.txt \"How old are you?\" --pair \"I am six.\" --max-length 8\n"
      "  workbench-cli tokenize tokenizer.json - --json < texts.txt\n");
  auto args = std::make_shared<TokenizeArgs>();
  command->add_option("TOKENIZER", args->tokenizer, "a model folder, tokenizer.json or vocab.txt")
      ->required();
  command->add_option("TEXT", args->texts, "the texts (UTF-8); - reads them from standard input, one a line")
      ->required();
  command->add_option("--pair", args->pair, "a second text, encoded with each TEXT as a pair (type ids 1)");
  command
      ->add_option("--max-length", args->max_length,
                   "truncate to this many tokens, special tokens included (longest first for a pair)")
      ->check(CLI::PositiveNumber);
  command->add_flag("--no-special-tokens", args->no_special_tokens, "without [CLS], [SEP] and the like");
  command->add_flag("--json", args->json,
                    "one JSON object a text: tokenizer, tokens, ids, type_ids, truncated");
  setAction(command, [args] { return tokenize(*args); });
}

}  // namespace wb::cli
