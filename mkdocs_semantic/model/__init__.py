"""The embedding model: its spec and limits (`spec`) and the ONNX runtime that runs it
(`onnx`); `tokenizer.json` is the packaged model's tokenizer."""

from .onnx import OnnxEmbedder
from .spec import Embedder, ModelError, ModelSpec, default_model_spec

__all__ = ["Embedder", "ModelError", "ModelSpec", "OnnxEmbedder", "default_model_spec"]
