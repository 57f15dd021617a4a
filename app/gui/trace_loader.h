// Loads a trace off the GUI thread (QtConcurrent) with progress and cancellation, and prepares
// its timeline there too (ui::prepareTimeline: O(events), about a third of the load's time),
// so that the GUI thread only swaps the results in.
#pragma once

#include "perwiz/trace.h"
#include "perwiz/widgets/timeline_model.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

namespace perwiz::gui {

struct LoadResult {
  QString path;
  std::shared_ptr<const Trace> trace;  // null on error or cancel
  ui::PreparedTimeline timeline;       // the view's base and measured drawing of `trace`, built here
  QString error;                       // TraceError message (names the file and problem)
  bool cancelled = false;
};

class TraceLoader : public QObject {
  Q_OBJECT

 public:
  explicit TraceLoader(QObject* parent = nullptr);
  ~TraceLoader() override;  // cancels and waits for a running load

  // Starts loading `path`; a load already running is cancelled (its result is dropped).
  void start(const QString& path);
  void cancel();
  bool isLoading() const;
  QString currentPath() const { return path_; }

 signals:
  void progress(int percent);
  void finished(const perwiz::gui::LoadResult& result);

 private:
  void onFinished();

  QString path_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  QFutureWatcher<LoadResult>* watcher_ = nullptr;
};

}  // namespace perwiz::gui

Q_DECLARE_METATYPE(perwiz::gui::LoadResult)
