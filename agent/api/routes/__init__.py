"""One module per resource; `agent.api.app` includes each router."""
