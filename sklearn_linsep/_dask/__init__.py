"""dask arrays, walked block by block: a backend beside the floors.

dask is optional. Nothing here imports it unless the caller already passed a dask
array (which means dask is installed and imported; ``_compat.is_dask_array`` tells
without importing it).

Each row block is validated and reduced where it lives, as a dask task; what comes
back to the client is O(p²) (class statistics) or the few rows a caller asks for,
never anything of size n. The rest of the suite reaches dask through three doors
only: :class:`DaskRows` with :func:`dask_class_statistics` (the statistics merge),
:class:`DaskScaledRows` (the two-class rows protocol of ``_working_set``) and
``_base.map_row_blocks`` (prediction); :func:`verify_on_blocks` checks a result.
"""

from ._rows import DaskRows
from ._statistics import dask_class_statistics
from ._two_class import DaskScaledRows
from ._verify import verify_on_blocks

__all__ = ["DaskRows", "DaskScaledRows", "dask_class_statistics", "verify_on_blocks"]
