"""Page templates shipped with sheetgen (data only; installed as `sheetgen.templates`)."""
