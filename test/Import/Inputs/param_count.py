"""Prints `param_count: N`, sum(p.numel()) of a model, as mem-import
--print-param-count does for the imported function.

    param_count.py MODEL [CONFIG]
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "python"))
from memopt_torch.exporter import load_model  # noqa: E402

model = load_model(sys.argv[1], json.loads(sys.argv[2]) if len(sys.argv) > 2 else {})
print(f"param_count: {sum(p.numel() for p in model.parameters())}")
