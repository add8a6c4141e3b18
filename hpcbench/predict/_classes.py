"""The placement classes a message can travel between: the vocabulary the
network profile, the placements and the allocations share.

Hammond et al. (2009, Table 3) benchmark three: on-chip (core to core),
off-processor and off-node. hpcbench's comm layers name finer relations
(same PU, same core, same L2, same L3, same package, same NUMA node, other
package, other node, hpcbench/comm/_layerplan.py); `class_of_layer` folds
them into the classes the model distinguishes:

* "same cache": the two cores share a cache (or a core, or a PU), the
  paper's on-chip;
* "same package": one package, no cache in common;
* "other package": one node, two packages (off-processor);
* "other node": off-node;
* "same node": one node, ranks not bound to one PU, so nothing finer is
  known.
"""
from __future__ import annotations

from ._errors import PredictError

SAME_CACHE, SAME_PACKAGE, OTHER_PACKAGE, OTHER_NODE, SAME_NODE = (
    "same cache", "same package", "other package", "other node", "same node")
#: Every class, in a fixed order: a class's index in arrays is its position here.
CLASSES = (SAME_CACHE, SAME_PACKAGE, OTHER_PACKAGE, OTHER_NODE, SAME_NODE)
#: The paper's names (Table 3) for the classes they match.
PAPER_NAMES = {"on-chip": SAME_CACHE, "off-processor": OTHER_PACKAGE, "off-node": OTHER_NODE}


def class_of_layer(name: str) -> str:
    """The class of a comm layer's (or pair's) name, e.g. "same L3" ->
    "same cache"."""
    text = name.strip()
    if text in CLASSES:
        return text
    if text in PAPER_NAMES:
        return PAPER_NAMES[text]
    if text in ("same PU", "same core") or (text.startswith("same L") and text[6:].isdigit()):
        return SAME_CACHE
    if text in ("same NUMA node",):
        return SAME_PACKAGE
    if text.startswith("same node"):
        return SAME_NODE
    raise PredictError(f"unknown placement class {name!r}: one of {', '.join(CLASSES)} "
                       f"(or a comm layer name such as 'same L3', or {', '.join(PAPER_NAMES)})")


def class_index(name: str) -> int:
    return CLASSES.index(class_of_layer(name))
