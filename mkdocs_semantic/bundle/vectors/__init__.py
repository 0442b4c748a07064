"""The bundle's vectors: int8 rows in one exact scan or in partitions probed by
centroid (`store`, `partitions`), and the query codes both scan with (`codes`)."""
