"""A BERT-style encoder's weights read out of its ONNX graph by their parameter names,
for the browser's own forward pass (`bert_forward` holds them to onnxruntime's answers).

Weights the graph stores as int8 codes times a scale (Cast, then Mul) stay int8 here,
with their scale; the others are float32."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

_LAYER = re.compile(r"^encoder\.layer\.(\d+)\.")
_ANCHOR = "embeddings.word_embeddings.weight"


class NotBert(ValueError):
    """The graph is not one the browser's forward pass runs; the message says what is
    missing or unknown."""


@dataclass(frozen=True)
class Tensor:
    """Float32 `values`, or int8 `values` whose floats are values * `scale` (float32,
    broadcast against them)."""

    values: np.ndarray
    scale: np.ndarray | None = None

    def dense(self) -> np.ndarray:
        if self.scale is None:
            return self.values
        return self.values.astype(np.float32) * self.scale

    def rows(self, index: Sequence[int] | slice) -> np.ndarray:
        """`dense()[index]` for a tensor with one scale per row (or none), without
        dequantizing the other rows."""
        if self.scale is None:
            return self.values[index]
        return self.values[index].astype(np.float32) * self.scale[index]


@dataclass(frozen=True)
class BertWeights:
    """`tensors` by parameter name, without the exporter's prefix:
    `embeddings.word_embeddings.weight`, `encoder.layer.0.attention.self.query.weight`
    (in x out, as the graph multiplies), ..."""

    tensors: dict[str, Tensor]
    layers: int
    hidden: int
    intermediate: int
    eps: float

    def __getitem__(self, name: str) -> Tensor:
        return self.tensors[name]

    def layer(self, index: int, name: str) -> np.ndarray:
        return self.tensors[f"encoder.layer.{index}.{name}"].dense()


LAYER_PARAMETERS = tuple(
    f"{part}.{kind}"
    for part in ("attention.self.query", "attention.self.key", "attention.self.value",
                 "attention.output.dense", "attention.output.LayerNorm",
                 "intermediate.dense", "output.dense", "output.LayerNorm")
    for kind in (("weight", "bias")))
EMBEDDINGS = ("embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight",
              "embeddings.token_type_embeddings.weight", "embeddings.LayerNorm.weight",
              "embeddings.LayerNorm.bias")


def read_bert(model_path: Path) -> BertWeights:
    """The weights of the BERT encoder in `model_path`; NotBert if the graph is not one
    (an operator the forward pass lacks, or a parameter it cannot name)."""
    import onnx
    from onnx import numpy_helper

    try:
        graph = onnx.load(str(model_path)).graph
    except Exception as exc:  # onnx raises DecodeError, OSError, ...
        raise NotBert(f"cannot read {model_path} as ONNX: {exc}") from exc
    known = {"Erf", "LayerNormalization", "Softmax", "MatMul", "Gather"}
    missing = known - {node.op_type for node in graph.node}
    if missing:
        raise NotBert(f"the graph has no {', '.join(sorted(missing))}: not a BERT encoder")
    arrays = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    anchor = next((n for n in arrays if n.removesuffix("_q").endswith(_ANCHOR)), None)
    if anchor is None:
        raise NotBert(f"the graph has no {_ANCHOR}")
    prefix = anchor.removesuffix("_q")[: -len(_ANCHOR)]

    # what each node's output holds, as far as a parameter goes: a Cast of an int8
    # initializer, then that times a scale initializer
    cast: dict[str, np.ndarray] = {}
    tensors_by_output: dict[str, Tensor] = {}
    for node in graph.node:
        ins = list(node.input)
        if node.op_type == "Cast" and ins[0] in arrays and arrays[ins[0]].dtype == np.int8:
            cast[node.output[0]] = arrays[ins[0]]
        elif node.op_type == "Mul" and len(ins) == 2 and ins[0] in cast and ins[1] in arrays:
            tensors_by_output[node.output[0]] = Tensor(
                cast[ins[0]], arrays[ins[1]].astype(np.float32))

    def tensor(name: str) -> Tensor | None:
        if name in tensors_by_output:
            return tensors_by_output[name]
        if name in arrays and arrays[name].dtype == np.float32:
            return Tensor(arrays[name])
        return None

    named: dict[str, Tensor] = {}
    for name in arrays:  # float parameters stored under their own names
        if name.startswith(prefix) and arrays[name].dtype == np.float32:
            named[name[len(prefix):]] = Tensor(arrays[name])
    for output, found in tensors_by_output.items():  # embeddings: `<name>` = Mul output
        if output.startswith(prefix):
            named[output[len(prefix):]] = found
    consumers: dict[str, list] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    for node in graph.node:  # a dense layer's weight takes its bias's name
        weight = tensor(node.input[1]) if node.op_type == "MatMul" else None
        if weight is None or weight.values.ndim != 2:
            continue
        for add in consumers.get(node.output[0], []):
            bias = next((n for n in add.input if n.startswith(prefix) and n.endswith(".bias")),
                        None) if add.op_type == "Add" else None
            if bias is not None:
                named[bias[len(prefix):].removesuffix(".bias") + ".weight"] = weight
    eps = [a.f for node in graph.node if node.op_type == "LayerNormalization"
           for a in node.attribute if a.name == "epsilon"]
    layers = 1 + max((int(m.group(1)) for n in named if (m := _LAYER.match(n))), default=-1)
    wanted = [*EMBEDDINGS, *(f"encoder.layer.{i}.{p}" for i in range(layers)
                             for p in LAYER_PARAMETERS)]
    absent = [n for n in wanted if n not in named]
    if not layers or absent:
        raise NotBert("the graph's parameters lack " + (", ".join(absent[:3]) or "layers"))
    hidden = int(named[EMBEDDINGS[0]].values.shape[1])
    return BertWeights(
        tensors={n: named[n] for n in wanted}, layers=layers, hidden=hidden,
        intermediate=int(named["encoder.layer.0.intermediate.dense.weight"].values.shape[1]),
        eps=float(eps[0]) if eps else 1e-12)
