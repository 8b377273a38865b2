// The window's run lifecycle without a window or a run (run/run_lifecycle.h): fake events in, the phase and
// the enabled actions out. Start's checks, a resume, pause and stop, the engine refusing a resume whose
// experiment changed ("Resume Anyway" chosen before and after the refused attempt has wound down), and
// quitting while a run or a compression goes on (asked, cancelled, confirmed, the question withdrawn when the
// jobs end alone).

#include "run/run_lifecycle.h"

#include <QtTest>

using namespace wb::gui;
using Phase = RunLifecycle::Phase;
using State = RunController::State;
using Close = RunLifecycle::CloseAnswer;

namespace QTest {
template <>
char* toString(const Phase& phase) {
  return qstrdup(phaseName(phase));
}
}  // namespace QTest

class RunLifecycleTest : public QObject {
  Q_OBJECT

 private slots:
  void startIsCheckedThenRunsPausesAndStops() {
    RunLifecycle life;
    QVERIFY(life.actions().start && life.actions().resume && life.actions().change_experiment);
    QVERIFY(life.beginCheck());
    QCOMPARE(life.phase(), Phase::Checking);
    // One at a time: a second Start or a Resume while the checks run is refused, and the buttons say so.
    QVERIFY(!life.beginCheck());
    QVERIFY(!life.beginResume(QStringLiteral("/runs/a")));
    QVERIFY(!life.actions().start && !life.actions().resume && !life.actions().stop);
    QVERIFY(life.actions().change_experiment);  // nothing is locked before the run starts
    life.checkDone(true);
    QCOMPARE(life.phase(), Phase::Starting);
    QVERIFY(!life.actions().change_experiment && !life.actions().pause);
    life.controllerStateChanged(State::Running);
    QCOMPARE(life.phase(), Phase::Running);
    QVERIFY(life.actions().pause && life.actions().stop && life.actions().checkpoint &&
            !life.actions().paused);
    life.controllerStateChanged(State::Paused);
    QVERIFY(life.actions().paused && life.actions().pause && life.actions().stop);
    life.controllerStateChanged(State::Running);
    life.controllerStateChanged(State::Stopping);
    QCOMPARE(life.phase(), Phase::Stopping);
    QVERIFY(!life.actions().stop && !life.actions().pause && !life.actions().start);
    life.controllerStateChanged(State::Idle);  // the end is the run's summary, not the controller's word
    QCOMPARE(life.phase(), Phase::Stopping);
    const RunLifecycle::AfterFinish after = life.finished(false);
    QVERIFY(!after.close && after.resume_anyway.isEmpty() && !after.refused_as_changed);
    QCOMPARE(life.phase(), Phase::Idle);
    QVERIFY(life.actions().start && life.actions().resume);
  }

  void checksThatFailLeaveItIdle() {
    RunLifecycle life;
    QVERIFY(life.beginCheck());
    life.checkDone(false);
    QCOMPARE(life.phase(), Phase::Idle);
    QVERIFY(life.actions().start);
    life.checkDone(true);  // a late answer changes nothing
    QCOMPARE(life.phase(), Phase::Idle);
  }

  void aResumeIsOneRunAtATimeToo() {
    RunLifecycle life;
    QVERIFY(life.beginResume(QStringLiteral("/runs/a")));
    QCOMPARE(life.phase(), Phase::Resuming);
    QCOMPARE(life.resumingDir(), QStringLiteral("/runs/a"));
    // While its curves load (before the controller resumes it) neither Start nor Resume may begin another.
    QVERIFY(!life.actions().start && !life.actions().resume);
    QVERIFY(!life.beginCheck());
    QVERIFY(!life.beginResume(QStringLiteral("/runs/b")));
    life.controllerStateChanged(State::Running);
    life.finished(false);
    QVERIFY(life.resumingDir().isEmpty());
  }

  void resumeAnywayChosenWhileTheRefusedAttemptWindsDown() {
    RunLifecycle life;
    QVERIFY(life.beginResume(QStringLiteral("/runs/a")));
    life.controllerStateChanged(State::Running);
    QVERIFY(life.resumeRefusedAsChanged());                        // the window asks "Resume Anyway?"
    QVERIFY(!life.resumeAnywayChosen(QStringLiteral("/runs/a")));  // not yet: the attempt has not ended
    const RunLifecycle::AfterFinish after = life.finished(false);
    QVERIFY(after.refused_as_changed);  // the summary says "not resumed", not "failed"
    QCOMPARE(after.resume_anyway, QStringLiteral("/runs/a"));
    QCOMPARE(life.phase(), Phase::Idle);
    // Once: the next run's end does not resume it again.
    QVERIFY(life.beginResume(QStringLiteral("/runs/a")));
    const RunLifecycle::AfterFinish next = life.finished(false);
    QVERIFY(next.resume_anyway.isEmpty() && !next.refused_as_changed);
  }

