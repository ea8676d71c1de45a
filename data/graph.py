"""Connected components of an undirected graph given by its edges (scipy.sparse.csgraph):
the one implementation behind LI-Adger's phenomena (types linked by minimal pairs) and
the bootstrap's resampling units (clusters linked by minimal pairs)."""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components


def components(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The component label (0 to k - 1) of each of the ``n`` nodes, where an edge links
    node ``a[i]`` with node ``b[i]``; a node without edges is its own component."""
    graph = coo_matrix((np.ones(len(a)), (a, b)), shape=(n, n))
    return connected_components(graph, directed=False)[1]
