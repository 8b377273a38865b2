#pragma once
// Help ▸ About: what the window runs on — LibTorch, BLAS, threads and the CUDA devices the engine sees.

#include <QString>

class QWidget;

namespace wb::gui {

QString aboutText();
void showAbout(QWidget* parent);

}  // namespace wb::gui
