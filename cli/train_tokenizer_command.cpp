// workbench-cli train-tokenizer: a SentencePiece tokenizer learnt from a user's own texts, for a model
// trained from scratch, then checked with `workbench-cli tokenize`.
#include <iostream>
#include <memory>

#include "cli_commands.h"
#include "workbench/tokenizer_training.h"

namespace wb::cli {

void addTrainTokenizerCommand(CLI::App& program) {
  CLI::App* command = addCommand(
      program, "train-tokenizer",
      "learn a SentencePiece tokenizer from your texts\n"
      "Trains SentencePiece (Debian's library) on TEXTS, a UTF-8 file with one text a line, and writes "
      "OUTPUT/tokenizer.model (and its pieces, tokenizer.vocab) for a model trained from scratch. TEXTS is "
      "only read. Ids: unknown 0, begin 1, end 2, padding 3.",
      "Examples:\n"
      "  workbench-cli train-tokenizer reviews.txt my-tokenizer --vocab-size 8000\n"
      "  workbench-cli tokenize my-tokenizer/tokenizer.model \"A first review.\"\n");
  auto request = std::make_shared<TokenizerTrainingRequest>();
  auto algorithm = std::make_shared<std::string>("unigram");
  command->add_option("TEXTS", request->texts_file, "a UTF-8 text file, one text a line")->required();
  command->add_option("OUTPUT", request->output_folder, "the folder for tokenizer.model (made when missing)")
      ->required();
  command->add_option("--vocab-size", request->vocabulary_size, "pieces in the vocabulary (default 8000)")
      ->type_name("N")
      ->check(takes("a whole number of pieces, 8 or more, e.g. --vocab-size 8000", wholeNumberFrom(8)));
  command->add_option("--algorithm", *algorithm, "unigram (SentencePiece's default) or bpe")
      ->type_name("NAME")
      ->check(takes("one of unigram, bpe",
                    [](const std::string& text) { return fromWord<TokenizerAlgorithm>(text).has_value(); }));
  setAction(command, [request, algorithm] {
    request->algorithm = *fromWord<TokenizerAlgorithm>(*algorithm);
    const TokenizerTrainingResult result = trainTokenizer(*request);
    std::cout << "wrote " << result.model_file << " (" << result.vocabulary_size << " pieces, "
              << wordString(request->algorithm) << ")\n";
    return static_cast<int>(kExitOk);
  });
}

}  // namespace wb::cli
