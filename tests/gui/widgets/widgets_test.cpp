// The widgets every view uses to stay inside its screen: where a window goes (fittedGeometry: centred at its
// preferred size where there is room, shrunk to the available area less the frame, a saved geometry moved
// inside, a screen that does not start at 0, a minimum larger than the room), and the eliding label (a few
// characters of minimum width whatever its text, cut with "…" and the whole text in the tooltip, rich text
// too).

#include <QHBoxLayout>
#include <QtTest>

#include "widgets/eliding_label.h"
#include "widgets/screen_fit.h"

using namespace wb::gui;

class WidgetsTest : public QObject {
  Q_OBJECT

 private slots:
  void aWindowFitsTheAvailableAreaWithItsFrame() {
    const QSize frame(16, 48);
    const QRect laptop(0, 0, 1366, 740);  // 1366x768 less a 28 px panel
    // Room for the preferred size: kept, centred.
    const QRect big = fittedGeometry(QRect(), QSize(1200, 600), QSize(800, 500), laptop, frame);
    QCOMPARE(big.size(), QSize(1200, 600));
    QCOMPARE(big.center(), laptop.center());
    // No room: the available area less the frame, inside it with the title bar on screen.
    const QRect fitted = fittedGeometry(QRect(), QSize(1560, 980), QSize(800, 500), laptop, frame);
    QCOMPARE(fitted.size(), QSize(1366 - 16, 740 - 48));
    QVERIFY(fitted.top() >= laptop.top() + 40 && fitted.left() >= 8);
    QVERIFY(fitted.right() <= laptop.right() - 8 && fitted.bottom() <= laptop.bottom() - 8);
    // A geometry saved on a bigger screen, on a second monitor to the right: moved and shrunk inside.
    const QRect second(1920, 0, 1280, 720);
    const QRect saved = fittedGeometry(QRect(2500, 300, 2400, 1500), QSize(), QSize(800, 500), second, frame);
    QVERIFY2(second.contains(saved.adjusted(-8, -40, 8, 8)), qPrintable(QStringLiteral("%1,%2 %3x%4")
                                                                            .arg(saved.x())
                                                                            .arg(saved.y())
                                                                            .arg(saved.width())
                                                                            .arg(saved.height())));
    QCOMPARE(saved.size(), QSize(1280 - 16, 720 - 48));
    // A saved geometry that fits stays where it was.
    QCOMPARE(fittedGeometry(QRect(2000, 100, 900, 500), QSize(), QSize(800, 500), second, frame),
             QRect(2000, 100, 900, 500));
    // A minimum larger than the room wins (the window cannot be smaller), its title bar still on screen.
    const QRect tiny(0, 0, 640, 480);
    const QRect forced = fittedGeometry(QRect(), QSize(1560, 980), QSize(800, 500), tiny, frame);
    QCOMPARE(forced.size(), QSize(800, 500));
    QVERIFY(forced.top() >= 40 && forced.left() >= 8);
  }

  void anElidingLabelNeverWidensItsWindowAndShowsItsWholeTextInTheTooltip() {
    QWidget window;
    auto* layout = new QHBoxLayout(&window);
    const QString text = QStringLiteral(
        "20261204-163009-tiny: pass 1 of 2: prune (01-prune), running · step 43 of 43, "
        "loss 0.0123 and a long tail that no laptop screen holds in one line");
    auto* label = new ElidingLabel(text, &window);
    auto* plain = new QLabel(text, &window);
    layout->addWidget(label);
    QVERIFY(label->minimumSizeHint().width() < 100);
    QVERIFY(plain->minimumSizeHint().width() > 500);  // what a QLabel asks for
    QVERIFY(window.minimumSizeHint().width() < 150);
    window.resize(300, 40);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(label->isCut());
    QCOMPARE(label->text(), text);  // whole
    window.resize(label->sizeHint().width() + 40, 40);
    QTRY_VERIFY(!label->isCut());
    // Rich text is measured as it is drawn.
    label->setText(QStringLiteral("<b>20261204-163009-tiny</b>: the original and 2 compressed model(s)"));
    QTRY_VERIFY(!label->isCut());
    window.resize(120, 40);
    QTRY_VERIFY(label->isCut());
  }
};

QTEST_MAIN(WidgetsTest)
#include "widgets_test.moc"
