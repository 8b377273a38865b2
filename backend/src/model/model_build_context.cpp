#include "model/model_build_context.h"

#include "distributed/rank_group.h"

namespace wb {
namespace {

thread_local RankGroup* t_syncBatchNormGroup = nullptr;

}  // namespace

RankGroup* syncBatchNormGroup() {
  RankGroup* group = t_syncBatchNormGroup;
  return group != nullptr && group->size() > 1 ? group : nullptr;
}

SyncBatchNormScope::SyncBatchNormScope(RankGroup* group) : m_previous(t_syncBatchNormGroup) {
  t_syncBatchNormGroup = group;
}

SyncBatchNormScope::~SyncBatchNormScope() {
  t_syncBatchNormGroup = m_previous;
}

}  // namespace wb
