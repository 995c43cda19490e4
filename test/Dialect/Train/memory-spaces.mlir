// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file -verify-diagnostics | mem-opt --mlir-print-debuginfo=false -split-input-file | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file -verify-diagnostics --mlir-print-op-generic | mem-opt --mlir-print-debuginfo=false -split-input-file | FileCheck %s

// Round trip of the memory-space copies and `train.space` (the invalid cases
// below produce no output), then every rule of the verifiers.

// CHECK-LABEL: func.func @offloaded
// CHECK:         %[[W:.+]] = train.param "w" {train.space = "host"} : tensor<4x4xf32>
// CHECK-NEXT:    %[[C:.+]] = train.cast %[[W]] {train.space = "host"} : tensor<4x4xf32> -> tensor<4x4xbf16>
// CHECK-NEXT:    %[[D:.+]] = train.to_device %[[C]] : tensor<4x4xbf16>
// CHECK-NEXT:    %[[Y:.+]] = train.matmul %{{.+}}, %[[D]]
// CHECK-NEXT:    %[[H:.+]] = train.to_host %[[Y]] : tensor<2x4xbf16>
// CHECK-NEXT:    train.relu %[[H]] {train.space = "host"}
func.func @offloaded(%x: tensor<2x4xbf16>) -> tensor<2x4xbf16> {
  %w = train.param "w" {train.space = "host"} : tensor<4x4xf32>
  %c = train.cast %w {train.space = "host"} : tensor<4x4xf32> -> tensor<4x4xbf16>
  %d = train.to_device %c : tensor<4x4xbf16>
  %y = train.matmul %x, %d : tensor<2x4xbf16>, tensor<4x4xbf16> -> tensor<2x4xbf16>
  %h = train.to_host %y : tensor<2x4xbf16>
  %r = train.relu %h {train.space = "host"} : tensor<2x4xbf16>
  return %y : tensor<2x4xbf16>
}

// -----

func.func @host_reads_device(%x: tensor<4xf32>) {
  // expected-error@+1 {{runs on the host but reads operand #0, a device value: copy it with train.to_host first}}
  %r = train.relu %x {train.space = "host"} : tensor<4xf32>
  return
}

// -----

func.func @bad_space() {
  // expected-error@+1 {{'train.space' must be "host" (device is the default)}}
  %w = train.param "w" {train.space = "device"} : tensor<4xf32>
  return
}

// -----

func.func @copy_twice(%x: tensor<4xf32>) {
  %h = train.to_host %x : tensor<4xf32>
  // expected-error@+1 {{'train.to_host' op copies a value that is already in host memory}}
  %hh = train.to_host %h : tensor<4xf32>
  return
}

// -----

func.func @device_to_device(%x: tensor<4xf32>) {
  // expected-error@+1 {{'train.to_device' op copies a value that is already in device memory}}
  %d = train.to_device %x : tensor<4xf32>
  return
}

// -----

func.func @placed_copy(%x: tensor<4xf32>) {
  // expected-error@+1 {{'train.to_host' op carries 'train.space': a copy's space is given by its kind}}
  %h = train.to_host %x {train.space = "host"} : tensor<4xf32>
  return
}

// -----

func.func @types(%x: tensor<4xf32>) {
  // expected-error@+1 {{'train.to_host' op failed to verify that all of {input, result} have same type}}
  %h = "train.to_host"(%x) : (tensor<4xf32>) -> tensor<4xbf16>
  return
}
