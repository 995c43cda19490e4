// Bad options of memopt-lower-to-gpu are reported before any lowering.
// RUN: not mem-opt %s --memopt-lower-to-gpu='chip=sm_99' 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not mem-opt %s --memopt-lower-to-gpu='chip=sm_70' 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not mem-opt %s --memopt-lower-to-gpu='chip=sm_90 features=+ptx70' 2>&1 | FileCheck %s --check-prefix=PTX
// RUN: not mem-opt %s --memopt-lower-to-gpu='features=ptx80' 2>&1 | FileCheck %s --check-prefix=FEATURES
// RUN: not mem-opt %s --memopt-lower-to-gpu='format=elf' 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not mem-opt %s --memopt-lower-to-gpu='block-size=48' 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: mem-opt %s -split-input-file -verify-diagnostics --memopt-gpu-check-target='chip=sm_99'

// CHIP: error: unknown chip 'sm_99'; expected one of sm_75, sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a, sm_100, sm_100a, sm_103, sm_103a, sm_120, sm_120a, sm_121, sm_121a
// OLD: error: unknown chip 'sm_70'
// PTX: error: chip sm_90 needs PTX ISA 7.8 or newer; got '+ptx70' (use +ptx78 or higher)
// FEATURES: error: invalid features 'ptx80'; expected '+ptxNN' (a PTX ISA version, e.g. +ptx80)
// FORMAT: error: unknown format 'elf'; expected bin, isa or fatbin
// BLOCK: error: block-size must be a multiple of 32 between 32 and 1024, got 48{{$}}

// expected-error@+1 {{unknown chip 'sm_99'}}
module {
  func.func @f() {
    return
  }
}
