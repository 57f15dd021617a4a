#include "trace_loader.h"

#include "perwiz/trace_io.h"

#include <QCoreApplication>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

namespace perwiz::gui {

TraceLoader::TraceLoader(QObject* parent) : QObject(parent) {
  qRegisterMetaType<LoadResult>();
}

TraceLoader::~TraceLoader() {
  if (watcher_) {
    if (cancel_) *cancel_ = true;
    watcher_->disconnect(this);
    watcher_->waitForFinished();
  }
}

// Until its result is delivered (onFinished), not only while its thread runs: between the
// two, the session still shows the trace before and a caller that saw "not loading" took it for
// the new one (gui.docks failed so on a loaded machine).
bool TraceLoader::isLoading() const { return watcher_ != nullptr; }

void TraceLoader::cancel() {
  if (cancel_) *cancel_ = true;
}

void TraceLoader::start(const QString& path) {
  if (watcher_) {  // drop the running load: it finishes on its own and is deleted then
    cancel();
    watcher_->disconnect(this);
    connect(watcher_, &QFutureWatcherBase::finished, watcher_, &QObject::deleteLater);
    watcher_ = nullptr;
  }
  path_ = path;
  auto flag = std::make_shared<std::atomic<bool>>(false);
  cancel_ = flag;
  watcher_ = new QFutureWatcher<LoadResult>(this);
  connect(watcher_, &QFutureWatcherBase::finished, this, &TraceLoader::onFinished);
  QPointer<TraceLoader> self(this);
  const std::string file = path.toStdString();
  watcher_->setFuture(QtConcurrent::run([flag, file, path, self]() {
    LoadResult r;
    r.path = path;
    int lastPercent = -1;
    LoadOptions opts;
    opts.progress = [&](double f) {
      const int percent = static_cast<int>(f * 100.0);
      if (percent != lastPercent) {
        lastPercent = percent;
        // Queued to the loader's thread (the GUI thread); dropped if the loader is gone.
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, flag, percent] {
              if (self && !*flag) emit self->progress(percent);
            },
            Qt::QueuedConnection);
      }
      return !*flag;
    };
    try {
      r.trace = std::make_shared<const Trace>(loadTrace(file, opts));
      if (!*flag) r.timeline = ui::prepareTimeline(r.trace);
    } catch (const TraceError& e) {
      if (*flag)
        r.cancelled = true;
      else
        r.error = QString::fromStdString(e.what());
    } catch (const std::exception& e) {
      r.error = path + QStringLiteral(": ") + QString::fromStdString(e.what());
    }
    if (*flag) {
      r.cancelled = true;
      r.trace.reset();
    }
    return r;
  }));
}

void TraceLoader::onFinished() {
  auto* w = watcher_;
  watcher_ = nullptr;
  cancel_.reset();
  const LoadResult r = w->result();
  w->deleteLater();
  emit finished(r);
}

}  // namespace perwiz::gui
