#include "window/about_dialog.h"

#include <QMessageBox>

#include "app/system_info_cache.h"

namespace wb::gui {

QString aboutText() {
  const SystemInfo& info = systemInfo();
  QString devices;
  bool anyCuda = false;
  for (const DeviceInfo& d : info.devices) {
    const double gib = static_cast<double>(d.memory_bytes) / (1024.0 * 1024.0 * 1024.0);
    if (d.id == "cpu") {
      devices += QObject::tr("<li>cpu — %1, %2 cores</li>").arg(QString::fromStdString(d.name).toHtmlEscaped()).arg(d.cores);
    } else {
      anyCuda = true;
      devices += QObject::tr("<li>%1 — %2, %3 GiB</li>")
                     .arg(QString::fromStdString(d.id), QString::fromStdString(d.name).toHtmlEscaped(),
                          QString::number(gib, 'f', 1));
    }
  }
  if (!anyCuda) devices += QObject::tr("<li>No CUDA device (this LibTorch %1 CUDA support)</li>")
                               .arg(info.cuda_available ? QObject::tr("has") : QObject::tr("has no or finds no"));
  QString blas = QString::fromStdString(info.blas).toHtmlEscaped();
  if (info.blas_is_reference) blas += QObject::tr(" <b>(reference BLAS: slow; scripts/setup.sh selects OpenBLAS)</b>");
  return QObject::tr("<h3>Torch Workbench %1</h3>"
                     "<p>Set up, run and watch neural-network training on LibTorch.</p>"
                     "<table>"
                     "<tr><td>LibTorch</td><td>%2</td></tr>"
                     "<tr><td>BLAS</td><td>%3</td></tr>"
                     "<tr><td>Threads</td><td>%4 intra-op, %5 BLAS</td></tr>"
                     "<tr><td>Qt</td><td>%6</td></tr>"
                     "</table>"
                     "<p>Devices:</p><ul>%7</ul>")
      .arg(QStringLiteral(WB_VERSION), QString::fromStdString(info.torch_version).toHtmlEscaped(), blas)
      .arg(info.intra_op_threads)
      .arg(info.blas_threads)
      .arg(QString::fromLatin1(qVersion()), devices);
}

void showAbout(QWidget* parent) {
  auto* box = new QMessageBox(QMessageBox::Information, QObject::tr("About Torch Workbench"), aboutText(),
                              QMessageBox::Ok, parent);
  box->setObjectName(QStringLiteral("aboutDialog"));
  box->setTextFormat(Qt::RichText);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

}  // namespace wb::gui
