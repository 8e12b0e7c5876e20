"""The Spark seam: the only package of coordscope that imports pyspark."""
