# Writes OUTPUT, a C++ fragment that defines the llvm::StringLiteral NAME
# holding the contents of INPUT as a raw string literal, so that a template
# file (AotDriver.c.in) is edited as what it is and compiled into the
# library. Run as `cmake -DINPUT=... -DOUTPUT=... -DNAME=... -P`.
foreach(variable INPUT OUTPUT NAME)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "EmbedText.cmake: ${variable} is not set")
  endif()
endforeach()
file(READ "${INPUT}" contents)
set(delimiter "memopt_embed")
string(FIND "${contents}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw string delimiter )${delimiter}\"")
endif()
get_filename_component(input_name "${INPUT}" NAME)
file(WRITE "${OUTPUT}"
  "// Generated from ${input_name} by EmbedText.cmake; do not edit.\n"
  "static constexpr llvm::StringLiteral ${NAME} = R\"${delimiter}(${contents})${delimiter}\";\n")
