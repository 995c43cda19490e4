//===- CollectivesTest.cpp - ranks and grid groups of the NCCL runtime ----===//

#include "memopt/Runtime/Collectives.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace memopt::runtime;

namespace {

/// An environment of the given variables.
struct Env {
  std::map<std::string, std::string> vars;
  const char *operator()(const char *name) const {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  }
};

TEST(ProcessPlace, DefaultsToOneProcess) {
  ProcessPlace place;
  std::string error;
  ASSERT_TRUE(readProcessPlace(Env{}, place, error));
  EXPECT_EQ(place.rank, 0);
  EXPECT_EQ(place.worldSize, 1);
  EXPECT_EQ(place.localRank, 0);
}

TEST(ProcessPlace, Launchers) {
  ProcessPlace place;
  std::string error;
  // MPICH's hydra.
  ASSERT_TRUE(readProcessPlace(
      Env{{{"PMI_RANK", "3"}, {"PMI_SIZE", "8"}, {"MPI_LOCALRANKID", "1"}}},
      place, error));
  EXPECT_EQ(place.rank, 3);
  EXPECT_EQ(place.worldSize, 8);
  EXPECT_EQ(place.localRank, 1);
  EXPECT_EQ(place.source, "PMI_RANK/PMI_SIZE");
  // torchrun without a local rank: the rank is local.
  ASSERT_TRUE(readProcessPlace(Env{{{"RANK", "2"}, {"WORLD_SIZE", "4"}}}, place,
                               error));
  EXPECT_EQ(place.localRank, 2);
  // memopt's own variables win over a launcher's.
  ASSERT_TRUE(readProcessPlace(Env{{{"MEMOPT_RANK", "1"},
                                    {"MEMOPT_WORLD_SIZE", "2"},
                                    {"OMPI_COMM_WORLD_RANK", "5"},
                                    {"OMPI_COMM_WORLD_SIZE", "6"}}},
                               place, error));
  EXPECT_EQ(place.rank, 1);
  EXPECT_EQ(place.worldSize, 2);
  // A rank without a size is no launcher.
  ASSERT_TRUE(readProcessPlace(Env{{{"RANK", "2"}}}, place, error));
  EXPECT_EQ(place.worldSize, 1);
}

TEST(ProcessPlace, Errors) {
  ProcessPlace place;
  std::string error;
  EXPECT_FALSE(readProcessPlace(
      Env{{{"SLURM_PROCID", "4"}, {"SLURM_NTASKS", "4"}}}, place, error));
  EXPECT_EQ(error, "SLURM_PROCID=4 is not a rank of SLURM_NTASKS=4");
  EXPECT_FALSE(readProcessPlace(Env{{{"RANK", "-1"}, {"WORLD_SIZE", "4"}}},
                                place, error));
  EXPECT_EQ(error, "RANK='-1' is not a non-negative integer");
  EXPECT_FALSE(readProcessPlace(Env{{{"RANK", "0"}, {"WORLD_SIZE", "0"}}},
                                place, error));
  EXPECT_FALSE(readProcessPlace(
      Env{{{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "x"}}}, place,
      error));
  EXPECT_EQ(error, "LOCAL_RANK='x' is not a non-negative integer");
}

/// Groups of a 2x4 grid: rank = 4 * row + column.
TEST(GridGroup, TwoByFour) {
  GridGroup group;
  std::string error;
  // Along axis 1 (the rows' 4 processes): color = row, key = column.
  ASSERT_TRUE(getGridGroup({2, 4}, {1}, 6, group, error));
  EXPECT_EQ(group.color, 1);
  EXPECT_EQ(group.key, 2);
  EXPECT_EQ(group.size, 4);
  // Along axis 0: color = column, key = row.
  ASSERT_TRUE(getGridGroup({2, 4}, {0}, 6, group, error));
  EXPECT_EQ(group.color, 2);
  EXPECT_EQ(group.key, 1);
  EXPECT_EQ(group.size, 2);
  // Both axes, listed [1, 0]: one group, ordered by column, then row.
  ASSERT_TRUE(getGridGroup({2, 4}, {1, 0}, 6, group, error));
  EXPECT_EQ(group.color, 0);
  EXPECT_EQ(group.key, 2 * 2 + 1);
  EXPECT_EQ(group.size, 8);
  // No axes: every process alone.
  ASSERT_TRUE(getGridGroup({2, 4}, {}, 6, group, error));
  EXPECT_EQ(group.color, 6);
  EXPECT_EQ(group.key, 0);
  EXPECT_EQ(group.size, 1);
}

/// On every grid and axis choice, the groups partition the processes into
/// groups of the right size, with keys 0..size-1 each.
TEST(GridGroup, Partition) {
  std::vector<int64_t> shape{2, 3, 2};
  for (std::vector<int64_t> axes : std::vector<std::vector<int64_t>>{
           {0}, {1}, {2}, {0, 2}, {2, 0}, {1, 0, 2}}) {
    std::map<int64_t, std::set<int64_t>> keys;
    for (int64_t rank = 0; rank < 12; ++rank) {
      GridGroup group;
      std::string error;
      ASSERT_TRUE(getGridGroup(shape, axes, rank, group, error));
      EXPECT_TRUE(keys[group.color].insert(group.key).second);
      int64_t size = 1;
      for (int64_t axis : axes)
        size *= shape[axis];
      EXPECT_EQ(group.size, size);
    }
    for (auto &[color, members] : keys) {
      EXPECT_EQ(static_cast<int64_t>(members.size()),
                keys.begin()->second.size());
      EXPECT_EQ(*members.rbegin(), static_cast<int64_t>(members.size()) - 1);
    }
  }
}

TEST(GridGroup, Errors) {
  GridGroup group;
  std::string error;
  EXPECT_FALSE(getGridGroup({2, 4}, {2}, 0, group, error));
  EXPECT_EQ(error, "grid axis 2 is out of range or repeated");
  EXPECT_FALSE(getGridGroup({2, 4}, {1, 1}, 0, group, error));
  EXPECT_FALSE(getGridGroup({2, 4}, {0}, 8, group, error));
  EXPECT_EQ(error, "rank 8 is outside the grid of 8 processes");
  EXPECT_FALSE(getGridGroup({2, 0}, {0}, 0, group, error));
  EXPECT_EQ(error, "grid extent 0 is not positive");
}

/// The tags of the messages process `from` sends to process `to`, in the
/// order NCCL gets them, and those `to` receives from `from`.
std::vector<int64_t> issuedTags(const std::vector<PeerMessage> &posted,
                                bool send, int64_t peer) {
  std::vector<int64_t> tags;
  for (size_t i : orderPeerMessages(posted))
    if (posted[i].send == send && posted[i].peer == peer)
      tags.push_back(posted[i].tag);
  return tags;
}

TEST(PeerMessages, PairsByTag) {
  // An exchange of an interleaved schedule on two stages: each sends the
  // other an activation and a gradient, posted in different orders.
  std::vector<PeerMessage> stage0 = {
      {true, 1, 4}, {false, 1, 7}, {true, 1, 2}, {false, 1, 3}};
  std::vector<PeerMessage> stage1 = {
      {false, 0, 2}, {true, 0, 3}, {false, 0, 4}, {true, 0, 7}};
  EXPECT_EQ(issuedTags(stage0, true, 1), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(issuedTags(stage0, true, 1), issuedTags(stage1, false, 0));
  EXPECT_EQ(issuedTags(stage1, true, 0), issuedTags(stage0, false, 1));
  // Equal tags keep the order they were posted in.
  std::vector<PeerMessage> same = {{true, 1, 5}, {true, 0, 9}, {true, 1, 5}};
  std::vector<size_t> order = orderPeerMessages(same);
  EXPECT_EQ(order, (std::vector<size_t>{1, 0, 2}));
}

TEST(PeerMessages, RandomExchanges) {
  // Messages among 4 processes with distinct tags; each process posts its
  // sends and receives in its own random order. Every pair must issue the
  // same tags in the same order on both sides.
  std::mt19937 random(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::vector<PeerMessage>> posted(4);
    int64_t tag = 0;
    for (int m = 0; m < 12; ++m) {
      int64_t from = random() % 4, to = random() % 4;
      if (from == to)
        continue;
      tag += 1 + random() % 3;
      posted[from].push_back({true, to, tag});
      posted[to].push_back({false, from, tag});
    }
    for (std::vector<PeerMessage> &messages : posted)
      std::shuffle(messages.begin(), messages.end(), random);
    for (int64_t from = 0; from < 4; ++from)
      for (int64_t to = 0; to < 4; ++to)
        EXPECT_EQ(issuedTags(posted[from], true, to),
                  issuedTags(posted[to], false, from))
            << "trial " << trial << ": " << from << " -> " << to;
  }
}

} // namespace
