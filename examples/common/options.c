#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out, const char *program, const char *summary, const option_spec *specs, int count) {
  fprintf(out, "usage: %s [options]\n%s\n\noptions:\n", program, summary);
  for (int i = 0; i < count; ++i) {
    const option_spec *s = &specs[i];
    char left[64];
    if (s->kind == OPT_FLAG)
      snprintf(left, sizeof left, "--%s", s->name);
    else
      snprintf(left, sizeof left, "--%s %s", s->name, s->kind == OPT_INT ? "N" : "X");
    fprintf(out, "  %-24s %s", left, s->help);
    if (s->kind == OPT_INT) fprintf(out, " (default %ld)", *(long *)s->value);
    if (s->kind == OPT_DOUBLE) fprintf(out, " (default %g)", *(double *)s->value);
    fputc('\n', out);
  }
  fprintf(out, "  %-24s %s\n", "-h, --help", "this text (under smpirun use -h: SimGrid takes --help)");
}

int options_fail(const char *program, int rank, const char *message) {
  if (rank == 0) fprintf(stderr, "%s: %s (see %s --help)\n", program, message, program);
  return 2;
}

/* Parses TEXT into *spec's value; on failure writes the reason into ERR. */
static int set_value(const option_spec *spec, const char *text, char *err, size_t errsize) {
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (*text == '\0' || *end != '\0' || errno != 0 || !isfinite(v)) {
    snprintf(err, errsize, "--%s: expected a number, got '%s'", spec->name, text);
    return 0;
  }
  if (spec->kind == OPT_INT && v != floor(v)) {
    snprintf(err, errsize, "--%s: expected an integer, got '%s'", spec->name, text);
    return 0;
  }
  if (v < spec->min || v > spec->max) {
    snprintf(err, errsize, "--%s: %s is outside [%g, %g]", spec->name, text, spec->min, spec->max);
    return 0;
  }
  if (spec->kind == OPT_INT)
    *(long *)spec->value = (long)v;
  else
    *(double *)spec->value = v;
  return 1;
}

int options_parse(int argc, char **argv, const char *program, const char *summary, const option_spec *specs,
                  int count, int rank) {
  char err[256];
  /* --help first, so that the usage shows the defaults, not values parsed before it. */
  for (int i = 1; i < argc; ++i)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      if (rank == 0) usage(stdout, program, summary, specs, count);
      return 1;
    }
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    if (strncmp(arg, "--", 2) != 0) {
      snprintf(err, sizeof err, "unexpected argument '%s'", arg);
      return options_fail(program, rank, err);
    }
    const char *name = arg + 2;
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const option_spec *spec = NULL;
    for (int k = 0; k < count; ++k)
      if (strlen(specs[k].name) == len && strncmp(specs[k].name, name, len) == 0) spec = &specs[k];
    if (!spec) {
      snprintf(err, sizeof err, "unknown option '%s'", arg);
      return options_fail(program, rank, err);
    }
    if (spec->kind == OPT_FLAG) {
      if (eq) {
        snprintf(err, sizeof err, "--%s takes no value", spec->name);
        return options_fail(program, rank, err);
      }
      *(int *)spec->value = 1;
      continue;
    }
    const char *text = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
    if (!text) {
      snprintf(err, sizeof err, "--%s needs a value", spec->name);
      return options_fail(program, rank, err);
    }
    if (!set_value(spec, text, err, sizeof err)) return options_fail(program, rank, err);
  }
  return 0;
}
