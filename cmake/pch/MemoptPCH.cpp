// The one source of MemoptPCH, the target that owns the precompiled header
// (cmake/MemoptPCH.cmake); it compiles to nothing.
