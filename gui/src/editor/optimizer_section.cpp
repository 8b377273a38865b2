#include "editor/optimizer_section.h"

#include <QFormLayout>

#include "editor/form_fields.h"
#include "editor/param_groups_binding.h"

namespace wb::gui {

OptimizerSection::OptimizerSection(FormFields& fields) {
  QFormLayout* opt = fields.addSection(tr("Optimizer"), QStringLiteral("optimizer"));
  fields.addChoice<OptimizerName>(opt, "optimizer.name", tr("Optimizer"),
                                  {{OptimizerName::Sgd, QStringLiteral("SGD")},
                                   {OptimizerName::Adam, QStringLiteral("Adam")},
                                   {OptimizerName::AdamW, QStringLiteral("AdamW")},
                                   {OptimizerName::RmsProp, QStringLiteral("RMSprop")},
                                   {OptimizerName::Adagrad, QStringLiteral("Adagrad")}},
                                  tr("The update rule, as in torch.optim."));
  fields.addNumber(opt, "optimizer.lr", tr("Learning rate"),
                   tr("The (peak) learning rate. Typical: 1e-3 for Adam/AdamW, 0.01–0.1 for SGD."));
  fields.addNumber(opt, "optimizer.weight_decay", tr("Weight decay"),
                   tr("Decoupled for AdamW, L2 for the others."));
  fields.addNumber(opt, "optimizer.momentum", tr("Momentum"), tr("SGD and RMSprop."));
  fields.addBool(opt, "optimizer.nesterov", tr("Nesterov"), tr("SGD with momentum > 0."));
  fields.addNumber(opt, "optimizer.betas[0]", tr("β₁"),
                   tr("Adam/AdamW: decay of the gradient's running mean, in [0, 1)."));
  fields.addNumber(opt, "optimizer.betas[1]", tr("β₂"),
                   tr("Adam/AdamW: decay of the squared gradient's mean, in [0, 1)."));
  fields.addNumber(opt, "optimizer.eps", tr("ε"), tr("Added to the denominator for stability."));
  fields.addNumber(opt, "optimizer.alpha", tr("α"), tr("RMSprop: smoothing constant."));
  fields.addBool(opt, "optimizer.decay_bias_and_norm", tr("Decay biases and norms"),
                 tr("Off: biases and normalization weights get no weight decay (the usual practice)."));
  fields.addBool(opt, "optimizer.fused", tr("Fused step"),
                 tr("Adam/AdamW on the CPU: update each parameter in one pass instead of nine tensor ops "
                    "(same results, faster for small models). Off: LibTorch's own step."));
  // The whole width of the form, its caption inside: four columns do not fit beside a label on a laptop.
  fields.add(opt, QString(), std::make_unique<ParamGroupsBinding>("optimizer.param_groups"),
             tr("Parameters picked by name pattern with their own learning rate and weight decay, as "
                "torch.optim's param groups (fine-tuning: the body at a tenth of the head's rate). The rest "
                "stay in the optimizer's group."));
}

}  // namespace wb::gui
