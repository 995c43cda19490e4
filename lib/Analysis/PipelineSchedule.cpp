//===- PipelineSchedule.cpp - pipeline schedules and stage splits ---------===//

#include "memopt/Analysis/PipelineSchedule.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string>
#include <tuple>

using namespace mlir;
using namespace mlir::memopt;

std::optional<PipelineSchedule> memopt::parsePipelineSchedule(StringRef name) {
  return llvm::StringSwitch<std::optional<PipelineSchedule>>(name)
      .Case("1f1b", PipelineSchedule::OneFOneB)
      .Case("gpipe", PipelineSchedule::GPipe)
      .Default(std::nullopt);
}

StringRef memopt::getPipelineScheduleName(PipelineSchedule schedule) {
  return schedule == PipelineSchedule::OneFOneB ? "1f1b" : "gpipe";
}

SmallVector<PipelineAction> memopt::getStageSchedule(PipelineSchedule schedule,
                                                     int64_t stages,
                                                     int64_t stage,
                                                     int64_t microBatches) {
  SmallVector<PipelineAction> actions;
  auto forward = [&](int64_t k) { actions.push_back({false, k}); };
  auto backward = [&](int64_t k) { actions.push_back({true, k}); };
  if (schedule == PipelineSchedule::GPipe) {
    for (int64_t k = 0; k < microBatches; ++k)
      forward(k);
    for (int64_t k = 0; k < microBatches; ++k)
      backward(k);
    return actions;
  }
  // 1F1B: warm up with the forward passes the later stages need to start,
  // then one forward and one backward in turn, then the remaining backward
  // passes.
  int64_t warmup = std::min(stages - 1 - stage, microBatches);
  for (int64_t k = 0; k < warmup; ++k)
    forward(k);
  for (int64_t k = warmup; k < microBatches; ++k) {
    forward(k);
    backward(k - warmup);
  }
  for (int64_t k = microBatches - warmup; k < microBatches; ++k)
    backward(k);
  return actions;
}

int64_t memopt::getMicroBatchesInFlight(ArrayRef<PipelineAction> schedule) {
  int64_t live = 0, most = 0;
  for (const PipelineAction &action : schedule) {
    live += action.backward ? -1 : 1;
    most = std::max(most, live);
  }
  return most;
}

double memopt::getBubbleFraction(PipelineSchedule schedule, int64_t stages,
                                 int64_t microBatches) {
  (void)schedule;
  return static_cast<double>(stages - 1) /
         static_cast<double>(microBatches + stages - 1);
}

SmallVector<int64_t> memopt::balanceStages(ArrayRef<int64_t> layerCosts,
                                           int64_t firstExtra,
                                           int64_t lastExtra, int64_t stages) {
  int64_t layers = layerCosts.size();
  SmallVector<int64_t> prefix(layers + 1, 0);
  for (int64_t i = 0; i < layers; ++i)
    prefix[i + 1] = prefix[i] + layerCosts[i];
  auto cost = [&](int64_t stage, int64_t begin, int64_t end) {
    int64_t sum = prefix[end] - prefix[begin];
    if (stage == 0)
      sum += firstExtra;
    if (stage == stages - 1)
      sum += lastExtra;
    return sum;
  };
  // best[s][i]: the least largest cost of stages 0..s-1 over layers 0..i-1.
  constexpr int64_t kInf = std::numeric_limits<int64_t>::max();
  std::vector<std::vector<int64_t>> best(
      stages + 1, std::vector<int64_t>(layers + 1, kInf));
  std::vector<std::vector<int64_t>> start(stages + 1,
                                          std::vector<int64_t>(layers + 1, -1));
  best[0][0] = 0;
  for (int64_t s = 1; s <= stages; ++s)
    for (int64_t end = s; end <= layers - (stages - s); ++end)
      for (int64_t begin = s - 1; begin < end; ++begin) {
        if (best[s - 1][begin] == kInf)
          continue;
        int64_t value = std::max(best[s - 1][begin], cost(s - 1, begin, end));
        if (value < best[s][end]) {
          best[s][end] = value;
          start[s][end] = begin;
        }
      }
  SmallVector<int64_t> firsts(stages, 0);
  for (int64_t s = stages, end = layers; s > 0; --s) {
    firsts[s - 1] = start[s][end];
    end = start[s][end];
  }
  return firsts;
}

std::optional<std::string>
memopt::checkExchanges(ArrayRef<StageExchanges> stages) {
  int64_t count = stages.size();
  // Where each message's counterpart is: (stage, peer, tag, send) -> the
  // index of the exchange on `stage` that holds it.
  std::map<std::tuple<int64_t, int64_t, int64_t, bool>, int64_t> posted;
  for (int64_t s = 0; s < count; ++s)
    for (auto [index, exchange] : llvm::enumerate(stages[s]))
      for (const PipelineMessage &m : exchange)
        if (!posted.try_emplace({s, m.peer, m.tag, m.send}, index).second)
          return "stage " + std::to_string(s) + " " +
                 (m.send ? "sends to" : "receives from") + " stage " +
                 std::to_string(m.peer) + " twice with tag " +
                 std::to_string(m.tag);
  // counterpart[s][e][i]: the exchange of the peer holding message i's match.
  std::vector<std::vector<std::vector<int64_t>>> counterpart(count);
  for (int64_t s = 0; s < count; ++s) {
    for (const auto &exchange : stages[s]) {
      std::vector<int64_t> matches;
      for (const PipelineMessage &m : exchange) {
        auto it = m.peer >= 0 && m.peer < count
                      ? posted.find({m.peer, s, m.tag, !m.send})
                      : posted.end();
        if (it == posted.end())
          return "stage " + std::to_string(s) + " " +
                 (m.send ? "sends to" : "receives from") + " stage " +
                 std::to_string(m.peer) + " with tag " + std::to_string(m.tag) +
                 ", which has no matching " + (m.send ? "receive" : "send");
        matches.push_back(it->second);
      }
      counterpart[s].push_back(std::move(matches));
    }
  }
  std::vector<int64_t> at(count, 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (int64_t s = 0; s < count; ++s) {
      int64_t e = at[s];
      if (e >= static_cast<int64_t>(stages[s].size()))
        continue;
      bool complete = true;
      for (auto [m, match] : llvm::zip_equal(stages[s][e], counterpart[s][e]))
        complete &= at[m.peer] >= match;
      if (complete) {
        ++at[s];
        progress = true;
      }
    }
  }
  for (int64_t s = 0; s < count; ++s)
    if (at[s] < static_cast<int64_t>(stages[s].size()))
      return "stage " + std::to_string(s) + " waits forever at its exchange " +
             std::to_string(at[s]) + " (of " +
             std::to_string(stages[s].size()) + ")";
  return std::nullopt;
}
