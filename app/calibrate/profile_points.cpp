// Patterns and base points of the profile mode (see profile_points.h).
#include "profile_points.h"

#include "perwiz/overhead_profile.h"

#include <stdexcept>

namespace perwiz::calibrate {

const std::vector<ProfilePattern>& profilePatterns() {
  static const std::vector<ProfilePattern> all{
      ProfilePattern::PingPong,  ProfilePattern::Sendrecv, ProfilePattern::Bcast,
      ProfilePattern::Reduce,    ProfilePattern::Allreduce, ProfilePattern::Barrier,
      ProfilePattern::Alltoall};
  return all;
}

std::string profilePatternName(ProfilePattern pattern) {
  switch (pattern) {
    case ProfilePattern::PingPong: return "pingpong";
    case ProfilePattern::Sendrecv: return "sendrecv";
    case ProfilePattern::Bcast: return "bcast";
    case ProfilePattern::Reduce: return "reduce";
    case ProfilePattern::Allreduce: return "allreduce";
    case ProfilePattern::Barrier: return "barrier";
    case ProfilePattern::Alltoall: return "alltoall";
  }
  return "pingpong";
}

ProfilePattern profilePatternFromName(const std::string& name) {
  for (ProfilePattern p : profilePatterns())
    if (profilePatternName(p) == name) return p;
  throw std::invalid_argument("unknown profile function '" + name + "' (known: " +
                              joinedProfileFunctions() + ")");
}

std::vector<std::string> profileFunctionNames() {
  std::vector<std::string> names;
  for (ProfilePattern p : profilePatterns()) names.push_back(profilePatternName(p));
  return names;
}

std::string joinedProfileFunctions() {
  std::string text;
  for (const std::string& n : profileFunctionNames()) text += (text.empty() ? "" : ", ") + n;
  return text;
}

std::vector<std::string> patternFunctions(ProfilePattern pattern) {
  switch (pattern) {
    case ProfilePattern::PingPong: return {"MPI_Send", "MPI_Recv"};
    case ProfilePattern::Sendrecv: return {"MPI_Sendrecv"};
    case ProfilePattern::Bcast: return {"MPI_Bcast"};
    case ProfilePattern::Reduce: return {"MPI_Reduce"};
    case ProfilePattern::Allreduce: return {"MPI_Allreduce"};
    case ProfilePattern::Barrier: return {"MPI_Barrier"};
    case ProfilePattern::Alltoall: return {"MPI_Alltoall"};
  }
  return {};
}

std::vector<std::uint32_t> profileProcessCounts(std::uint32_t worldSize) {
  return profileBaseProcessCounts(worldSize);
}

std::vector<std::uint64_t> profileSizes(ProfilePattern pattern, std::uint64_t maxBytes) {
  if (pattern == ProfilePattern::Barrier) return {0};
  return profileBaseMessageSizes(maxBytes);
}

namespace {
std::uint64_t ceilDiv(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }
}  // namespace

std::uint64_t patternPartBytes(ProfilePattern pattern, std::uint32_t processes, std::uint64_t b) {
  switch (pattern) {
    case ProfilePattern::Sendrecv: return ceilDiv(b, 2);
    case ProfilePattern::Alltoall: return ceilDiv(b, processes > 0 ? processes : 1);
    case ProfilePattern::Barrier: return 0;
    default: return b;
  }
}

std::uint64_t patternBufferBytes(ProfilePattern pattern, std::uint32_t processes, std::uint64_t b) {
  const std::uint64_t part = patternPartBytes(pattern, processes, b);
  return pattern == ProfilePattern::Alltoall ? part * processes : part;
}

}  // namespace perwiz::calibrate
