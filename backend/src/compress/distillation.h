#pragma once
// Knowledge distillation (Hinton et al.): the student learns from the teacher's softened outputs beside the
// labels. loss = α·T²·KL(softmax(teacher/T) ‖ softmax(student/T)) (batch mean) + (1−α)·cross-entropy(student,
// labels): the T² keeps the soft term's gradients on the scale of the hard one as T grows.

#include <torch/torch.h>

#include <memory>
#include <string>

#include "compress/model_artifact.h"

namespace wb {

torch::Tensor distillationLoss(const torch::Tensor& student_logits, const torch::Tensor& teacher_logits,
                               const torch::Tensor& labels, double temperature, double alpha);

// A teacher: a model in eval mode that answers without gradients, on the student's device.
class Teacher {
 public:
  Teacher(std::unique_ptr<Model> model, std::string description);
  torch::Tensor forward(const torch::Tensor& x);
  void to(const torch::Device& device) { m_model->to(device); }
  const std::string& description() const { return m_description; }

 private:
  std::unique_ptr<Model> m_model;
  std::string m_description;
};

// Finds the teacher `spec` names: "original" (the run's own trained model, `original`), an artifact folder
// ("compressed/01-prune", relative to the run folder or absolute), another run's folder, a checkpoint file of
// a run (.ckpt) or a TorchScript file (.pt). It must take samples of `input_shape` and give `num_classes`
// outputs. UserError naming the spec when it is none of these or does not fit.
std::unique_ptr<Teacher> loadTeacher(const std::string& spec, const std::string& run_dir,
                                     const ModelArtifact& original);

// Where `spec` points, for checks before anything runs: "" when it exists, else what is wrong.
std::string teacherProblem(const std::string& spec, const std::string& run_dir);

}  // namespace wb
