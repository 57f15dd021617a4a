#include "pixel_canvas.h"

#include <QColor>
#include <QPainter>

#include <algorithm>

namespace perwiz::ui {



QRgb premul(const QColor& c, double a) {
  const int alpha = std::clamp(int(c.alpha() * a + 0.5), 0, 255);
  return qPremultiply(qRgba(c.red(), c.green(), c.blue(), alpha));
}

bool Canvas::clip(int& x0, int& y0, int& x1, int& y1) const {
  x0 = std::max(x0, area_.left());
  y0 = std::max(y0, area_.top());
  x1 = std::min(x1, area_.left() + area_.width());
  y1 = std::min(y1, area_.top() + area_.height());
  return x0 < x1 && y0 < y1;
}

RasterCanvas::RasterCanvas(const QRect& area, QImage& image, QRgb background, bool clear)
    : Canvas(area), img_(image) {
  // Opaque (RGB32): blending keeps alpha at 255 and the final blit is a plain copy.
  if (img_.size() != area.size() || img_.format() != QImage::Format_RGB32)
    img_ = QImage(area.size(), QImage::Format_RGB32);
  if (clear) img_.fill(background | 0xff000000u);
}

void RasterCanvas::fill(int x0, int y0, int x1, int y1, QRgb c) {
  if (!clip(x0, y0, x1, y1) || qAlpha(c) == 0) return;
  const int ox = area_.left(), oy = area_.top();
  for (int y = y0; y < y1; ++y) {
    QRgb* line = reinterpret_cast<QRgb*>(img_.scanLine(y - oy)) - ox;
    if (qAlpha(c) == 255) std::fill(line + x0, line + x1, c);
    else
      for (int x = x0; x < x1; ++x) line[x] = over(c, line[x]);
  }
}

void RasterCanvas::columns(int x0, int y0, int y1, const QRgb* colors, int n) {
  int cx0 = x0, cx1 = x0 + n;
  if (!clip(cx0, y0, cx1, y1)) return;
  const int ox = area_.left(), oy = area_.top();
  const QRgb* src = colors - x0;
  for (int y = y0; y < y1; ++y) {
    QRgb* line = reinterpret_cast<QRgb*>(img_.scanLine(y - oy)) - ox;
    for (int x = cx0; x < cx1; ++x) {
      const QRgb c = src[x];
      if (!c) continue;
      line[x] = qAlpha(c) == 255 ? c : over(c, line[x]);
    }
  }
}

void RasterCanvas::row(int x0, int y0, int y1, const QRgb* colors, int n) {
  int cx0 = x0, cx1 = x0 + n;
  if (!clip(cx0, y0, cx1, y1)) return;
  const int ox = area_.left(), oy = area_.top();
  const QRgb* src = colors - x0;
  for (int y = y0; y < y1; ++y) {
    QRgb* line = reinterpret_cast<QRgb*>(img_.scanLine(y - oy)) - ox;
    std::copy(src + cx0, src + cx1, line + cx0);
  }
}

void RasterCanvas::finish(QPainter& p) { p.drawImage(area_.topLeft(), img_); }

VectorCanvas::VectorCanvas(const QRect& area, QPainter& p, QRgb background) : Canvas(area), p_(p) {
  p_.fillRect(area, QColor::fromRgba(qUnpremultiply(background)));
}

void VectorCanvas::fill(int x0, int y0, int x1, int y1, QRgb c) {
  if (!clip(x0, y0, x1, y1) || qAlpha(c) == 0) return;
  p_.fillRect(QRect(x0, y0, x1 - x0, y1 - y0), QColor::fromRgba(qUnpremultiply(c)));
}

void VectorCanvas::columns(int x0, int y0, int y1, const QRgb* colors, int n) {
  for (int i = 0; i < n;) {
    if (!colors[i]) { ++i; continue; }
    int j = i + 1;
    while (j < n && colors[j] == colors[i]) ++j;
    fill(x0 + i, y0, x0 + j, y1, colors[i]);
    i = j;
  }
}

}  // namespace perwiz::ui
