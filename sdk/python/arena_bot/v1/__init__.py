"""Generated from proto/arena/v1/*.proto by `python -m tools.protogen`. Do not edit by hand."""
