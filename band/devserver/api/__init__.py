"""band dev's HTTP API: one module of route declarations per area (agent, human, tasks, files,
contacts, memories, ...) and the plumbing they share (``http``)."""