  void resumeAnywayChosenAfterTheAttemptEndedResumesAtOnce() {
    RunLifecycle life;
    QVERIFY(life.beginResume(QStringLiteral("/runs/a")));
    QVERIFY(life.resumeRefusedAsChanged());
    const RunLifecycle::AfterFinish after = life.finished(false);
    QVERIFY(after.refused_as_changed && after.resume_anyway.isEmpty());
    QVERIFY(life.resumeAnywayChosen(QStringLiteral("/runs/a")));  // the window resumes it now
  }

  void anExperimentChangedErrorOutsideAResumeAsksNothing() {
    RunLifecycle life;
    QVERIFY(life.beginCheck());
    life.checkDone(true);
    life.controllerStateChanged(State::Running);
    QVERIFY(!life.resumeRefusedAsChanged());
    QVERIFY(!life.finished(false).refused_as_changed);
  }

  void closingWithNothingRunningCloses() {
    RunLifecycle life;
    QCOMPARE(life.closeRequested(false), Close::Close);
  }

  void quittingDuringARunAsksStopsAndClosesWhenItEnds() {
    RunLifecycle life;
    life.controllerStateChanged(State::Running);
    QCOMPARE(life.closeRequested(true), Close::AskToStop);
    life.quitAsked();
    QVERIFY(life.quitQuestionOpen());
    QCOMPARE(life.closeRequested(true), Close::RaiseQuestion);  // closing again brings the question up
    QVERIFY(!life.quitConfirmed(true));                         // stop first
    QVERIFY(life.quitPending());
    QCOMPARE(life.closeRequested(true), Close::Wait);
    life.controllerStateChanged(State::Stopping);
    const RunLifecycle::AfterFinish after = life.finished(false);
    QVERIFY(after.close);
    QCOMPARE(life.closeRequested(false), Close::Quit);
  }

  void quittingWaitsForTheCompressionToo() {
    RunLifecycle life;
    life.controllerStateChanged(State::Running);
    life.quitAsked();
    QVERIFY(!life.quitConfirmed(true));
    QVERIFY(!life.finished(/*jobs_left=*/true).close);  // the compression is still writing its checkpoint
    QCOMPARE(life.closeRequested(true), Close::Wait);
    QVERIFY(life.jobEnded(false));
    QCOMPARE(life.closeRequested(false), Close::Quit);
  }

  void aCancelledQuestionLeavesTheRunAlone() {
    RunLifecycle life;
    life.controllerStateChanged(State::Running);
    life.quitAsked();
    life.quitCancelled();
    QVERIFY(!life.quitQuestionOpen() && !life.quitPending());
    QCOMPARE(life.closeRequested(true), Close::AskToStop);
    QVERIFY(!life.finished(false).close);  // the run ending later closes nothing
  }

  void theQuestionIsWithdrawnWhenTheRunEndsOnItsOwn() {
    RunLifecycle life;
    life.controllerStateChanged(State::Running);
    life.quitAsked();
    // The run completes while "Stop the run and quit?" is open: nothing is left to stop, the quit goes ahead.
    QVERIFY(life.finished(false).close);
    QVERIFY(life.quitPending());
    QCOMPARE(life.closeRequested(false), Close::Quit);
  }

  void quittingWinsOverAResumeChosenMeanwhile() {
    RunLifecycle life;
    QVERIFY(life.beginResume(QStringLiteral("/runs/a")));
    QVERIFY(life.resumeRefusedAsChanged());
    QVERIFY(!life.resumeAnywayChosen(QStringLiteral("/runs/a")));
    life.quitAsked();
    QVERIFY(!life.quitConfirmed(true));
    const RunLifecycle::AfterFinish after = life.finished(false);
    QVERIFY(after.close);
    QVERIFY(after.resume_anyway.isEmpty());
  }

  void aConfirmationAfterTheJobsEndedClosesAtOnce() {
    RunLifecycle life;
    life.quitAsked();
    QVERIFY(life.quitConfirmed(false));
  }
};

QTEST_GUILESS_MAIN(RunLifecycleTest)
#include "run_lifecycle_test.moc"
