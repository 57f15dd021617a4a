#include "text_cache.h"

#include <QPainter>

namespace perwiz::ui {

void TextCache::begin(const QFont& base) {
  const QString key = base.key();
  if (key != fontKey_ || cache_.size() > 8192) {
    cache_.clear();
    fontKey_ = key;
  }
}

void TextCache::draw(QPainter& p, const QPointF& topLeft, const QString& text, Slot slot) {
  const QPair<int, QString> key(int(slot), text);
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    QStaticText st(text);
    st.setTextFormat(Qt::PlainText);
    st.setPerformanceHint(QStaticText::AggressiveCaching);
    st.prepare(QTransform(), p.font());
    it = cache_.insert(key, st);
  }
  p.drawStaticText(topLeft, *it);
}

}  // namespace perwiz::ui
