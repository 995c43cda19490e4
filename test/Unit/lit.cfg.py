# -*- Python -*-
# Runs the gtest unit tests of memopt through lit.

import os

import lit.formats

config.name = "MEMOPT-Unit"
config.suffixes = []
config.test_source_root = os.path.join(config.memopt_obj_root, "test", "Unit")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
