// Bad options and bad steps give a diagnostic at the function.
// RUN: not mem-opt %s --train-plan-memory=alignment=3 -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALIGN
// ALIGN: error: train-plan-memory: alignment must be a power of two between 1 and 2097152 (2 MiB), got 3{{$}}
// RUN: not mem-opt %s --train-plan-memory=alignment=0 -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: train-plan-memory: alignment must be a power of two between 1 and 2097152 (2 MiB), got 0{{$}}
// A huge alignment would make an arena of terabytes out of padding.
// RUN: not mem-opt %s --train-plan-memory=alignment=1099511627776 -o /dev/null 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: error: train-plan-memory: alignment must be a power of two between 1 and 2097152 (2 MiB), got 1099511627776{{$}}
// A value llvm::cl cannot parse: an error naming the pass, not an empty one.
// RUN: not mem-opt %s --train-plan-memory=alignment=abc -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTNUM
// NOTNUM: error: train-plan-memory: cannot parse the options 'alignment=abc' (the line above says which value){{$}}
// RUN: not mem-opt %s --train-plan-memory=search-budget=-1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET
// BUDGET: error: train-plan-memory: search-budget (work units) must not be negative, got -1{{$}}
// `budget` means bytes (train-remat's); the planner's work limit is
// search-budget, and the old name is refused.
// RUN: not mem-opt %s --train-plan-memory=budget=1000 -o /dev/null 2>&1 | FileCheck %s --check-prefix=OLD-BUDGET
// OLD-BUDGET: error: <Pass-Options-Parser>: no such option budget
// RUN: not mem-opt %s --train-plan-memory=algorithm=magic -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALGO
// ALGO: error: train-plan-memory: unknown algorithm 'magic' (expected auto or best-fit)
// RUN: not mem-opt %s --train-plan-memory=alignmnet=64 -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTION
// OPTION: no such option alignmnet

func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = train.relu %x : tensor<4xf32>
  return %a : tensor<4xf32>
}
