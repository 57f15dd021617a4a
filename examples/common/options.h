/* Command-line options of the case-study programs: `--name VALUE`, `--name=VALUE`, flags and
 * `--help`, with a usage text built from the table. Every rank parses the same argv, so every
 * rank reaches the same verdict; only rank 0 prints. */
#ifndef PERWIZ_EXAMPLES_OPTIONS_H
#define PERWIZ_EXAMPLES_OPTIONS_H

typedef enum { OPT_INT, OPT_DOUBLE, OPT_FLAG } option_kind;

typedef struct {
  const char *name; /* without the leading "--" */
  option_kind kind;
  void *value;      /* long *, double * or int * (flag: set to 1); holds the default on entry */
  double min, max;  /* accepted range for OPT_INT and OPT_DOUBLE */
  const char *help;
} option_spec;

/* Returns 0 when the program should run, 1 after --help (exit status 0), 2 on a usage error
 * (the message is already printed on rank 0's stderr). */
int options_parse(int argc, char **argv, const char *program, const char *summary, const option_spec *specs,
                  int count, int rank);

/* Prints "PROGRAM: MESSAGE (see PROGRAM --help)" on rank 0 (for checks that need several options,
 * e.g. "the image size must be a multiple of the rank count"); returns 2. */
int options_fail(const char *program, int rank, const char *message);

#endif
