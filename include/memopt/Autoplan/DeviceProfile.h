//===- DeviceProfile.h - what one accelerator offers ------------*- C++ -*-===//
//
// A device profile: the memory, peak arithmetic rates, memory bandwidth and
// link bandwidths of one accelerator in its node, read from a JSON file
// (schema `memopt.device/1`, docs/autoplan.md). memopt ships the profiles of
// data/devices/ (A100-80GB, H100-SXM, H200), built into the library; users
// pass the path of an edited or new file instead of a name.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_AUTOPLAN_DEVICEPROFILE_H
#define MEMOPT_AUTOPLAN_DEVICEPROFILE_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::memopt::autoplan {

struct DeviceProfile {
  std::string name;
  std::string description;
  llvm::SmallVector<std::string> aliases;
  /// Where the numbers come from (datasheets), as the file cites them.
  llvm::SmallVector<std::string> sources;
  /// Device memory in bytes.
  int64_t memoryBytes = 0;
  /// Peak dense FLOP/s: fp32 without tensor cores, and the tensor-core
  /// rates of bf16, fp16 and fp8 (0: the device has no such unit).
  double fp32Flops = 0, bf16Flops = 0, fp16Flops = 0, fp8Flops = 0;
  /// HBM bandwidth (bytes/s).
  double hbmBytesPerSecond = 0;
  /// Per direction, per device: to devices of its node (NVLink) and to
  /// other nodes (its network adapter).
  double intraNodeBytesPerSecond = 0;
  double interNodeBytesPerSecond = 0;
  int64_t devicesPerNode = 1;
  /// Per direction, between the device and its host's memory (PCIe, or
  /// NVLink-C2C on Grace Hopper); 0 when the profile does not say.
  double hostLinkBytesPerSecond = 0;
  /// The host memory bandwidth one device's share of its node gets (the
  /// optimizer's updates on the host are bound by it); 0 when the profile
  /// does not say.
  double hostMemoryBytesPerSecond = 0;

  /// The peak rate of a tensor-core op (matmul, convolution, attention)
  /// whose operands are of `elementType`: fp8 types, bf16, f16, else fp32.
  /// 0 when the device lacks the unit.
  double getTensorCoreFlops(Type elementType) const;
};

/// Parses a profile (`text`, named `source` in messages). Every field is
/// required; unknown fields are errors (a misspelt field would otherwise be
/// silently ignored).
llvm::Expected<DeviceProfile> parseDeviceProfile(llvm::StringRef text,
                                                 llvm::StringRef source);

/// A built-in profile by name or alias, or, when `nameOrPath` ends in
/// `.json` or names an existing file, the profile in that file.
llvm::Expected<DeviceProfile> loadDeviceProfile(llvm::StringRef nameOrPath);

/// The built-in profiles' names, comma-separated (for --help and messages).
std::string listDeviceProfiles();

} // namespace mlir::memopt::autoplan

#endif // MEMOPT_AUTOPLAN_DEVICEPROFILE_H
