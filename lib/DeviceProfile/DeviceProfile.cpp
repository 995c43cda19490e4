//===- DeviceProfile.cpp - device profiles from JSON ----------------------===//

#include "memopt/Autoplan/DeviceProfile.h"

#include "memopt/Support/Json.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::memopt::autoplan;

// The shipped profiles (data/devices/*.json), embedded at build time.
#include "A100Profile.inc"
#include "H100Profile.inc"
#include "H200Profile.inc"

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

double DeviceProfile::getTensorCoreFlops(Type elementType) const {
  if (isa<FloatType>(elementType) && elementType.getIntOrFloatBitWidth() == 8)
    return fp8Flops;
  if (elementType.isBF16())
    return bf16Flops;
  if (elementType.isF16())
    return fp16Flops;
  return fp32Flops;
}

namespace {
/// Reads the fields of one JSON object, each once, and reports the first
/// missing, mistyped or unknown one with the file's name.
class FieldReader {
public:
  FieldReader(const llvm::json::Object &object, StringRef source)
      : object(object), source(source) {}

  llvm::Error error(const llvm::Twine &message) const {
    return makeError(source + ": " + message);
  }

  llvm::Expected<const llvm::json::Value *> get(StringRef key) {
    seen.push_back(key.str());
    const llvm::json::Value *value = object.get(key);
    if (!value)
      return error("missing field '" + key + "'");
    return value;
  }

  llvm::Error readString(StringRef key, std::string &out) {
    auto value = get(key);
    if (!value)
      return value.takeError();
    std::optional<StringRef> text = (*value)->getAsString();
    if (!text)
      return error("'" + key + "' must be a string");
    out = text->str();
    return llvm::Error::success();
  }

  llvm::Error readStrings(StringRef key, SmallVectorImpl<std::string> &out) {
    auto value = get(key);
    if (!value)
      return value.takeError();
    const llvm::json::Array *array = (*value)->getAsArray();
    if (!array)
      return error("'" + key + "' must be an array of strings");
    for (const llvm::json::Value &element : *array) {
      std::optional<StringRef> text = element.getAsString();
      if (!text)
        return error("'" + key + "' must be an array of strings");
      out.push_back(text->str());
    }
    return llvm::Error::success();
  }

  /// A number >= 0 (> 0 unless `allowZero`).
  llvm::Error readRate(const llvm::json::Object &from, StringRef key,
                       StringRef path, double &out, bool allowZero) {
    const llvm::json::Value *value = from.get(key);
    if (!value)
      return error("missing field '" + path + "'");
    std::optional<double> number = value->getAsNumber();
    if (!number || !std::isfinite(*number) || *number < 0 ||
        (!allowZero && *number == 0))
      return error("'" + path + "' must be a " +
                   (allowZero ? "non-negative" : "positive") + " number");
    out = *number;
    return llvm::Error::success();
  }

  llvm::Error readRate(StringRef key, double &out) {
    seen.push_back(key.str());
    return readRate(object, key, key, out, /*allowZero=*/false);
  }

  llvm::Error readPositiveInteger(StringRef key, int64_t &out) {
    auto value = get(key);
    if (!value)
      return value.takeError();
    std::optional<int64_t> number = mlir::memopt::getJsonInteger(**value);
    if (!number || *number <= 0)
      return error("'" + key + "' must be a positive integer");
    out = *number;
    return llvm::Error::success();
  }

  llvm::Error checkNoOtherFields(ArrayRef<StringRef> optional) const {
    for (const auto &entry : object) {
      StringRef key = entry.first;
      if (!llvm::is_contained(seen, key.str()) &&
          !llvm::is_contained(optional, key))
        return error("unknown field '" + key + "'");
    }
    return llvm::Error::success();
  }

private:
  const llvm::json::Object &object;
  StringRef source;
  SmallVector<std::string> seen;
};
} // namespace

