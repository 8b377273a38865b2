#pragma once
// One load at a time off the UI thread, for a view that reloads whenever the runs folder's index changes: a
// reload asked while a load is in flight is done once after it (not once per change), and a load the view has
// since made stale (another folder, another pick) is dropped when it comes back.

namespace wb::gui {

class SerialReload {
 public:
  // Starts a load: the generation to tag it with, or -1 when one is in flight (it is loaded again after that
  // one).
  int begin() {
    if (m_loading) {
      m_pending = true;
      return -1;
    }
    m_loading = true;
    return ++m_generation;
  }
  void invalidate() { ++m_generation; }  // the load in flight, if any, is stale
  // A load came back: whether its result is current.
  bool end(int generation) {
    m_loading = false;
    return generation == m_generation;
  }
  // After handling a load: whether another was asked for meanwhile (then reload).
  bool takePending() {
    const bool pending = m_pending;
    m_pending = false;
    return pending;
  }
  bool loading() const { return m_loading; }

 private:
  bool m_loading = false;
  bool m_pending = false;
  int m_generation = 0;
};

}  // namespace wb::gui
