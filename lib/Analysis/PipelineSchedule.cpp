//===- PipelineSchedule.cpp - pipeline schedules and stage splits ---------===//

#include "memopt/Analysis/PipelineSchedule.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"

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
      .Case("interleaved", PipelineSchedule::Interleaved)
      .Case("zb-h1", PipelineSchedule::ZeroBubbleH1)
      .Default(std::nullopt);
}

StringRef memopt::getPipelineScheduleName(PipelineSchedule schedule) {
  switch (schedule) {
  case PipelineSchedule::OneFOneB:
    return "1f1b";
  case PipelineSchedule::GPipe:
    return "gpipe";
  case PipelineSchedule::Interleaved:
    return "interleaved";
  case PipelineSchedule::ZeroBubbleH1:
    return "zb-h1";
  }
  llvm_unreachable("unknown pipeline schedule");
}

std::optional<std::string> memopt::checkScheduleShape(PipelineSchedule schedule,
                                                      int64_t stages,
                                                      int64_t microBatches,
                                                      int64_t virtualStages) {
  if (schedule != PipelineSchedule::Interleaved) {
    if (virtualStages != 1)
      return "virtual=" + std::to_string(virtualStages) +
             " needs schedule=interleaved (the other schedules run one "
             "model chunk per stage)";
    return std::nullopt;
  }
  if (virtualStages < 2)
    return "schedule=interleaved needs virtual >= 2 model chunks per stage, "
           "got " +
           std::to_string(virtualStages);
  if (microBatches % stages != 0)
    return "schedule=interleaved runs micro-batches in groups of the " +
           std::to_string(stages) +
           " stages, but microbatches=" + std::to_string(microBatches) +
           " is not a multiple of it";
  return std::nullopt;
}

/// 1F1B, and ZB-H1's order of the same forward and backward passes with
/// each backward's weight part placed: stage `s` runs `s` backward passes
/// without it and catches up at the end, so that the weight passes fill
/// the idle time 1F1B has there.
static SmallVector<PipelineAction> getOneFOneB(int64_t stages, int64_t stage,
                                               int64_t microBatches,
                                               bool splitWeights) {
  SmallVector<PipelineAction> actions;
  int64_t forwards = 0, backwards = 0, weights = 0;
  auto forward = [&] {
    actions.push_back({PipelinePass::Forward, forwards++, 0});
  };
  auto backward = [&] {
    actions.push_back({PipelinePass::Backward, backwards++, 0});
  };
  auto weight = [&] {
    if (splitWeights)
      actions.push_back({PipelinePass::Weight, weights++, 0});
  };
  // Warm up with the forward passes the later stages need to start.
  int64_t warmup = std::min(stages - 1 - stage, microBatches);
  while (forwards < warmup)
    forward();
  // ZB-H1: the first `stage` backward passes defer their weight parts.
  for (int64_t deferred = 0;
       splitWeights && deferred < stage && forwards < microBatches;
       ++deferred) {
    forward();
    backward();
  }
  while (forwards < microBatches) {
    forward();
    backward();
    weight();
  }
  while (backwards < microBatches) {
    backward();
    weight();
  }
  while (splitWeights && weights < microBatches)
    weight();
  return actions;
}

/// Megatron-LM's interleaved 1F1B: the forward passes go through the chunks
/// in groups of `stages` micro-batches (group g's micro-batches through
/// chunk 0, then chunk 1, ...), the backward passes through the chunks in
/// reverse; a deeper warm-up, then one forward and one backward in turn.
static SmallVector<PipelineAction> getInterleaved(int64_t stages, int64_t stage,
                                                  int64_t microBatches,
                                                  int64_t chunks) {
  int64_t total = microBatches * chunks;
  auto action = [&](PipelinePass pass, int64_t i) {
    int64_t chunk = (i / stages) % chunks;
    if (pass == PipelinePass::Backward)
      chunk = chunks - 1 - chunk;
    int64_t microBatch = (i / (stages * chunks)) * stages + i % stages;
    return PipelineAction{pass, microBatch, chunk};
  };
  // With as many micro-batches as stages, every forward pass runs first.
  int64_t warmup = total;
  if (microBatches != stages)
    warmup = std::min(total, (stages - stage - 1) * 2 + (chunks - 1) * stages);
  SmallVector<PipelineAction> actions;
  for (int64_t i = 0; i < warmup; ++i)
    actions.push_back(action(PipelinePass::Forward, i));
  for (int64_t i = 0; i < total - warmup; ++i) {
    actions.push_back(action(PipelinePass::Forward, warmup + i));
    actions.push_back(action(PipelinePass::Backward, i));
  }
  for (int64_t i = total - warmup; i < total; ++i)
    actions.push_back(action(PipelinePass::Backward, i));
  return actions;
}

