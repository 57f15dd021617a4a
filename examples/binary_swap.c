/* Binary-swap image compositing (paper §5.2, Fig. 6(b); Takeuchi, Ino, Hagihara 2003).
 *
 * Each of the P = 2^n ranks has rendered one slab of a volume into a full-size RGBA image; the
 * slabs are ordered in depth by rank (rank 0 in front). Stage k (0-based, n stages) pairs rank r
 * with r ^ 2^k: the pair splits the piece of the image they are both responsible for in two,
 * each keeps one half, sends the other with MPI_Sendrecv and composites what it receives into
 * its half with the "over" operator. After n stages every rank holds 1/P of the final image,
 * which rank 0 gathers.
 *
 * Compositing skips transparent incoming pixels, so its cost is proportional to the opaque
 * pixels a rank receives. The object is a cylinder seen along its axis, so every slab's image
 * has the same footprint: a disc off the image centre, plus a faint haze (one tile per row).
 *   - block split (default): halves are contiguous ranges of the row-major image, so the ranks
 *     whose half holds the disc composite far more than the others — the imbalance the paper's
 *     PerWiz analysis found;
 *   - interleaved split (--interleaved, the paper's BSLBR): halves are every other pixel of the
 *     current piece, so every rank composites exactly the mean of each stage.
 * Why exactly: the footprint is rasterised in runs of whole tiles of P pixels (a tiled renderer),
 * and an aligned tile holds P / 2^k pixels of every residue class mod 2^k, which is what a rank
 * keeps after k interleaved splits. The message sizes are the same in both splits (half the
 * current piece, transparent pixels included). docs/examples.md derives the prediction.
 *
 * A PRGN step per stage (region "PRGN_stage"); only compositing is charged as computation,
 * after the MPI_Sendrecv and inside the step (see docs/examples.md for why packing is not). */
#include "common/options.h"
#include "common/report.h"
#include "common/work.h"
#include "perwiz/prgn.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Pixels start, start + stride, ... (count of them): a rank's current piece of the image. */
typedef struct {
  long start, stride, count;
} pixel_set;

static pixel_set split(pixel_set s, int second, int interleaved) {
  pixel_set h;
  h.count = s.count / 2;
  if (interleaved) {
    h.stride = s.stride * 2;
    h.start = s.start + (second ? s.stride : 0);
  } else {
    h.stride = s.stride;
    h.start = s.start + (second ? s.stride * h.count : 0);
  }
  return h;
}

/* The piece rank `rank` holds after `stages` stages. */
static pixel_set piece_after(int rank, int stages, long pixels, int interleaved) {
  pixel_set s = {0, 1, pixels};
  for (int k = 0; k < stages; ++k) s = split(s, (rank >> k) & 1, interleaved);
  return s;
}

/* Footprint: a disc of radius S/4 centred at (0.30 S, 0.35 S) and one haze tile per row,
 * decided per tile of `tile` pixels so that opaque runs are whole aligned tiles. */
static int opaque(long x, long y, long side, long tile) {
  const long tx = x / tile, tiles = side / tile;
  const double dx = ((double)tx + 0.5) * (double)tile - 0.30 * (double)side;
  const double dy = (double)y + 0.5 - 0.35 * (double)side;
  const double radius = 0.25 * (double)side;
  if (dx * dx + dy * dy <= radius * radius) return 1;
  return tx == (y * 37 + 11) % tiles;
}

/* Rank r's rendered slab: premultiplied RGBA8, transparent (all zero) outside the footprint. */
static void render(unsigned char *img, int r, long side, long tile) {
  const unsigned alpha = 40 + (unsigned)(r * 23) % 80;
  const unsigned base[3] = {(unsigned)(r * 53) % 256, (unsigned)(r * 97) % 256, (unsigned)(r * 31) % 256};
  for (long y = 0; y < side; ++y)
    for (long x = 0; x < side; ++x) {
      unsigned char *p = img + 4 * (y * side + x);
      if (!opaque(x, y, side, tile)) {
        memset(p, 0, 4);
        continue;
      }
      for (int c = 0; c < 3; ++c) p[c] = (unsigned char)(((base[c] + (unsigned)(x + y) % 32) % 256) * alpha / 255);
      p[3] = (unsigned char)alpha;
    }
}

