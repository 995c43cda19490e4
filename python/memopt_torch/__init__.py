"""memopt's PyTorch front end: `python3 -m memopt_torch export` traces a
model's forward pass and loss and writes the graph that `mem-import` turns
into a train-dialect step (docs/import.md)."""

from .exporter import FORMAT, VERSION, ExportError, load_model, trace, to_json

__all__ = ["FORMAT", "VERSION", "ExportError", "load_model", "trace", "to_json"]