SmallVector<PipelineAction> memopt::getStageSchedule(PipelineSchedule schedule,
                                                     int64_t stages,
                                                     int64_t stage,
                                                     int64_t microBatches,
                                                     int64_t virtualStages) {
  switch (schedule) {
  case PipelineSchedule::GPipe: {
    SmallVector<PipelineAction> actions;
    for (int64_t k = 0; k < microBatches; ++k)
      actions.push_back({PipelinePass::Forward, k, 0});
    for (int64_t k = 0; k < microBatches; ++k)
      actions.push_back({PipelinePass::Backward, k, 0});
    return actions;
  }
  case PipelineSchedule::OneFOneB:
    return getOneFOneB(stages, stage, microBatches, /*splitWeights=*/false);
  case PipelineSchedule::ZeroBubbleH1:
    return getOneFOneB(stages, stage, microBatches, /*splitWeights=*/true);
  case PipelineSchedule::Interleaved:
    return getInterleaved(stages, stage, microBatches, virtualStages);
  }
  llvm_unreachable("unknown pipeline schedule");
}

int64_t memopt::getMicroBatchesInFlight(ArrayRef<PipelineAction> schedule) {
  bool weights = llvm::any_of(schedule, [](const PipelineAction &action) {
    return action.pass == PipelinePass::Weight;
  });
  PipelinePass done = weights ? PipelinePass::Weight : PipelinePass::Backward;
  int64_t live = 0, most = 0;
  for (const PipelineAction &action : schedule) {
    if (action.pass == PipelinePass::Forward)
      most = std::max(most, ++live);
    else if (action.pass == done)
      --live;
  }
  return most;
}

double memopt::getBubbleFraction(PipelineSchedule schedule, int64_t stages,
                                 int64_t microBatches, int64_t virtualStages) {
  double idle = static_cast<double>(stages - 1);
  double work = static_cast<double>(microBatches);
  if (schedule == PipelineSchedule::Interleaved)
    work *= static_cast<double>(virtualStages);
  else if (schedule == PipelineSchedule::ZeroBubbleH1)
    work *= 3.0;
  return idle / (work + idle);
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

/// Whether ordering each exchange's messages to and from a peer by tag pairs
/// them as their tags do: for every two stages, the tags of the messages one
/// sends to the other, exchange by exchange and by tag within each, must be
/// those the other receives in the same order. NCCL, which has no tags,
/// pairs messages in that order (memopt/Runtime/Collectives.h).
static std::optional<std::string>
checkMessageOrder(ArrayRef<StageExchanges> stages) {
  int64_t count = stages.size();
  // (from, to, send) -> tags in order.
  std::map<std::tuple<int64_t, int64_t, bool>, std::vector<int64_t>> order;
  for (int64_t s = 0; s < count; ++s)
    for (const auto &exchange : stages[s]) {
      SmallVector<PipelineMessage> sorted(exchange.begin(), exchange.end());
      llvm::stable_sort(sorted,
                        [](const PipelineMessage &a, const PipelineMessage &b) {
                          return a.tag < b.tag;
                        });
      for (const PipelineMessage &m : sorted)
        order[m.send ? std::make_tuple(s, m.peer, true)
                     : std::make_tuple(m.peer, s, false)]
            .push_back(m.tag);
    }
  for (const auto &[key, tags] : order) {
    auto [from, to, send] = key;
    if (!send)
      continue;
    const std::vector<int64_t> &received = order[{from, to, false}];
    if (received != tags)
      return "stage " + std::to_string(to) +
             " receives the messages of stage " + std::to_string(from) +
             " in another order than they are sent, exchange by exchange and "
             "by tag, which NCCL needs";
  }
  return std::nullopt;
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
  return checkMessageOrder(stages);
}
