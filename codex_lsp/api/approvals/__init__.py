"""Approvals and questions the API asks the client on a thread's behalf."""
