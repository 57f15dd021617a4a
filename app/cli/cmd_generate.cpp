// `perwiz-cli generate OUT [options]`: a synthetic trace streamed straight into a writer, so
// 10^8-event traces need no more memory than small ones.
#include "cli_common.h"

#include "perwiz/generator.h"
#include "perwiz/network_model.h"
#include "perwiz/trace_io.h"

#include <iostream>
#include <map>
#include <memory>

namespace perwiz::cli {
namespace {

struct GenerateOptions {
  std::string out;
  std::string format;  // "" = from OUT's extension
  std::string pattern = "ring";
  std::string p2p = "sendrecv";
  CLI::Option* p2pOption = nullptr;
  std::string collective = "allreduce";
  std::uint64_t events = 0;
  CLI::Option* eventsOption = nullptr;
  GeneratorSpec spec;
};

const std::map<std::string, MpiOp>& collectiveNames() {
  static const std::map<std::string, MpiOp> names = {{"allreduce", MpiOp::Allreduce},
                                                     {"barrier", MpiOp::Barrier},
                                                     {"bcast", MpiOp::Bcast},
                                                     {"reduce", MpiOp::Reduce},
                                                     {"none", MpiOp::None}};
  return names;
}

// S of the default network model: the largest eager message, as text for the help.
std::string eagerLimit() {
  const std::unique_ptr<NetworkModel> model = defaultNetworkModel();
  const auto* loggps = dynamic_cast<const LogGpsModel*>(model.get());
  return loggps ? std::to_string(loggps->params().S) : std::string("S");
}

int runGenerate(GenerateOptions& opts) {
  GeneratorSpec spec = opts.spec;
  spec.pattern = parsePattern(opts.pattern);  // validated by the option's IsMember check
  spec.collective = collectiveNames().at(opts.collective);
  spec.blockingCalls = parseBlockingCalls(opts.p2p);  // validated by the option's IsMember check
  if (spec.nonBlocking && opts.p2pOption->count() > 0 &&
      spec.blockingCalls != BlockingCalls::Sendrecv)
    throw UsageError("--p2p " + opts.p2p + " names blocking calls; --nonblocking uses "
                     "Isend/Irecv/Waitall");
  if (std::string problem = generatorSpecProblem(spec); !problem.empty())
    throw UsageError("--p2p send-recv: " + problem + " (--bytes, --p2p sendrecv, --nonblocking)");
  if (opts.eventsOption->count() > 0) {
    try {
      spec = specForEventCount(spec, opts.events);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--events: ") + e.what());
    }
  }
  const std::string format = outputFormatName(opts.out, opts.format);
  writeOutput(opts.out, [&] {
    std::unique_ptr<TraceSink> writer =
        format == "alog" ? makeAlogWriter(opts.out)
        : format == "otf" ? makeOtfWriter(opts.out)
                          : makeOtf2Writer(opts.out);
    generateTrace(spec, *writer);
  });
  std::cout << "generated " << opts.out << " (" << format << "): " << spec.ranks << " ranks, "
            << spec.steps << " steps, " << generatedEventCount(spec) << " events, pattern "
            << patternName(spec.pattern)
            << (spec.nonBlocking ? " (non-blocking)"
                : spec.blockingCalls == BlockingCalls::SendThenRecv ? " (MPI_Send, MPI_Recv)" : "")
            << ", collective " << opts.collective << ", seed " << spec.seed << '\n';
  return kExitOk;
}

}  // namespace

Command addGenerateCommand(CLI::App& parent) {
  auto opts = std::make_shared<GenerateOptions>();
  GeneratorSpec& s = opts->spec;
  CLI::App* app = parent.add_subcommand("generate", "Write a synthetic trace of a chosen shape");
  // A repeated option overrides the earlier one, so scripts can append to a base command line.
  app->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app->add_option("OUT", opts->out, "output: .alog/.log file, .otf (OTF, with its streams beside it) or OTF2 archive directory")
      ->required()->check(writablePath());
  app->add_option("--ranks", s.ranks, "number of ranks")
      ->capture_default_str()->check(CLI::Range(1u, 1u << 20));
  app->add_option("--steps", s.steps, "parallel steps (PRGN_step states)")
      ->capture_default_str();
  opts->eventsOption = app->add_option(
      "--events", opts->events, "target model event count; overrides --steps");
  app->add_option("--seed", s.seed, "random seed (same seed, same trace)")
      ->capture_default_str();
  app->add_option("--compute-ns", s.computeNs, "mean computation per rank and step (ns)")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  app->add_option("--imbalance", s.imbalance, "relative spread of the computation (0..1)")
      ->capture_default_str()->check(CLI::Range(0.0, 1.0));
  app->add_option("--bytes", s.messageBytes, "point-to-point message size (bytes)")
      ->capture_default_str();
  app->add_option("--messages-per-step", s.messagesPerStep, "exchanges per rank and step")
      ->capture_default_str();
  app->add_option("--pattern", opts->pattern, "point-to-point pattern")
      ->capture_default_str()
      ->check(CLI::IsMember({"ring", "pairs", "master-worker", "random", "none"}));
  opts->p2pOption = app->add_option(
      "--p2p", opts->p2p,
      "blocking calls of ring, pairs, random: MPI_Sendrecv, or MPI_Send then MPI_Recv "
      "(send-recv; --bytes at most " + eagerLimit() + ", the default model's S)")
      ->capture_default_str()
      ->check(CLI::IsMember({"sendrecv", "send-recv"}));
  app->add_flag("--nonblocking", s.nonBlocking,
                "Isend/Irecv/Waitall instead of blocking calls (--p2p)");
  app->add_option("--collective", opts->collective, "collective per step")
      ->capture_default_str()
      ->check(CLI::IsMember({"allreduce", "barrier", "bcast", "reduce", "none"}));
  app->add_option("--collective-bytes", s.collectiveBytes, "collective payload (bytes)")
      ->capture_default_str();
  app->add_option("--latency-ns", s.latencyNs,
                  "network latency used to place receives (ns); a receive is never placed "
                  "before the default network model's delivery")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  app->add_option("--bandwidth", s.bandwidthBytesPerNs, "bandwidth in bytes/ns (1 = 1 GB/s)")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app->add_option("--insert-every", s.insertEvery,
                  "N: a zero-length state 'inserted' before every N-th MPI call of each rank (variants of one run "
                  "for 'perwiz-cli compare'; 0: none)")
      ->capture_default_str();
  app->add_option("--insert-phase", s.insertPhase,
                  "K: with --insert-every, before the calls whose number plus K is a multiple of N")
      ->capture_default_str();
  app->add_option("--format", opts->format, "output format (default: from OUT's extension)")
      ->check(CLI::IsMember({"alog", "otf", "otf2"}));
  return {app, [opts] { return runGenerate(*opts); }};
}

}  // namespace perwiz::cli
