#include "model/layer_net.h"

#include <algorithm>

#include "model/layer_list.h"
#include "workbench/errors.h"

namespace wb {

LayerNetImpl::LayerNetImpl(std::vector<LayerPtr> layers, Shape inputShape)
    : m_layerList(std::move(layers)),
      m_inputShape(std::move(inputShape)),
      m_layers(register_module("layers", instantiateLayers(m_layerList, m_inputShape))) {}

torch::Tensor LayerNetImpl::forward(torch::Tensor x) {
  // Deep inside the layers a wrong input shows up as an unreadable matmul error; name both shapes here
  // instead.
  const auto sizes = x.sizes();
  if (x.dim() != static_cast<int64_t>(m_inputShape.size()) + 1 ||
      !std::equal(m_inputShape.begin(), m_inputShape.end(), sizes.begin() + 1)) {
    throw UserError("the model was built for samples of shape " + shapeToString(m_inputShape) +
                        " but got a batch of shape " + shapeToString(Shape(sizes.begin(), sizes.end())),
                    "check that the data is the data the model was built for");
  }
  if (!m_runner) return m_layers->forward(x);
  for (size_t i = 0; i < m_layers->size(); ++i) {
    x = m_runner(i, *(m_layers->begin() + static_cast<std::ptrdiff_t>(i)), x);
  }
  return x;
}

}  // namespace wb
