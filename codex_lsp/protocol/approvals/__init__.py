"""Server requests: approvals and questions the server asks the client."""
