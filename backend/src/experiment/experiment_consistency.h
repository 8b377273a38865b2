#pragma once
// Checks that involve more than one key: each key can be valid on its own while the combination cannot run.

#include "experiment/issue_list.h"
#include "workbench/experiment.h"

namespace wb {

// Adds an issue for each inconsistent combination, naming both keys and how to resolve it. A combination
// whose keys already have issues of their own is not reported again.
void checkConsistency(const Experiment& experiment, IssueList& issues);

// train.pipeline against the rest (pipeline_section.cpp): the cut given, and what it cannot be combined with.
void checkPipelineConsistency(const Experiment& experiment, IssueList& issues);

}  // namespace wb