/* front over back, premultiplied: out = front + back * (1 - alpha_front). */
static void over(unsigned char *out, const unsigned char *front, const unsigned char *back) {
  const unsigned keep = 255u - front[3];
  for (int c = 0; c < 4; ++c) out[c] = (unsigned char)(front[c] + (back[c] * keep + 127u) / 255u);
}

/* Composites the incoming pixels of piece `kept` into img; returns how many were not transparent
 * (the work done: transparent ones are skipped). */
static long composite(unsigned char *img, pixel_set kept, const unsigned char *incoming, int incoming_in_front) {
  long opaque_pixels = 0;
  for (long j = 0; j < kept.count; ++j) {
    const unsigned char *in = incoming + 4 * j;
    if (in[3] == 0) continue;
    unsigned char *mine = img + 4 * (kept.start + j * kept.stride);
    unsigned char tmp[4];
    if (incoming_in_front)
      over(tmp, in, mine);
    else
      over(tmp, mine, in);
    memcpy(mine, tmp, 4);
    ++opaque_pixels;
  }
  return opaque_pixels;
}

static void pack(unsigned char *buf, const unsigned char *img, pixel_set s) {
  for (long j = 0; j < s.count; ++j) memcpy(buf + 4 * j, img + 4 * (s.start + j * s.stride), 4);
}

/* Rank 0: composites all slabs front to back serially and compares. The 8-bit "over" rounds, so
 * the tree order of binary swap may differ from the serial order by one unit per level. */
