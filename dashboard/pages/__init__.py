"""The dashboard's pages. Each module has `layout(data, params)` (params: the URL's query values)
and `register(app, data)` (its callbacks, whose logic lives in plain functions for the tests)."""