llvm::Expected<DeviceProfile>
mlir::memopt::autoplan::parseDeviceProfile(StringRef text, StringRef source) {
  llvm::Expected<llvm::json::Value> json = mlir::memopt::parseJson(text);
  if (!json)
    return makeError(source +
                     ": not valid JSON: " + llvm::toString(json.takeError()));
  const llvm::json::Object *object = json->getAsObject();
  if (!object)
    return makeError(source + ": expected a JSON object");
  FieldReader reader(*object, source);
  std::string schema;
  if (llvm::Error error = reader.readString("schema", schema))
    return std::move(error);
  if (schema != "memopt.device/1")
    return reader.error("unsupported schema '" + schema +
                        "'; expected 'memopt.device/1'");

  DeviceProfile profile;
  if (llvm::Error error = reader.readString("name", profile.name))
    return std::move(error);
  if (profile.name.empty())
    return reader.error("'name' must not be empty");
  if (llvm::Error error = reader.readStrings("aliases", profile.aliases))
    return std::move(error);
  if (llvm::Error error = reader.readString("description", profile.description))
    return std::move(error);
  if (llvm::Error error = reader.readStrings("sources", profile.sources))
    return std::move(error);
  if (profile.sources.empty())
    return reader.error("'sources' must cite at least one source");
  if (llvm::Error error =
          reader.readPositiveInteger("memory_bytes", profile.memoryBytes))
    return std::move(error);

  auto flops = reader.get("flops_per_second");
  if (!flops)
    return flops.takeError();
  const llvm::json::Object *rates = (*flops)->getAsObject();
  if (!rates)
    return reader.error("'flops_per_second' must be an object");
  struct {
    StringRef key;
    double *out;
    bool allowZero;
  } fields[] = {{"fp32", &profile.fp32Flops, false},
                {"bf16", &profile.bf16Flops, true},
                {"fp16", &profile.fp16Flops, true},
                {"fp8", &profile.fp8Flops, true}};
  for (auto &field : fields)
    if (llvm::Error error = reader.readRate(
            *rates, field.key, ("flops_per_second." + field.key).str(),
            *field.out, field.allowZero))
      return std::move(error);
  for (const auto &entry : *rates)
    if (!llvm::is_contained({"fp32", "bf16", "fp16", "fp8"},
                            StringRef(entry.first)))
      return reader.error("unknown field 'flops_per_second." +
                          StringRef(entry.first) + "'");

  if (llvm::Error error =
          reader.readRate("hbm_bytes_per_second", profile.hbmBytesPerSecond))
    return std::move(error);
  if (llvm::Error error = reader.readRate("intra_node_bytes_per_second",
                                          profile.intraNodeBytesPerSecond))
    return std::move(error);
  if (llvm::Error error = reader.readRate("inter_node_bytes_per_second",
                                          profile.interNodeBytesPerSecond))
    return std::move(error);
  if (llvm::Error error = reader.readPositiveInteger("devices_per_node",
                                                     profile.devicesPerNode))
    return std::move(error);
  // Optional: profiles written before host offload have no host link and
  // no host memory bandwidth.
  if (object->get("host_link_bytes_per_second"))
    if (llvm::Error error = reader.readRate("host_link_bytes_per_second",
                                            profile.hostLinkBytesPerSecond))
      return std::move(error);
  if (object->get("host_memory_bytes_per_second"))
    if (llvm::Error error = reader.readRate("host_memory_bytes_per_second",
                                            profile.hostMemoryBytesPerSecond))
      return std::move(error);
  if (llvm::Error error = reader.checkNoOtherFields({"notes"}))
    return std::move(error);
  return profile;
}

namespace {
struct BuiltinProfile {
  StringRef file;
  StringRef text;
};
} // namespace

static ArrayRef<BuiltinProfile> getBuiltinProfiles() {
  static const BuiltinProfile profiles[] = {{"a100-80gb.json", kA100Profile},
                                            {"h100-sxm.json", kH100Profile},
                                            {"h200.json", kH200Profile}};
  return profiles;
}

std::string mlir::memopt::autoplan::listDeviceProfiles() {
  SmallVector<std::string> names;
  for (const BuiltinProfile &builtin : getBuiltinProfiles()) {
    llvm::Expected<DeviceProfile> profile =
        parseDeviceProfile(builtin.text, builtin.file);
    if (!profile) {
      llvm::consumeError(profile.takeError());
      continue;
    }
    std::string name = profile->name;
    if (!profile->aliases.empty())
      name += " (" + llvm::join(profile->aliases, ", ") + ")";
    names.push_back(name);
  }
  return llvm::join(names, ", ");
}

llvm::Expected<DeviceProfile>
mlir::memopt::autoplan::loadDeviceProfile(StringRef nameOrPath) {
  if (nameOrPath.ends_with(".json") || llvm::sys::fs::exists(nameOrPath)) {
    auto buffer = llvm::MemoryBuffer::getFile(nameOrPath);
    if (!buffer)
      return makeError("cannot read device profile '" + nameOrPath +
                       "': " + buffer.getError().message());
    return parseDeviceProfile((*buffer)->getBuffer(), nameOrPath);
  }
  std::string wanted = nameOrPath.lower();
  for (const BuiltinProfile &builtin : getBuiltinProfiles()) {
    llvm::Expected<DeviceProfile> profile =
        parseDeviceProfile(builtin.text, builtin.file);
    if (!profile)
      return profile.takeError();
    if (profile->name == wanted || llvm::is_contained(profile->aliases, wanted))
      return profile;
  }
  return makeError("unknown device '" + nameOrPath + "'; expected one of " +
                   listDeviceProfiles() + ", or the path of a .json profile");
}
