"""The HTTP service: record, replay and branch games live, and serve the dashboards (`logs serve`)."""
