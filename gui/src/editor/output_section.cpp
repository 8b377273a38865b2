#include "editor/output_section.h"

#include <QFormLayout>

#include "editor/form_fields.h"

namespace wb::gui {

OutputSection::OutputSection(FormFields& fields) {
  QFormLayout* out = fields.addSection(tr("Output"), QStringLiteral("output"));
  fields.addPath(out, "output.runs_dir", tr("Runs folder"),
                 tr("Each run gets a folder here; the Runs panel lists the runs of this folder."), true);
}

}  // namespace wb::gui
