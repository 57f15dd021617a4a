// Axis-aligned fills of the plot area: rasterised straight into an image on raster devices
// (one blit per frame), or as QPainter rectangles (runs merged) on vector devices (SVG, PDF).
#pragma once

#include <QImage>
#include <QRect>
#include <QRgb>

#include <cstddef>
#include <cstdint>

class QPainter;

namespace perwiz::ui {

class Canvas {
 public:
  explicit Canvas(const QRect& area) : area_(area) {}
  virtual ~Canvas() = default;
  // [x0, x1) x [y0, y1) in device coordinates, premultiplied colour, alpha-blended.
  virtual void fill(int x0, int y0, int x1, int y1, QRgb premul) = 0;
  // Column x0 + i gets colors[i] (premultiplied; 0 = untouched) over rows [y0, y1).
  virtual void columns(int x0, int y0, int y1, const QRgb* colors, int n) = 0;
  // Like columns() when every non-zero colour is opaque (no blending).
  virtual void opaqueColumns(int x0, int y0, int y1, const QRgb* colors, int n) { columns(x0, y0, y1, colors, n); }
  // Like columns() for opaque colours only (every entry drawn): a copy per line.
  virtual void row(int x0, int y0, int y1, const QRgb* colors, int n) { columns(x0, y0, y1, colors, n); }
  virtual void finish(QPainter& p) = 0;
  // Raster canvases take fills of disjoint rows from several threads at once.
  virtual bool threadSafeRows() const { return false; }

 protected:
  bool clip(int& x0, int& y0, int& x1, int& y1) const;
  QRect area_;
};

class RasterCanvas final : public Canvas {
 public:
  // Draws into `image` (resized to the area if needed; kept by the caller between frames),
  // cleared to `background` unless the caller paints every pixel itself (clear = false).
  RasterCanvas(const QRect& area, QImage& image, QRgb background, bool clear = true);
  void fill(int x0, int y0, int x1, int y1, QRgb premul) override;
  void columns(int x0, int y0, int y1, const QRgb* colors, int n) override;
  void row(int x0, int y0, int y1, const QRgb* colors, int n) override;
  void opaqueColumns(int x0, int y0, int y1, const QRgb* colors, int n) override;
  void finish(QPainter& p) override;
  bool threadSafeRows() const override { return true; }

 private:
  QRgb* line(int y) const { return reinterpret_cast<QRgb*>(bits_ + std::ptrdiff_t(y - area_.top()) * stride_) - area_.left(); }
  QImage& img_;
  uchar* bits_ = nullptr;  // taken once: QImage::scanLine() would check for a detach per call
  qsizetype stride_ = 0;
};

class VectorCanvas final : public Canvas {
 public:
  VectorCanvas(const QRect& area, QPainter& p, QRgb background);
  void fill(int x0, int y0, int x1, int y1, QRgb premul) override;
  void columns(int x0, int y0, int y1, const QRgb* colors, int n) override;
  void finish(QPainter&) override {}

 private:
  QPainter& p_;
};

// Premultiplied `c` with alpha a in [0, 1].
QRgb premul(const QColor& c, double a = 1.0);
// An opaque colour with alpha a (0..255), premultiplied.
inline QRgb withAlpha(QRgb opaque, std::uint32_t a) {
  std::uint32_t t = (opaque & 0xff00ffu) * a;
  t = (t + ((t >> 8) & 0xff00ffu) + 0x800080u) >> 8;
  t &= 0xff00ffu;
  std::uint32_t x = ((opaque >> 8) & 0xff00ffu) * a;
  x = (x + ((x >> 8) & 0xff00ffu) + 0x800080u);
  x &= 0xff00ff00u;
  return x | t;
}
// src over dst, both premultiplied.
inline QRgb over(QRgb src, QRgb dst) { return src + withAlpha(dst, 255u - qAlpha(src)); }

}  // namespace perwiz::ui
