#include "pixel_canvas.h"

#include <QColor>
#include <QPainter>

#include <algorithm>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

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
  bits_ = img_.bits();
  stride_ = img_.bytesPerLine();
}

void RasterCanvas::fill(int x0, int y0, int x1, int y1, QRgb c) {
  if (!clip(x0, y0, x1, y1) || qAlpha(c) == 0) return;
  for (int y = y0; y < y1; ++y) {
    QRgb* l = line(y);
    if (qAlpha(c) == 255) std::fill(l + x0, l + x1, c);
    else
      for (int x = x0; x < x1; ++x) l[x] = over(c, l[x]);
  }
}

void RasterCanvas::columns(int x0, int y0, int y1, const QRgb* colors, int n) {
  int cx0 = x0, cx1 = x0 + n;
  if (!clip(cx0, y0, cx1, y1)) return;
  const QRgb* src = colors - x0;
  for (int y = y0; y < y1; ++y) {
    QRgb* l = line(y);
    for (int x = cx0; x < cx1; ++x) {
      const QRgb c = src[x];
      if (!c) continue;
      l[x] = qAlpha(c) == 255 ? c : over(c, l[x]);
    }
  }
}

void RasterCanvas::opaqueColumns(int x0, int y0, int y1, const QRgb* colors, int n) {
  int cx0 = x0, cx1 = x0 + n;
  if (!clip(cx0, y0, cx1, y1)) return;
  const QRgb* src = colors - x0;
  for (int y = y0; y < y1; ++y) {
    QRgb* l = line(y);
    int x = cx0;
#ifdef __SSE2__
    // 4 pixels at a time: dst = src ? src : dst.
    const __m128i zero = _mm_setzero_si128();
    for (; x + 4 <= cx1; x += 4) {
      const __m128i s4 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + x));
      const __m128i d4 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(l + x));
      const __m128i keep = _mm_cmpeq_epi32(s4, zero);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(l + x),
                       _mm_or_si128(_mm_and_si128(keep, d4), _mm_andnot_si128(keep, s4)));
    }
#endif
    for (; x < cx1; ++x)
      if (src[x]) l[x] = src[x];
  }
}

void RasterCanvas::row(int x0, int y0, int y1, const QRgb* colors, int n) {
  int cx0 = x0, cx1 = x0 + n;
  if (!clip(cx0, y0, cx1, y1)) return;
  const QRgb* src = colors - x0;
  for (int y = y0; y < y1; ++y) std::copy(src + cx0, src + cx1, line(y) + cx0);
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
