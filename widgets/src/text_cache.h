// Shaped text kept between frames: rank names, legend and box labels are drawn every frame,
// and shaping them again (HarfBuzz) costs more than drawing them.
#pragma once

#include <QFont>
#include <QHash>
#include <QPair>
#include <QStaticText>
#include <QString>

class QPainter;
class QPointF;

namespace perwiz::ui {

class TextCache {
 public:
  enum Slot { Normal = 0, Bold = 1, Small = 2 };
  // Forgets everything if the base font changed (call once per frame).
  void begin(const QFont& base);
  // Draws `text` in the painter's current font (which the caller keeps matching `slot`) with
  // its top-left corner at `topLeft`.
  void draw(QPainter& p, const QPointF& topLeft, const QString& text, Slot slot = Normal);

 private:
  QString fontKey_;
  QHash<QPair<int, QString>, QStaticText> cache_;
};

}  // namespace perwiz::ui
