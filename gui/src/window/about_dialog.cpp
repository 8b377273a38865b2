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
      devices += QObject::tr("<li>cpu — %1, %2 cores</li>")
                     .arg(QString::fromStdString(d.name).toHtmlEscaped())
                     .arg(d.cores);
    } else {
      anyCuda = true;
      devices += QObject::tr("<li>%1 — %2, %3 GiB</li>")
                     .arg(QString::fromStdString(d.id), QString::fromStdString(d.name).toHtmlEscaped(),
                          QString::number(gib, 'f', 1));
    }
  }
  if (!anyCuda)
    devices += QObject::tr("<li>No CUDA device (this LibTorch %1 CUDA support)</li>")
                   .arg(info.cuda_available ? QObject::tr("has") : QObject::tr("has no or finds no"));
  // The same versions as `workbench --version`, read from the libraries this process loaded.
  const VersionInfo versions = queryVersions();
  const auto html = [](const std::string& text) { return QString::fromStdString(text).toHtmlEscaped(); };
  QString blas = html(versions.blas);
  if (!versions.blas_library.empty())
    blas += QStringLiteral("<br><small>%1</small>").arg(html(versions.blas_library));
  if (info.blas_is_reference)
    blas += QObject::tr(" <b>(reference BLAS: slow; install libopenblas0-pthread)</b>");
  QString cuda;
  if (versions.cuda_runtime.empty()) {
    cuda = QObject::tr("<tr><td>CUDA</td><td>none (this LibTorch is built for the CPU)</td></tr>");
  } else {
    QString runtime = html(versions.cuda_runtime);
    if (!versions.cuda_driver.empty())
      runtime += QObject::tr(" (driver supports %1)").arg(html(versions.cuda_driver));
    const QString missing = QObject::tr("not found");
    cuda = QObject::tr(
               "<tr><td>CUDA</td><td>%1</td></tr><tr><td>cuDNN</td><td>%2</td></tr>"
               "<tr><td>NCCL</td><td>%3</td></tr>")
               .arg(runtime, versions.cudnn.empty() ? missing : html(versions.cudnn),
                    versions.nccl.empty() ? missing : html(versions.nccl));
  }
  return QObject::tr(
             "<h3>Torch Workbench %1</h3>"
             "<p>Set up, run and watch neural-network training on LibTorch.</p>"
             "<table>"
             "<tr><td>LibTorch</td><td>%2</td></tr>"
             "<tr><td>BLAS</td><td>%3</td></tr>"
             "%4"
             "<tr><td>Threads</td><td>%5 intra-op, %6 BLAS</td></tr>"
             "<tr><td>Qt</td><td>%7 (built with %8)</td></tr>"
             "</table>"
             "<p>Devices:</p><ul>%9</ul>")
      .arg(QStringLiteral(WB_VERSION), html(versions.torch), blas, cuda)
      .arg(info.intra_op_threads)
      .arg(info.blas_threads)
      .arg(QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR), devices);
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