static int check_final(const unsigned char *final_img, int ranks, int stages, long side, long tile) {
  const long pixels = side * side;
  unsigned char *ref = calloc((size_t)pixels, 4), *slab = malloc((size_t)pixels * 4);
  if (!ref || !slab) {
    fprintf(stderr, "binary_swap: --check: out of memory\n");
    free(ref);
    free(slab);
    return 0;
  }
  for (int r = ranks - 1; r >= 0; --r) { /* back to front: ref = slab_r over ref */
    render(slab, r, side, tile);
    for (long p = 0; p < pixels; ++p) over(ref + 4 * p, slab + 4 * p, ref + 4 * p);
  }
  int worst = 0;
  for (long i = 0; i < pixels * 4; ++i) {
    const int d = abs((int)ref[i] - (int)final_img[i]);
    if (d > worst) worst = d;
  }
  free(ref);
  free(slab);
  const int ok = worst <= 2 * stages + 1;
  printf("binary_swap: check %s (largest channel difference %d, allowed %d)\n", ok ? "passed" : "FAILED", worst,
         2 * stages + 1);
  return ok;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);

  long side = 512, frames = 1;
  double pixel_ns = 100, render_ns = 2;
  int interleaved = 0, check = 0;
  const option_spec specs[] = {
      {"size", OPT_INT, &side, 2, 8192, "image side in pixels (a multiple of the rank count)"},
      {"frames", OPT_INT, &frames, 1, 10000, "images composited one after the other"},
      {"pixel-ns", OPT_DOUBLE, &pixel_ns, 0, 1e9, "cost of compositing one non-transparent pixel (ns)"},
      {"render-ns", OPT_DOUBLE, &render_ns, 0, 1e9, "cost of rendering one pixel, before the stages (ns)"},
      {"interleaved", OPT_FLAG, &interleaved, 0, 0, "interleaved split (balanced) instead of block split"},
      {"check", OPT_FLAG, &check, 0, 0, "rank 0 verifies the final image against a serial composite"},
  };
  const int nspecs = (int)(sizeof specs / sizeof specs[0]);
  const char *summary =
      "Binary-swap compositing of one rendered slab per rank (P = 2^n ranks, n stages, one PRGN step per stage).";
  int status = options_parse(argc, argv, "binary_swap", summary, specs, nspecs, rank);
  if (status == 0 && (ranks < 2 || (ranks & (ranks - 1)) != 0))
    status = options_fail("binary_swap", rank, "the number of ranks must be a power of two >= 2");
  if (status == 0 && side % ranks != 0) {
    char msg[128];
    snprintf(msg, sizeof msg, "--size %ld is not a multiple of the %d ranks", side, ranks);
    status = options_fail("binary_swap", rank, msg);
  }
  if (status != 0) {
    MPI_Finalize();
    return status == 1 ? 0 : status;
  }

  int stages = 0;
  while ((1 << stages) < ranks) ++stages;
  const long pixels = side * side, tile = ranks;
  unsigned char *rendered = malloc((size_t)pixels * 4), *img = malloc((size_t)pixels * 4);
  unsigned char *sendbuf = malloc((size_t)pixels * 2), *recvbuf = malloc((size_t)pixels * 2);
  if (!rendered || !img || !sendbuf || !recvbuf) {
    fprintf(stderr, "binary_swap: rank %d: out of memory for a %ldx%ld image\n", rank, side, side);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  render(rendered, rank, side, tile);

  const double start = report_start();
  for (long f = 0; f < frames; ++f) {
    memcpy(img, rendered, (size_t)pixels * 4);
    work_charge(render_ns * (double)pixels); /* the same on every rank, outside the steps */
    pixel_set piece = {0, 1, pixels};
    for (int k = 0; k < stages; ++k) {
      PRGN_BEGIN_NAMED("stage");
      const int bit = 1 << k, partner = rank ^ bit, second = (rank & bit) != 0;
      const pixel_set kept = split(piece, second, interleaved), sent = split(piece, !second, interleaved);
      pack(sendbuf, img, sent);
      MPI_Sendrecv(sendbuf, (int)(sent.count * 4), MPI_BYTE, partner, k, recvbuf, (int)(kept.count * 4), MPI_BYTE,
                   partner, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      const work_span span = work_begin();
      const long done = composite(img, kept, recvbuf, /* partner's group has the lower ranks */ second);
      work_end(span, (double)done * pixel_ns);
      PRGN_END_NAMED("stage");
      piece = kept;
    }
  }

  char details[160];
  snprintf(details, sizeof details, "split=%s size=%ld frames=%ld pixel_ns=%g", interleaved ? "interleaved" : "block",
           side, frames, pixel_ns);
  report_finish("binary_swap", details, start);

  /* Rank 0 gathers the pieces of the last frame (every rank's piece has pixels / P pixels).
   * After report_finish's barrier, so every rank enters it at the same time: in SMPI a non-root
   * member of a Gather of large pieces waits for the tree above it, which the replay's rule for
   * rooted collectives (non-roots never wait, docs/model.md §2.5) would keep as local cost of
   * whichever rank arrived early — a cost the balanced run does not have. */
  const pixel_set mine = piece_after(rank, stages, pixels, interleaved);
  pack(sendbuf, img, mine);
  unsigned char *all = rank == 0 ? malloc((size_t)pixels * 4) : NULL;
  MPI_Gather(sendbuf, (int)(mine.count * 4), MPI_BYTE, all, (int)(mine.count * 4), MPI_BYTE, 0, MPI_COMM_WORLD);

  int ok = 1;
  if (rank == 0 && check) {
    unsigned char *final_img = malloc((size_t)pixels * 4);
    for (int r = 0; final_img && r < ranks; ++r) {
      const pixel_set s = piece_after(r, stages, pixels, interleaved);
      const unsigned char *src = all + 4 * r * mine.count;
      for (long j = 0; j < s.count; ++j) memcpy(final_img + 4 * (s.start + j * s.stride), src + 4 * j, 4);
    }
    ok = final_img && check_final(final_img, ranks, stages, side, tile);
    free(final_img);
  }
  free(all);
  free(rendered);
  free(img);
  free(sendbuf);
  free(recvbuf);
  MPI_Finalize();
  return ok ? 0 : 1;
}
